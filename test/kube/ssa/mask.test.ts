// Secret masking: whole Secrets (as build --mask-secrets prints them) and live/desired pairs
// (as diffs show them), values never shown.
import { describe, expect, it } from 'vitest';
import { objectDiff, wholeObjectDiff } from '../../../src/kube/ssa/diff.js';
import { maskAfter, maskBefore, maskSecret, maskSecretPair } from '../../../src/kube/ssa/mask.js';
import type { KubeObject } from '../../../src/kube/object.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('Secret masking', () => {
  const secret = (data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n' },
    type: 'Opaque',
    data,
    ...extra,
  });

  it('masks every value of a whole Secret, stringData and kubectl annotation included', () => {
    const masked = maskSecret(
      secret(
        { password: b64('p4ssw0rd-value') },
        {
          stringData: { token: 'plain-token-value' },
          metadata: {
            name: 's',
            annotations: {
              'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"cDRzc3cwcmQtdmFsdWU="}}',
            },
          },
        },
      ),
    );
    expect(masked.data).toEqual({ password: '***' });
    expect(masked.stringData).toEqual({ token: '***' });
    expect(JSON.stringify(masked)).not.toMatch(/p4ssw0rd|cDRzc3cwcmQtdmFsdWU|plain-token/);
    const configMap: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'visible' },
    };
    expect(maskSecret(configMap)).toBe(configMap);
  });

  it('marks changed keys before/after, same keys ***, one-sided keys ***', () => {
    const { live, desired } = maskSecretPair(
      secret({ same: b64('s1'), changed: b64('old-value'), gone: b64('g') }),
      secret({ same: b64('s1'), changed: b64('new-value'), added: b64('a') }),
    );
    expect(live.data).toEqual({ same: '***', changed: maskBefore, gone: '***' });
    expect(desired.data).toEqual({ same: '***', changed: maskAfter, added: '***' });
  });

  it('compares stringData with data fairly and never shows a value in the diff', () => {
    const liveSecret = secret({ password: b64('first-password') });
    const unchanged = secret({}, { data: undefined, stringData: { password: 'first-password' } });
    const { live, desired } = maskSecretPair(liveSecret, unchanged);
    expect(desired.data).toEqual({ password: '***' });
    expect(live.data).toEqual({ password: '***' });
    const { diff } = objectDiff(liveSecret, secret({ password: b64('second-password') }));
    expect(diff).toContain('-  password: "*** (before)"');
    expect(diff).toContain('+  password: "*** (after)"');
    expect(diff).not.toMatch(/first-password|second-password|Zmlyc3Qt|c2Vjb25k/);
    expect(wholeObjectDiff(liveSecret)).not.toContain(b64('first-password'));
  });

  it('masks a data field that is not a map as a whole, in a diff as in a whole object', () => {
    const malformed = secret({}, { data: 'plain-text-in-data' });
    const { live, desired } = maskSecretPair(malformed, secret({ password: b64('x') }));
    expect(live.data).toBe('***');
    expect(desired.data).toEqual({ password: '***' });
    expect(JSON.stringify(maskSecret(malformed))).not.toContain('plain-text-in-data');
  });
});

describe('maskSecret as build --mask-secrets uses it (Timoni internal/mask SecretData)', () => {
  const secret = (extra: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's' },
    ...extra,
  });

  it('masks every data and stringData entry without touching the input', () => {
    const input = secret({ data: { a: 'YQ==', b: 'Yg==' }, stringData: { c: 'c' } });
    expect(maskSecret(input)).toEqual(secret({ data: { a: '***', b: '***' }, stringData: { c: '***' } }));
    expect(input.data).toEqual({ a: 'YQ==', b: 'Yg==' });
  });

  it('masks a data field that is not a map as a whole, and compares the kind without case', () => {
    expect(maskSecret({ apiVersion: 'v1', kind: 'secret', data: 'not-a-map', stringData: ['a'] })).toEqual({
      apiVersion: 'v1',
      kind: 'secret',
      data: '***',
      stringData: '***',
    });
  });

  it('leaves other kinds and other API versions as they are', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } };
    expect(maskSecret(configMap)).toBe(configMap);
    const other = { apiVersion: 'example.com/v1', kind: 'Secret', data: { a: 'b' } };
    expect(maskSecret(other)).toBe(other);
  });
});
