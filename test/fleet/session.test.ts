// One cluster's session and builds: the Kubernetes version modules are built with, as
// Timoni passes it (without the `v` and any build suffix), and a built instance in the
// shape the Kubernetes engine applies (the module's repository and annotations only when
// known). A bundle error found once before any cluster is reached. Connecting and building
// against real clusters: plan.test.ts and rollout.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSourceFiles, type Runtime } from '../../src/bundle/index.js';
import { loadCueEngine } from '../../src/cue/index.js';
import { defaultFleetOptions, type FleetRun } from '../../src/fleet/fleet-run.js';
import {
  connectCluster,
  instanceInput,
  moduleInfo,
  moduleKubeVersion,
  type ClusterInstanceBuild,
} from '../../src/fleet/session.js';
import { loadKubeconfig } from '../../src/kube/connect/kubeconfig.js';
import type { ModuleResolver } from '../../src/module/source.js';
import { SecretRegistry } from '../../src/secrets.js';

describe('moduleKubeVersion', () => {
  it('keeps major.minor.patch of the server version', () => {
    expect(moduleKubeVersion('v1.36.3')).toBe('1.36.3');
    expect(moduleKubeVersion('v1.36.3+k3s1')).toBe('1.36.3');
    expect(moduleKubeVersion('1.30.0-eks-abc')).toBe('1.30.0');
  });

  it('drops only the v of a version it cannot read', () => {
    expect(moduleKubeVersion('v1.36')).toBe('1.36');
  });
});

describe('instanceInput', () => {
  const build = (module: Partial<ClusterInstanceBuild['module']>): ClusterInstanceBuild => ({
    name: 'web',
    namespace: 'apps',
    module: {
      url: 'oci://registry.example/modules/web',
      version: '1.2.3',
      digest: 'sha256:abc',
      name: 'example.com/web',
      files: {},
      root: '/modules/web',
      ...module,
    },
    built: { sets: [], images: ['nginx:1.27'], valuesSource: 'values: replicas: 2', values: '{\n\treplicas: 2\n}' },
  });

  it('names the bundle, the instance and its module', () => {
    const input = instanceInput('apps', build({}));
    // The instance record stores the evaluated values (as Timoni does), not the merged values.cue.
    expect(input).toMatchObject({
      bundle: 'apps',
      name: 'web',
      namespace: 'apps',
      valuesSource: '{\n\treplicas: 2\n}',
      images: ['nginx:1.27'],
    });
    expect(input.module).toEqual({
      url: 'oci://registry.example/modules/web',
      version: '1.2.3',
      digest: 'sha256:abc',
      name: 'example.com/web',
    });
    expect(moduleInfo(build({}))).toEqual({
      url: 'oci://registry.example/modules/web',
      version: '1.2.3',
      digest: 'sha256:abc',
    });
  });

  it('carries the repository and annotations when the module has them', () => {
    const input = instanceInput(
      'apps',
      build({
        repository: 'registry.example/modules/web',
        annotations: { 'org.opencontainers.image.source': 'https://example.com' },
      }),
    );
    expect(input.module.repository).toBe('registry.example/modules/web');
    expect(input.module.annotations).toEqual({ 'org.opencontainers.image.source': 'https://example.com' });
  });
});

describe('connectCluster with a bundle error', () => {
  it('tells the bundle error once, before any cluster, and fails every cluster with step bundle without reaching it', async () => {
    const engine = await loadCueEngine();
    const dir = mkdtempSync(join(tmpdir(), 'session-bundle-'));
    writeFileSync(
      join(dir, 'bundle.cue'),
      'bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "b"\n\tinstaces: web: {module: url: "oci://example.com/m", namespace: "apps", values: {}}\n}\n',
    );
    const secrets = new SecretRegistry();
    // A server nothing listens on: reaching it would fail the cluster at `connect` instead.
    const kubeconfig = loadKubeconfig(
      [
        'apiVersion: v1\nclusters: [{name: dead, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: a, context: {cluster: dead, user: u}}, {name: b, context: {cluster: dead, user: u}}]\n',
      ],
      secrets,
    );
    const runtime: Runtime = {
      name: 'r',
      isDefault: false,
      queries: [],
      clusters: [
        { name: 'one', group: 'g', kubeContext: 'a' },
        { name: 'two', group: 'g', kubeContext: 'b' },
      ],
    };
    const lines: string[] = [];
    const told: Array<[string, unknown]> = [];
    const run: FleetRun = {
      engine,
      evaluation: { bundleFiles: readSourceFiles(['bundle.cue'], dir), moduleFiles: {}, runtime },
      selector: {},
      kubeconfig,
      secrets,
      resolver: {} as ModuleResolver, // never asked: nothing is built
      options: defaultFleetOptions,
      log: { line: (text) => lines.push(text), startGroup: () => undefined, endGroup: () => undefined },
      onClusterError: (cluster, error) => told.push([cluster, error]),
    };
    const outcomes = await Promise.all(
      runtime.clusters.map((cluster) =>
        connectCluster(run, cluster, (text) => lines.push(`[${cluster.name}] ${text}`), Date.now()),
      ),
    );
    for (const outcome of outcomes) {
      expect('failed' in outcome && outcome.failed.error).toEqual({
        step: 'bundle',
        message: 'the bundle is not valid (bundle.cue), whatever the cluster',
      });
    }
    expect(lines).toEqual([
      '✗ the bundle is not valid (bundle.cue), whatever the cluster:\n  bundle.cue:4:2: bundle.instaces: field not allowed: a bundle has the fields apiVersion, name and instances',
    ]);
    expect(told).toHaveLength(1);
    expect(told[0]?.[0]).toBe('');
  });
});
