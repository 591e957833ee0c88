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
