// `--on-failure rollback` (src/fleet/rollback.ts) through the CLI on the local fleet, with
// `--strategy waves`: two staging clusters (one wave), then production. When one staging
// cluster fails, the other one, applied in the same wave, is put back too (its entry names
// the cluster that failed), and production is not reached. Instances the run installed are
// deleted; an instance of a local module (file://, no digest) cannot be restored, and the
// rollback says so (`rollback failed`, with the instance). An upgrade is restored from the
// registry by digest, after an apply error and after a readiness wait that ran out at the
// cluster's time limit. The end-to-end test through the action is test/e2e/rollback.test.ts.
import { join } from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { decodeHistorySecret } from '../../src/kube/instance/history-store.js';
import { keepReady, neverReadyAnnotation, type ReadinessLoop } from '../harness/fleet/readiness.js';
import { clusterClient, testNamespace } from '../harness/fleet/test-context.js';
import { pushTimoniModule, startRegistry } from '../harness/registry/index.js';
import { repositoryRoot } from '../harness/support/go-binary.js';
import { runCliCaptured, type CliResult } from '../cli/run-cli.js';
import { fixtures } from './fleet-layer-cli.js';

/** A namespace of the same name on every cluster of the fleet, deleted when the test ends. */
async function namespaceEverywhere(prefix: string): Promise<string> {
  const namespace = await testNamespace(0, prefix);
  for (const cluster of [1, 2]) {
    const client = clusterClient(cluster);
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace.name, labels: { 'timoni-fleet.test/namespace': 'true' } },
      },
      { fieldManager: 'fleet-test-namespace' },
    );
    onTestFinished(async () => {
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace.name });
    });
  }
  return namespace.name;
}

async function apply(namespaces: [string, string], ...extra: string[]): Promise<CliResult & { changeSet: ChangeSet }> {
  const result = await runCliCaptured(
    [
      'apply',
      '-f',
      'waves-bundle.cue',
      '-r',
      'runtime-waves.cue',
      '--kubeconfig',
      inject('fleet').kubeconfigPath,
      '--runtime-from-env',
      '--prune-removed-instances=false',
      '--strategy',
      'waves',
      '--timeout',
      '20s',
      '-o',
      'json',
      ...extra,
    ],
    { cwd: fixtures, env: { FLEET_WAVES_NS_A: namespaces[0], FLEET_WAVES_NS_B: namespaces[1] } },
  );
  try {
    return { ...result, changeSet: JSON.parse(result.stdout) as ChangeSet };
  } catch {
    throw new Error(
      `timoni-fleet apply printed no ChangeSet (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

function keepNamespacesReady(namespaces: string[]): void {
  const loops: ReadinessLoop[] = [];
  for (const cluster of [0, 1, 2])
    for (const namespace of namespaces) loops.push(keepReady(clusterClient(cluster), namespace, 100));
  onTestFinished(async () => {
    await Promise.all(loops.map((loop) => loop.stop()));
  });
}

const deployment = (namespace: string, name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace,
  name,
});
const record = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name: `timoni.${name}`,
});

describe('on-failure rollback on the local fleet', () => {
  it('deletes what the run installed on the failed cluster and on the other cluster of its wave; production is not reached', async () => {
    const namespaces: [string, string] = [
      await namespaceEverywhere('rollback-a'),
      await namespaceEverywhere('rollback-b'),
    ];
    // On stage-b (fleet-2) the first instance's ConfigMap exists already, immutable and another's: its apply is refused.
    await clusterClient(1).apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'first', namespace: namespaces[0] },
        immutable: true,
        data: { message: 'set by someone else' },
      },
      { fieldManager: 'someone-else' },
    );
    keepNamespacesReady(namespaces);
    const result = await apply(namespaces, '--on-failure', 'rollback');
    expect(result.code, result.stderr).toBe(2);
    const [stageA, stageB] = result.changeSet.clusters;
    expect(result.changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['stage-a', 'applied'],
      ['stage-b', 'failed'],
      ['prod', 'skipped'],
    ]);
    expect(stageB?.rollback).toEqual({ outcome: 'rolled back' });
    expect(stageB?.instances.map((i) => [i.name, i.rollback?.action])).toEqual([['first', 'deleted']]);
    expect(stageA?.rollback).toEqual({ outcome: 'rolled back', wave: { failed: 'stage-b' } });
    expect(stageA?.instances.map((i) => [i.name, i.rollback?.action])).toEqual([
      ['first', 'deleted'],
      ['second', 'deleted'],
    ]);
    for (const [cluster, instances] of [
      [0, ['first', 'second']],
      [1, ['first']],
    ] as const) {
      for (const name of instances) {
        const namespace = name === 'first' ? namespaces[0] : namespaces[1];
        expect(await clusterClient(cluster).getOrNull(deployment(namespace, name)), `${name} on ${cluster}`).toBeNull();
        expect(await clusterClient(cluster).getOrNull(record(namespace, name))).toBeNull();
      }
    }
    // The ConfigMap that was someone else's stays.
    expect(
      await clusterClient(1).getOrNull({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: namespaces[0],
        name: 'first',
      }),
    ).not.toBeNull();
    expect(result.stderr).toContain('rolling back cluster stage-a (cluster stage-b of its wave failed)');
    expect(result.stderr).toMatch(/c:stage-a > i:second > rolled back: installed by this run, deleted/);
  });

  it('says which instance could not be put back: a local module keeps no previous version', async () => {
    const namespaces: [string, string] = [
      await namespaceEverywhere('rollback-local-a'),
      await namespaceEverywhere('rollback-local-b'),
    ];
    keepNamespacesReady(namespaces);
    const first = await apply(namespaces);
    expect(first.code, first.stderr).toBe(0);
    // The first instance's Deployment on stage-b stops being ready (a marker the fleet's kubelet stand-in follows).
    await clusterClient(1).apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'first', namespace: namespaces[0], annotations: { [neverReadyAnnotation]: 'true' } },
      },
      { fieldManager: 'someone-else' },
    );
    const result = await apply(namespaces, '--on-failure', 'rollback', '--max-parallel', '1');
    expect(result.code, result.stderr).toBe(2);
    const stageB = result.changeSet.clusters[1];
    expect(stageB?.status).toBe('failed');
    expect(stageB?.error?.step).toBe('wait');
    expect(stageB?.rollback?.outcome).toBe('rollback failed');
    expect(stageB?.rollback?.error?.instance).toBe('first');
    expect(stageB?.rollback?.error?.message).toMatch(
      /is local \(no digest\): its previous files cannot be fetched again/,
    );
    expect(result.stderr).toMatch(/c:stage-b > i:first > rollback failed: /);
    // Its record is the one the run wrote: nothing was restored.
    expect(await clusterClient(1).getOrNull(record(namespaces[0], 'first'))).not.toBeNull();
  });

  it('restores an upgraded instance from the registry by digest with its previous values, and its record byte for byte', async () => {
    const namespace = await namespaceEverywhere('rollback-restore');
    keepNamespacesReady([namespace]);
    const registry = await startRegistry({ auth: 'anonymous' });
    onTestFinished(() => registry.stop());
    await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/webapp',
      tag: '1.4.0',
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    });
    const applyRestore = (env: Record<string, string>, ...extra: string[]) =>
      runCliCaptured(
        [
          'apply',
          '-f',
          'rollback-bundle.cue',
          '-r',
          'runtime-waves.cue',
          '--runtime-cluster',
          'stage-a',
          '--kubeconfig',
          inject('fleet').kubeconfigPath,
          '--runtime-from-env',
          '--timeout',
          '20s',
          '-o',
          'json',
          ...extra,
        ],
        { cwd: fixtures, env: { FLEET_ROLLBACK_REGISTRY: registry.host, FLEET_ROLLBACK_NS: namespace, ...env } },
      );
    const first = await applyRestore({ FLEET_ROLLBACK_MESSAGE: 'before' });
    expect(first.code, first.stderr).toBe(0);
    const client = clusterClient(0);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web' };
    const recordBefore = await client.get(record(namespace, 'web'));
    const deploymentBefore = await client.get(deployment(namespace, 'web'));

    // The new values change the ConfigMap, and add an Ingress whose host the API server refuses.
    const result = await applyRestore(
      { FLEET_ROLLBACK_MESSAGE: 'after', FLEET_ROLLBACK_HOST: 'Not_A_Host!' },
      '--on-failure',
      'rollback',
    );
    expect(result.code, result.stderr).toBe(2);
    const changeSet = JSON.parse(result.stdout) as ChangeSet;
    const [stageA] = changeSet.clusters;
    expect(stageA?.status).toBe('failed');
    expect(stageA?.error?.object).toBe(`Ingress/${namespace}/web`);
    expect(stageA?.instances[0]?.changes.find((c) => c.kind === 'ConfigMap')?.action).toBe('configured');
    expect(stageA?.rollback).toEqual({ outcome: 'rolled back' });
    expect(stageA?.instances[0]?.rollback?.action).toBe('restored');
    expect(stageA?.instances[0]?.rollback?.module?.digest).toMatch(/^sha256:/);
    expect(stageA?.instances[0]?.rollback?.changes.find((c) => c.kind === 'ConfigMap')?.action).toBe('configured');
    // The previous values are live again, and Timoni's record is the one before, byte for byte.
    expect(((await client.get(configMap)).data as Record<string, string>).message).toBe('before');
    const recordAfter = await client.get(record(namespace, 'web'));
    expect(recordAfter.data).toEqual(recordBefore.data);
    expect(recordAfter.metadata.labels).toEqual(recordBefore.metadata.labels);
    expect(recordAfter.type).toBe(recordBefore.type);
    expect((await client.get(deployment(namespace, 'web'))).spec).toEqual(deploymentBefore.spec);
    expect(
      await client.getOrNull({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace, name: 'web' }),
    ).toBeNull();
    // The failed revision never reached the history: its one revision is the record put back, current again.
    const entries = decodeHistorySecret(
      await client.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'timoni-fleet-history.web' }),
    );
    expect(entries.map((e) => [e.revision, e.rollbackTo])).toEqual([[1, undefined]]);
    expect(entries[0]!.record).toBe(
      Buffer.from(String((recordAfter.data as Record<string, string>).instance), 'base64').toString('utf8'),
    );
  });

  it("rolls back a cluster whose readiness wait ran out at the cluster's time limit", async () => {
    const namespace = await namespaceEverywhere('rollback-deadline');
    const registry = await startRegistry({ auth: 'anonymous' });
    onTestFinished(() => registry.stop());
    await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/webapp',
      tag: '1.4.0',
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    });
    const applyOne = (tag: string, ...extra: string[]) =>
      runCliCaptured(
        [
          'apply',
          '-f',
          'rollback-bundle.cue',
          '-r',
          'runtime-waves.cue',
          '--runtime-cluster',
          'stage-a',
          '--kubeconfig',
          inject('fleet').kubeconfigPath,
          '--runtime-from-env',
          '--timeout',
          '6s',
          '-o',
          'json',
          ...extra,
        ],
        {
          cwd: fixtures,
          env: {
            FLEET_ROLLBACK_REGISTRY: registry.host,
            FLEET_ROLLBACK_NS: namespace,
            FLEET_ROLLBACK_MESSAGE: 'hello',
            FLEET_ROLLBACK_TAG: tag,
          },
        },
      );
    const client = clusterClient(0);
    let loop: ReadinessLoop | undefined = keepReady(client, namespace, 100);
    onTestFinished(async () => {
      await loop?.stop();
    });
    const first = await applyOne('1.4.0');
    expect(first.code, first.stderr).toBe(0);
    const deploymentBefore = await client.get(deployment(namespace, 'web'));
    const recordBefore = await client.get(record(namespace, 'web'));
    // No kubelet stand-in while the new revision waits: its time limit (6 s) runs out; the
    // stand-in is back before the rollback's own wait ends.
    await loop.stop();
    loop = undefined;
    const restart = setTimeout(() => {
      loop = keepReady(client, namespace, 100);
    }, 7_000);
    onTestFinished(() => clearTimeout(restart));
    // The new image tag changes the Deployment's pod template: it waits for a rollout no one makes.
    const result = await applyOne('1.5.0', '--on-failure', 'rollback');
    expect(result.code, result.stderr).toBe(2);
    const [stageA] = (JSON.parse(result.stdout) as ChangeSet).clusters;
    expect(stageA?.error?.step).toBe('wait');
    expect(stageA?.error?.message).toMatch(/time limit 6s/);
    expect(stageA?.rollback).toEqual({ outcome: 'rolled back' });
    expect(stageA?.instances[0]?.rollback?.action).toBe('restored');
    expect(stageA?.instances[0]?.rollback?.changes.find((c) => c.kind === 'Deployment')?.readiness?.status).toBe(
      'Current',
    );
    expect((await client.get(record(namespace, 'web'))).data).toEqual(recordBefore.data);
    expect((await client.get(deployment(namespace, 'web'))).spec).toEqual(deploymentBefore.spec);
  });
});
