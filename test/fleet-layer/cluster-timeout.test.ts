// The rollout's time limit bounds a cluster as a whole: every instance gets what is left of
// the cluster's time (one deadline, started when the cluster's apply starts), so that
// `--timeout` is not multiplied by the number of instances; the error names the objects
// that were not ready.
import { describe, expect, inject, it } from 'vitest';
import { markReady } from '../fleet/readiness.js';
import { clusterClient, testNamespace } from '../fleet/test-context.js';
import { fleetLayerCli, type FleetLayerRun } from './fleet-layer-cli.js';

const timeoutMs = 6_000;
const cluster = 'fleet-3';

async function twoNamespaces(prefix: string): Promise<FleetLayerRun> {
  const [a, b] = await Promise.all([testNamespace(cluster, `${prefix}-a`), testNamespace(cluster, `${prefix}-b`)]);
  return { kubeconfigPath: inject('fleet').kubeconfigPath, runtime: 'runtime-fleet-3.cue', namespaces: [a.name, b.name] };
}

describe('rollout time limit per cluster', () => {
  it('fails the cluster within about the timeout when no Deployment becomes ready, naming it', async () => {
    const run = await twoNamespaces('never');
    const result = await fleetLayerCli('apply', run, '--timeout', `${timeoutMs / 1000}s`);
    expect(result.code, result.stderr).toBe(1);
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
    expect(result.code, result.stderr).toBe(1);
    const entry = result.changeSet.clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.error?.instance).toBe('second');
    expect(entry.error?.step).toBe('wait');
    expect(entry.error?.message).toContain(`timeout (time limit ${timeoutMs} ms)`);
    expect(entry.error?.message).toMatch(new RegExp(`Deployment/${run.namespaces[1]}/second status: 'InProgress'`));
    expect(entry.durationMs).toBeGreaterThanOrEqual(timeoutMs - 500);
    expect(entry.durationMs).toBeLessThan(timeoutMs * 1.3);
    const firstDeployment = entry.instances[0]?.changes.find((c) => c.kind === 'Deployment');
    expect(firstDeployment?.readiness?.status).toBe('Current');
  });
});
