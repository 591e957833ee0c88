// Cluster selection, and the bundle evaluated for each selected cluster with its runtime
// values: value queries answered by given objects (a later layer reads them from
// clusters), the environment, and which of those values are secret.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bundleErrorWithoutCluster,
  evaluateForClusters,
  loadRuntime,
  NoClusterMatchesError,
  readSourceFiles,
  selectClusters,
  type Runtime,
} from '../../src/bundle/index.js';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import { SecretRegistry } from '../../src/secrets.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
let engine: CueEngine;
beforeAll(async () => {
  engine = await loadCueEngine();
});

const runtime: Runtime = {
  name: 'fleet',
  isDefault: false,
  queries: [],
  clusters: [
    { name: 'preview-eu-1', group: 'staging', kubeContext: 'eks-eu-west-2' },
    { name: 'preview-us-1', group: 'staging', kubeContext: 'eks-us-west-2' },
    { name: 'prod-eu-1', group: 'production', kubeContext: 'eks-eu-west-1' },
    { name: 'prod-us-1', group: 'production', kubeContext: 'eks-us-west-1' },
  ],
};

const names = (selected: { name: string }[]) => selected.map((c) => c.name);

describe('selectClusters', () => {
  it('keeps every cluster in runtime order for * and empty selectors', () => {
    expect(names(selectClusters(runtime, { cluster: '*', group: '*' }))).toEqual([
      'preview-eu-1',
      'preview-us-1',
      'prod-eu-1',
      'prod-us-1',
    ]);
    expect(names(selectClusters(runtime, { cluster: '', group: '' }))).toHaveLength(4);
    expect(names(selectClusters(runtime, {}))).toHaveLength(4);
  });

  it('selects a group case-insensitively, keeping order', () => {
    expect(names(selectClusters(runtime, { group: 'PRODUCTION' }))).toEqual(['prod-eu-1', 'prod-us-1']);
  });

  it('selects one cluster by name case-insensitively', () => {
    expect(names(selectClusters(runtime, { cluster: 'Preview-US-1' }))).toEqual(['preview-us-1']);
  });

  it('combines name and group', () => {
    expect(names(selectClusters(runtime, { cluster: 'prod-eu-1', group: 'production' }))).toEqual(['prod-eu-1']);
    expect(() => selectClusters(runtime, { cluster: 'prod-eu-1', group: 'staging' })).toThrow(NoClusterMatchesError);
  });

  it('names the selection and the known clusters when nothing matches', () => {
    expect(() => selectClusters(runtime, { group: 'qa' })).toThrow(/group "qa".*preview-eu-1 \(group staging\)/);
  });
});

const objects: Record<string, Record<string, unknown>> = {
  'k8s:v1:ConfigMap:infra:aws-info': {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'aws-info', namespace: 'infra' },
    data: { account_id: '1234567890', region: 'us-west-2' },
  },
  'k8s:v1:Secret:infra:redis-auth': {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'redis-auth', namespace: 'infra' },
    data: { password: Buffer.from('p4ss:w0rd').toString('base64') },
  },
  'k8s:v1:Namespace:default': {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default', uid: 'bc83fc97-3cb9-42ca-ae38-cc09501e01e3', generation: 7 },
  },
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
      evaluateForClusters(engine, {
        bundleFiles: readSourceFiles(['queries/bundle.cue'], fixtures),
        moduleFiles: {},
        runtime,
        selector: {},
        readObject: async () => undefined,
      }),
    ).rejects.toThrow(/k8s:v1:ConfigMap:infra:aws-info.*not found in cluster prod-eu-1/);
  });

  it('are refused before anything is read when they read a Secret and a refusal is set', async () => {
    const runtime = loadRuntime(engine, readSourceFiles(['queries/runtime.cue'], fixtures), {}, '');
    const asked: string[] = [];
    const evaluation = evaluateForClusters(engine, {
      bundleFiles: readSourceFiles(['queries/bundle.cue'], fixtures),
      moduleFiles: {},
      runtime,
      selector: {},
      secretQueryRefusal: 'reads a Secret, which is refused here',
      readObject: async (_cluster, query) => {
        asked.push(query.query);
        return objects[query.query];
      },
    });
    await expect(evaluation).rejects.toThrow(/k8s:v1:Secret:infra:redis-auth": reads a Secret, which is refused here/);
    expect(asked).toEqual(['k8s:v1:ConfigMap:infra:aws-info']);
  });
});

describe('secret runtime values', () => {
  it('leave an environment value that is no credential unmasked (a host name)', async () => {
    const [result] = await evaluateForClusters(engine, {
      bundleFiles: readSourceFiles(['defaults/bundle.cue'], fixtures),
      moduleFiles: {},
      runtime: loadRuntime(engine, [], {}, ''),
      selector: {},
      environment: { WEB_HOST: 'shop.example.org', HOME: '/root', UNRELATED_TOKEN: 'not-used-here' },
    });
    expect(result?.bundle.instances[0]?.values).toMatchObject({ host: 'shop.example.org' });
    expect(result?.secretValueNames).toEqual([]);
    expect(result?.secretValues).toEqual([]);
  });

  it('mask a credential from the environment that an attribute uses and a value from a cluster Secret, never a registry host from the environment', async () => {
    const redisAuth = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'redis-auth', namespace: 'apps' },
      data: { password: Buffer.from('p4ss:w0rd').toString('base64') },
    };
    const [result] = await evaluateForClusters(engine, {
      bundleFiles: readSourceFiles(['env-registry/bundle.cue'], fixtures),
      moduleFiles: {},
      runtime: loadRuntime(engine, readSourceFiles(['env-registry/runtime.cue'], fixtures), {}, ''),
      selector: {},
      // What the action offers with `runtime-env: DEMO_REGISTRY, SHOP_TOKEN` (or runtime-from-env).
      environment: {
        DEMO_REGISTRY: '127.0.0.1:5000',
        SHOP_TOKEN: 's3cr3t-shop-t0ken',
        HOME: '/root',
        UNRELATED_TOKEN: 'not-used-here',
      },
      readObject: async (_cluster, query) => (query.query === 'k8s:v1:Secret:apps:redis-auth' ? redisAuth : undefined),
    });
    expect(result?.secretValueNames).toEqual(['SHOP_TOKEN', 'REDIS_PASS']);
    expect(result?.secretValues).toEqual(['s3cr3t-shop-t0ken', 'p4ss:w0rd']);
    expect(result?.clusterSecretValues).toEqual(['p4ss:w0rd']);

    // The run registers the secret values and masks every report with them (src/fleet).
    const secrets = new SecretRegistry();
    for (const value of result?.secretValues ?? []) secrets.register(value);
    const reported = secrets.redact(JSON.stringify(result?.value));
    expect(reported).toContain('"url":"oci://127.0.0.1:5000/modules/webapp"');
    expect(reported).toContain('"image":"127.0.0.1:5000/apps/webapp:1.4.0"');
    expect(reported).toContain('"token":"***"');
    expect(reported).toContain('"redisURL":"tcp://:***@redis.apps:6379"');
    expect(reported).not.toContain('s3cr3t-shop-t0ken');
    expect(reported).not.toContain('p4ss:w0rd');
  });
});

describe('bundleErrorWithoutCluster', () => {
  const bundleIn = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-check-'));
    writeFileSync(join(dir, 'bundle.cue'), text);
    return readSourceFiles(['bundle.cue'], dir);
  };
  const instance = `module: url: "oci://example.com/m"
		namespace: "apps"
		values: {}`;

  it('finds a misspelled field once, without any cluster, in plain words', async () => {
    const bundleFiles = bundleIn(
      `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "b"\n\tinstaces: web: {\n\t\t${instance}\n\t}\n}\n`,
    );
    const error = await bundleErrorWithoutCluster(engine, { bundleFiles, moduleFiles: {}, runtime, selector: {} });
    expect(error?.message).toBe(
      'the bundle is not valid (bundle.cue), whatever the cluster:\n  bundle.cue:4:2: bundle.instaces: field not allowed: a bundle has the fields apiVersion, name and instances',
    );
  });

  it("leaves what a cluster's values decide to each cluster: a runtime value not given yet is no error", async () => {
    const bundleFiles = bundleIn(
      `bundle: {\n\t_g: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)\n\tapiVersion: "v1alpha1"\n\tname: "b"\n\tinstances: web: {\n\t\t${instance}\n\t\tif _g == "staging" {values: replicas: 1}\n\t}\n}\n`,
    );
    expect(
      await bundleErrorWithoutCluster(engine, { bundleFiles, moduleFiles: {}, runtime, selector: {} }),
    ).toBeUndefined();
  });

  it('a default that only fails while no cluster gave its value is no bundle error (confirmed on the first cluster)', async () => {
    // Without a cluster, _g is "none" and the name is invalid; every cluster gives its group.
    const bundleFiles = bundleIn(
      `bundle: {\n\t_g: *"none!" | string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)\n\tapiVersion: "v1alpha1"\n\tname: _g\n\tinstances: web: {\n\t\t${instance}\n\t}\n}\n`,
    );
    expect(
      await bundleErrorWithoutCluster(engine, { bundleFiles, moduleFiles: {}, runtime, selector: {} }),
    ).toBeUndefined();
  });
});
