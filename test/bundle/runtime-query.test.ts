import { describe, expect, it } from 'vitest';
import { parseRuntimeQuery, RuntimeQueryError } from '../../src/bundle/runtime-query.js';

describe('parseRuntimeQuery', () => {
  it('reads a namespaced query', () => {
    const query = parseRuntimeQuery('k8s:v1:Secret:infra:redis-auth', [{ name: 'REDIS_PASS', expression: 'obj.data.password' }], false);
    expect(query).toMatchObject({ apiVersion: 'v1', kind: 'Secret', namespace: 'infra', name: 'redis-auth', optional: false });
  });

  it('reads a cluster-scoped query with a group in the apiVersion', () => {
    const query = parseRuntimeQuery('k8s:cert-manager.io/v1:ClusterIssuer:letsencrypt', [], true);
    expect(query).toMatchObject({ apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer', namespace: '', name: 'letsencrypt', optional: true });
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
    expect(() => parseRuntimeQuery('k8s:v1:Namespace:default', [{ name: 'BAD NAME', expression: 'obj' }], false)).toThrow(/not a valid value name/);
  });
});
