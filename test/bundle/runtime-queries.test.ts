// Runtime value queries evaluated against given objects (a later layer reads them from
// clusters): strings kept, numbers printed, Secret values decoded and marked secret,
// optional objects skipped, later sources overriding earlier ones.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateForClusters, extractQueryValues, loadRuntime, parseRuntimeQuery, readSourceFiles, RuntimeQueryError, type RuntimeQuery } from '../../src/bundle/index.js';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
let engine: CueEngine;
beforeAll(async () => {
  engine = await loadCueEngine();
});

const objects: Record<string, Record<string, unknown>> = {
  'k8s:v1:ConfigMap:infra:aws-info': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'aws-info', namespace: 'infra' }, data: { account_id: '1234567890', region: 'us-west-2' } },
  'k8s:v1:Secret:infra:redis-auth': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'redis-auth', namespace: 'infra' }, data: { password: Buffer.from('p4ss:w0rd').toString('base64') } },
  'k8s:v1:Namespace:default': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', uid: 'bc83fc97-3cb9-42ca-ae38-cc09501e01e3', generation: 7 } },
};

describe('runtime value queries', () => {
  it('feed the bundle of each cluster, secret values marked', async () => {
    const bundleFiles = readSourceFiles(['queries/bundle.cue'], fixtures);
    const runtime = loadRuntime(engine, readSourceFiles(['queries/runtime.cue'], fixtures), {}, '');
    expect(runtime.queries.map((q) => q.query)).toEqual([
      'k8s:v1:ConfigMap:infra:aws-info',
      'k8s:v1:Secret:infra:redis-auth',
      'k8s:v1:ConfigMap:infra:optional-settings',
      'k8s:v1:Namespace:default',
    ]);
    const asked: string[] = [];
    const [result] = await evaluateForClusters(engine, {
      bundleFiles,
      moduleFiles: {},
      runtime,
      selector: {},
      readObject: async (cluster, query) => {
        asked.push(`${cluster.name} ${query.query}`);
        return objects[query.query];
      },
    });
    expect(asked).toHaveLength(4);
    const instance = result?.bundle.instances[0];
    expect(instance?.module.url).toBe('oci://1234567890.dkr.ecr.us-west-2.amazonaws.com/modules/podinfo');
    expect(instance?.values).toEqual({
      caching: { enabled: true, redisURL: 'tcp://:p4ss:w0rd@redis.infra:6379' },
      clusterUID: 'bc83fc97-3cb9-42ca-ae38-cc09501e01e3',
      tier: 'standard',
    });
    expect(result?.secretValueNames).toEqual(['REDIS_PASS']);
    expect(result?.secretValues).toEqual(['p4ss:w0rd']);
  });

  it('fail on a missing object that is not optional', async () => {
    const runtime = loadRuntime(engine, readSourceFiles(['queries/runtime.cue'], fixtures), {}, '');
    await expect(
      evaluateForClusters(engine, { bundleFiles: readSourceFiles(['queries/bundle.cue'], fixtures), moduleFiles: {}, runtime, selector: {}, readObject: async () => undefined }),
    ).rejects.toThrow(/k8s:v1:ConfigMap:infra:aws-info.*not found in cluster prod-eu-1/);
  });

  it('print numbers and bools as CUE does and refuse structs', () => {
    const query: RuntimeQuery = parseRuntimeQuery('k8s:v1:Namespace:default', [
      { name: 'GEN', expression: 'obj.metadata.generation' },
      { name: 'DOUBLE', expression: 'obj.metadata.generation * 2' },
      { name: 'HAS_UID', expression: 'obj.metadata.uid != ""' },
    ], false);
    const values = extractQueryValues(engine, query, objects['k8s:v1:Namespace:default'] as Record<string, unknown>);
    expect(values).toEqual([
      { name: 'GEN', value: '7', secret: false },
      { name: 'DOUBLE', value: '14', secret: false },
      { name: 'HAS_UID', value: 'true', secret: false },
    ]);
    const structQuery = parseRuntimeQuery('k8s:v1:Namespace:default', [{ name: 'META', expression: 'obj.metadata' }], false);
    expect(() => extractQueryValues(engine, structQuery, objects['k8s:v1:Namespace:default'] as Record<string, unknown>)).toThrow(RuntimeQueryError);
  });

  it('allow comprehensions in expressions', () => {
    const query = parseRuntimeQuery('k8s:v1:ConfigMap:infra:aws-info', [{ name: 'KEYS', expression: '[for k, v in obj.data if k == "region" {v}][0]' }], false);
    expect(extractQueryValues(engine, query, objects['k8s:v1:ConfigMap:infra:aws-info'] as Record<string, unknown>)).toEqual([{ name: 'KEYS', value: 'us-west-2', secret: false }]);
  });

  it('keep Secret values that are not base64 as they are, and never show Secret data in errors', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { token: 'not-base64!', count: 'c2VjcmV0LXZhbHVl' } };
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

  it('count as secret only the environment values an attribute uses', async () => {
    const [result] = await evaluateForClusters(engine, {
      bundleFiles: readSourceFiles(['defaults/bundle.cue'], fixtures),
      moduleFiles: {},
      runtime: loadRuntime(engine, [], {}, ''),
      selector: {},
      environment: { WEB_HOST: 'shop.example.org', HOME: '/root', UNRELATED_TOKEN: 'not-used-here' },
    });
    expect(result?.secretValueNames).toEqual(['WEB_HOST']);
    expect(result?.secretValues).toEqual(['shop.example.org']);
  });
});
