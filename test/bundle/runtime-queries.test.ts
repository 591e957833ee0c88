// Runtime value queries: parsed as Timoni parses them (and refused when a name would change
// the request path), then evaluated against given objects: strings kept, numbers printed,
// Secret values decoded and marked secret.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  decodeStrictBase64,
  extractQueryValues,
  parseRuntimeQuery,
  RuntimeQueryError,
} from '../../src/bundle/runtime-queries.js';
import type { RuntimeQuery } from '../../src/bundle/types.js';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';

let engine: CueEngine;
beforeAll(async () => {
  engine = await loadCueEngine();
});

const objects: Record<string, Record<string, unknown>> = {
  'k8s:v1:ConfigMap:infra:aws-info': {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'aws-info', namespace: 'infra' },
    data: { account_id: '1234567890', region: 'us-west-2' },
  },
  'k8s:v1:Namespace:default': {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default', uid: 'bc83fc97-3cb9-42ca-ae38-cc09501e01e3', generation: 7 },
  },
};

describe('parseRuntimeQuery', () => {
  it('reads a namespaced query', () => {
    const query = parseRuntimeQuery(
      'k8s:v1:Secret:infra:redis-auth',
      [{ name: 'REDIS_PASS', expression: 'obj.data.password' }],
      false,
    );
    expect(query).toMatchObject({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'infra',
      name: 'redis-auth',
      optional: false,
    });
  });

  it('reads a cluster-scoped query with a group in the apiVersion', () => {
    const query = parseRuntimeQuery('k8s:cert-manager.io/v1:ClusterIssuer:letsencrypt', [], true);
    expect(query).toMatchObject({
      apiVersion: 'cert-manager.io/v1',
      kind: 'ClusterIssuer',
      namespace: '',
      name: 'letsencrypt',
      optional: true,
    });
  });

  it.each([
    ['kube:v1:Namespace:default', /must start with "k8s:"/],
    ['k8s:v1:Namespace', /got 3 parts/],
    ['k8s:v1:ConfigMap:a:b:c', /got 6 parts/],
    ['k8s:v1::default', /kind is empty/],
    ['k8s:v1:ConfigMap::name', /namespace is empty/],
  ])('rejects %s', (text, message) => {
    expect(() => parseRuntimeQuery(text, [], false)).toThrow(RuntimeQueryError);
    expect(() => parseRuntimeQuery(text, [], false)).toThrow(message);
  });

  it('rejects value names Timoni would reject', () => {
    expect(() =>
      parseRuntimeQuery('k8s:v1:Namespace:default', [{ name: 'BAD NAME', expression: 'obj' }], false),
    ).toThrow(/not a valid value name/);
  });
});

describe('query names that would change the request path', () => {
  it.each([
    ['k8s:v1:Secret:ns:.', /the name "\." is not valid/],
    ['k8s:v1:Secret:ns:..', /the name "\.\." is not valid/],
    ['k8s:v1:Secret:..:.', /the namespace "\.\." is not valid/],
    ['k8s:v1:Secret:ns:a/b', /the name "a\/b" is not valid/],
    ['k8s:v1:Secret:ns:a%2Fb', /the name "a%2Fb" is not valid/],
    ['k8s:v1:Secret:ns:a?watch=1', /the name "a\?watch=1" is not valid/],
    ['k8s:../v1:Secret:ns:a', /the apiVersion "\.\.\/v1" is not valid/],
    ['k8s:v1:Secret/x:ns:a', /the kind "Secret\/x" is not valid/],
    ['k8s:v1:Secret:Upper_NS:a', /the namespace "Upper_NS" is not valid/],
  ])('refuses %s', (query, message) => {
    expect(() => parseRuntimeQuery(query, [], false)).toThrow(RuntimeQueryError);
    expect(() => parseRuntimeQuery(query, [], false)).toThrow(message);
  });

  it('keeps names Kubernetes allows', () => {
    expect(parseRuntimeQuery('k8s:rbac.authorization.k8s.io/v1:ClusterRole:view', [], false).name).toBe('view');
    expect(parseRuntimeQuery('k8s:v1:ConfigMap:kube-system:cluster-info.v2', [], false).name).toBe('cluster-info.v2');
    expect(parseRuntimeQuery('k8s:apps/v1beta1:Deployment:ns:web', [], false).apiVersion).toBe('apps/v1beta1');
  });
});

describe('extractQueryValues', () => {
  it('prints numbers and bools as CUE does and refuses structs', () => {
    const query: RuntimeQuery = parseRuntimeQuery(
      'k8s:v1:Namespace:default',
      [
        { name: 'GEN', expression: 'obj.metadata.generation' },
        { name: 'DOUBLE', expression: 'obj.metadata.generation * 2' },
        { name: 'HAS_UID', expression: 'obj.metadata.uid != ""' },
      ],
      false,
    );
    const values = extractQueryValues(engine, query, objects['k8s:v1:Namespace:default'] as Record<string, unknown>);
    expect(values).toEqual([
      { name: 'GEN', value: '7', secret: false },
      { name: 'DOUBLE', value: '14', secret: false },
      { name: 'HAS_UID', value: 'true', secret: false },
    ]);
    const structQuery = parseRuntimeQuery(
      'k8s:v1:Namespace:default',
      [{ name: 'META', expression: 'obj.metadata' }],
      false,
    );
    expect(() =>
      extractQueryValues(engine, structQuery, objects['k8s:v1:Namespace:default'] as Record<string, unknown>),
    ).toThrow(RuntimeQueryError);
  });

  it('allows comprehensions in expressions', () => {
    const query = parseRuntimeQuery(
      'k8s:v1:ConfigMap:infra:aws-info',
      [{ name: 'KEYS', expression: '[for k, v in obj.data if k == "region" {v}][0]' }],
      false,
    );
    expect(
      extractQueryValues(engine, query, objects['k8s:v1:ConfigMap:infra:aws-info'] as Record<string, unknown>),
    ).toEqual([{ name: 'KEYS', value: 'us-west-2', secret: false }]);
  });

  it('keeps Secret values that are not base64 as they are, and never shows Secret data in errors', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { token: 'not-base64!', count: 'c2VjcmV0LXZhbHVl' },
    };
    const query = parseRuntimeQuery('k8s:v1:Secret:ns:s', [{ name: 'TOKEN', expression: 'obj.data.token' }], false);
    expect(extractQueryValues(engine, query, secret)).toEqual([{ name: 'TOKEN', value: 'not-base64!', secret: true }]);
    const failing = parseRuntimeQuery('k8s:v1:Secret:ns:s', [{ name: 'BAD', expression: 'obj.data.count & 5' }], false);
    let message = '';
    try {
      extractQueryValues(engine, failing, secret);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('details hidden because the object is a Secret');
    expect(message).not.toContain('c2VjcmV0LXZhbHVl');
  });
});

describe('decodeStrictBase64', () => {
  it('decodes padded standard base64 as Go does', () => {
    expect(decodeStrictBase64('cGFzc3dvcmQ=')).toBe('password');
    expect(decodeStrictBase64('')).toBe('');
  });

  it('refuses what Go refuses, so the text is kept as it is', () => {
    expect(decodeStrictBase64('cGFzc3dvcmQ')).toBeUndefined();
    expect(decodeStrictBase64('not base64!')).toBeUndefined();
    expect(decodeStrictBase64('cGFz-3dvcmQ=')).toBeUndefined();
  });
});
