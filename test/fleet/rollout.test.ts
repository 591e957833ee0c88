// The rollout on real clusters, through the CLI on this folder's fixtures.
//
// Its time limit bounds a cluster as a whole: every instance gets what is left of the
// cluster's time (one deadline, started when the cluster's apply starts), so that
// `--timeout` is not multiplied by the number of instances; the error names the objects
// that were not ready.
//
// A cluster whose kube-apiserver stops in the middle of a rollout: the apply fails with an
// error that names the cluster, the instance and what could not be reached, and once the
// apiserver is back the next apply completes the work (both instances applied, then a diff
// finds nothing to change). That cluster is a fleet of its own, so that the outage reaches
// no other test.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiserver, stopApiserver } from '../harness/fleet/apiserver-outage.js';
import { fleetClient, startFleet, type Fleet } from '../harness/fleet/fleet.js';
import type { KubeClient } from '../harness/fleet/kube-client.js';
import { createNamespace } from '../harness/fleet/namespace.js';
import { keepReady, markReady } from '../harness/fleet/readiness.js';
import { clusterClient, scratchDir, testNamespace } from '../harness/fleet/test-context.js';
import { fleetLayerCli, type FleetLayerRun } from './fleet-layer-cli.js';

describe('rollout time limit per cluster', () => {
  const timeoutMs = 6_000;
  const cluster = 'fleet-3';

  async function twoNamespaces(prefix: string): Promise<FleetLayerRun> {
    const [a, b] = await Promise.all([testNamespace(cluster, `${prefix}-a`), testNamespace(cluster, `${prefix}-b`)]);
    return {
      kubeconfigPath: inject('fleet').kubeconfigPath,
      runtime: 'runtime-fleet-3.cue',
      namespaces: [a.name, b.name],
    };
  }

  it('fails the cluster within about the timeout when no Deployment becomes ready, naming it', async () => {
    const run = await twoNamespaces('never');
    const result = await fleetLayerCli('apply', run, '--timeout', `${timeoutMs / 1000}s`);
    expect(result.code, result.stderr).toBe(2);
    const entry = result.changeSet.clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.error?.step).toBe('wait');
    expect(entry.error?.instance).toBe('first');
    expect(entry.error?.message).toContain(`cluster third: instance ${run.namespaces[0]}/first: wait failed`);
    expect(entry.error?.message).toMatch(new RegExp(`Deployment/${run.namespaces[0]}/first status: 'InProgress'`));
    expect(entry.durationMs).toBeGreaterThanOrEqual(timeoutMs - 500);
    expect(entry.durationMs).toBeLessThan(timeoutMs * 1.4);
    // The second instance was never started: the first one's failure ends the cluster.
    expect(entry.instances.map((i) => i.name)).toEqual(['first']);
  });

  it('gives the second instance only what the first one left of the time limit', async () => {
    const run = await twoNamespaces('late');
    // The first instance becomes ready after 60% of the time limit; the second never does.
    // With a time limit per instance the cluster would fail after about 1.6 times it.
    const readyAfterMs = timeoutMs * 0.6;
    const first = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: run.namespaces[0], name: 'first' };
    const marked = new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        markReady(clusterClient(cluster), first).then(() => resolve(), reject);
      }, readyAfterMs);
    });
    const result = await fleetLayerCli('apply', run, '--timeout', `${timeoutMs / 1000}s`);
    await marked;
    expect(result.code, result.stderr).toBe(2);
    const entry = result.changeSet.clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.error?.instance).toBe('second');
    expect(entry.error?.step).toBe('wait');
    expect(entry.error?.message).toContain(`timeout (time limit ${timeoutMs / 1000}s)`);
    expect(entry.error?.message).toMatch(new RegExp(`Deployment/${run.namespaces[1]}/second status: 'InProgress'`));
    expect(entry.durationMs).toBeGreaterThanOrEqual(timeoutMs - 500);
    expect(entry.durationMs).toBeLessThan(timeoutMs * 1.3);
    const firstDeployment = entry.instances[0]?.changes.find((c) => c.kind === 'Deployment');
    expect(firstDeployment?.readiness?.status).toBe('Current');
  });
});

describe('kube-apiserver stopped in the middle of an apply', () => {
  let fleet: Fleet;
  let client: KubeClient;
  let run: FleetLayerRun;

  beforeAll(async () => {
    // Cluster `outage-1`, as fixtures/runtime-outage.cue names its context.
    fleet = await startFleet({ clusters: 1, dir: scratchDir('outage'), namePrefix: 'outage' });
    client = fleetClient(fleet, 'outage-1');
    const [a, b] = await Promise.all([
      createNamespace(client, { prefix: 'outage-a' }),
      createNamespace(client, { prefix: 'outage-b' }),
    ]);
    run = { kubeconfigPath: fleet.kubeconfigPath, runtime: 'runtime-outage.cue', namespaces: [a.name, b.name] };
  });

  afterAll(async () => {
    client?.close();
    await fleet?.stop();
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function waitUntilExists(
    ref: { apiVersion: string; kind: string; namespace: string; name: string },
    timeoutMs: number,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await client.getOrNull(ref))) {
      if (Date.now() > deadline)
        throw new Error(`${ref.kind}/${ref.namespace}/${ref.name} did not appear within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** With the apiserver back and every workload kept ready, apply completes both instances and a diff then finds nothing. */
  async function expectNextApplyCompletes(run: FleetLayerRun): Promise<void> {
    const ready = run.namespaces.map((namespace) => keepReady(client, namespace, 200));
    try {
      const applied = await fleetLayerCli('apply', run, '--timeout', '60s');
      expect(applied.code, applied.stderr).toBe(0);
      const done = applied.changeSet.clusters[0]!;
      expect(done.status).toBe('applied');
      // The bundle's two instances; an earlier test's instances of the same bundle, in other
      // namespaces, are removed from it now (deleted, listed after them as `removed`).
      const listed = done.instances.filter((i) => !i.removed);
      expect(listed.map((i) => i.name)).toEqual(['first', 'second']);
      for (const instance of listed) {
        expect(instance.changes.find((c) => c.kind === 'Deployment')?.readiness?.status).toBe('Current');
      }
      for (const [index, name] of ['first', 'second'].entries()) {
        const record = await client.getOrNull({
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: run.namespaces[index]!,
          name: `timoni.${name}`,
        });
        expect(record, `inventory of ${name}`).not.toBeNull();
        expect((record as { data?: Record<string, string> }).data?.pending).toBeUndefined();
      }
      const diff = await fleetLayerCli('diff', run);
      expect(diff.code, diff.stderr).toBe(0);
    } finally {
      await Promise.all(ready.map((loop) => loop.stop()));
    }
  }

  it('fails the cluster with a clear error, and the next apply completes the work', async () => {
    const timeoutMs = 10_000;
    const applying = fleetLayerCli('apply', run, '--timeout', `${timeoutMs / 1000}s`);
    // The first instance's objects are applied and it waits for its Deployment, which
    // nothing makes ready: stop the apiserver now.
    await waitUntilExists(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: run.namespaces[0], name: 'first' },
      60_000,
    );
    await stopApiserver(fleet.dir, 'outage-1');
    const failed = await applying;

    expect(failed.code, failed.stderr).toBe(2);
    const entry = failed.changeSet.clusters[0]!;
    expect(entry.name).toBe('flaky');
    expect(entry.status).toBe('failed');
    expect(entry.error?.instance).toBe('first');
    expect(entry.error?.message).toMatch(/^cluster flaky: instance outage-a-[a-z0-9]+\/first: /);
    expect(entry.error?.message).toMatch(
      /cannot reach the API server at https:\/\/127\.0\.0\.1:\d+: connection refused|apiserver is shutting down/,
    );
    expect(failed.stderr).toContain('✗ cluster flaky:');
    expect(entry.durationMs).toBeLessThan(timeoutMs * 2);

    await startApiserver(fleet.dir, 'outage-1');
    await expectNextApplyCompletes(run);
  });

  it('after the first instance is done and the second one started: the error names the second, the next apply completes it', async () => {
    const [a, b] = await Promise.all([
      createNamespace(client, { prefix: 'outage-c' }),
      createNamespace(client, { prefix: 'outage-d' }),
    ]);
    const later: FleetLayerRun = { ...run, namespaces: [a.name, b.name] };
    // The first instance becomes ready; the second one's objects never do.
    const firstReady = keepReady(client, a.name, 100);
    let failed: Awaited<ReturnType<typeof fleetLayerCli>>;
    try {
      const applying = fleetLayerCli('apply', later, '--timeout', '10s');
      await waitUntilExists({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: b.name, name: 'second' }, 60_000);
      await stopApiserver(fleet.dir, 'outage-1');
      failed = await applying;
    } finally {
      await firstReady.stop().catch(() => undefined);
    }

    expect(failed.code, failed.stderr).toBe(2);
    const entry = failed.changeSet.clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.instances.map((i) => i.name)).toEqual(['first', 'second']);
    expect(entry.error?.instance).toBe('second');
    expect(entry.error?.message).toMatch(
      new RegExp(`^cluster flaky: instance ${b.name}/second: (apply|wait|inventory|prune) failed`),
    );
    // Depending on the moment: refused connections, or the apiserver answering while it shuts down.
    expect(entry.error?.message).toMatch(/cannot reach the API server|apiserver is shutting down/);

    await startApiserver(fleet.dir, 'outage-1');
    await expectNextApplyCompletes(later);
  });
});
