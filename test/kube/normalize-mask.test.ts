import { describe, expect, it } from 'vitest';
import { objectDiff, wholeObjectDiff } from '../../src/kube/diff.js';
import { maskAfter, maskBefore, maskSecret, maskSecretPair } from '../../src/kube/mask.js';
import { jsonEqual, normalizeObject } from '../../src/kube/normalize.js';
import type { KubeObject } from '../../src/kube/object.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

const liveDeployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'apps',
    uid: '5f1c',
    resourceVersion: '812',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
    annotations: {},
    managedFields: [{ manager: 'timoni', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
  },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
  status: { readyReplicas: 1 },
};

describe('normalisation', () => {
  it('strips server-set metadata, status and empty maps, and leaves the rest alone', () => {
    const normalized = normalizeObject(liveDeployment);
    expect(normalized).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'apps', labels: { app: 'web' } },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
    });
    expect(liveDeployment.metadata.uid).toBe('5f1c');
    expect(normalizeObject(liveDeployment, { dropStatus: false }).status).toEqual({ readyReplicas: 1 });
  });

  it('compares JSON values regardless of key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });
});

describe('diff of objects', () => {
  it('shows a changed field as a unified diff of sorted YAML, without server metadata', () => {
    const desired = structuredClone(liveDeployment);
    (desired.spec as { replicas: number }).replicas = 3;
    desired.metadata.resourceVersion = '813';
    const { diff } = objectDiff(liveDeployment, desired);
    expect(diff).toBe(
      [
        '--- live',
        '+++ desired',
        '@@ -6,7 +6,7 @@',
        '   name: web',
        '   namespace: apps',
        ' spec:',
        '-  replicas: 1',
        '+  replicas: 3',
        '   template:',
        '     spec:',
        '       containers:',
        '',
      ].join('\n'),
    );
    expect(diff).not.toContain('resourceVersion');
    expect(diff).not.toContain('managedFields');
  });

  it('is empty when only server-set fields differ', () => {
    const other = structuredClone(liveDeployment);
    other.metadata.resourceVersion = '999';
    other.metadata.managedFields = [];
    other.status = { readyReplicas: 0 };
    expect(objectDiff(liveDeployment, other)).toEqual({ diff: '' });
  });

  it('shows a created object whole', () => {
    const diff = wholeObjectDiff({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' }, data: { b: '2', a: '1' } });
    expect(diff).toBe('--- live\n+++ desired\n@@ -0,0 +1,8 @@\n+apiVersion: v1\n+data:\n+  a: "1"\n+  b: "2"\n+kind: ConfigMap\n+metadata:\n+  name: c\n+  namespace: n\n');
  });
});

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
      secret({ password: b64('p4ssw0rd-value') }, {
        stringData: { token: 'plain-token-value' },
        metadata: { name: 's', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"cDRzc3cwcmQtdmFsdWU="}}' } },
      }),
    );
    expect(masked.data).toEqual({ password: '***' });
    expect(masked.stringData).toEqual({ token: '***' });
    expect(JSON.stringify(masked)).not.toMatch(/p4ssw0rd|cDRzc3cwcmQtdmFsdWU|plain-token/);
    const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'visible' } };
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
