// Waiting for an instance's objects on the fleet, where workloads only become ready when a
// test marks them so (no kubelets).
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { InstanceStepError } from '../../../src/kube/instance/instance.js';
import { readInstance } from '../../../src/kube/instance/inventory-store.js';
import { waitForReady, WaitError } from '../../../src/kube/status/wait.js';
import { keepReady } from '../../harness/fleet/readiness.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { actions, built, configMap, deployment, engineFleet, job, service } from '../support.js';

const CLUSTER = 2;

describe('readiness', () => {
  it('times out on a Deployment never ready, naming it and why; wait-disabled objects are not waited for', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-timeout')).name;
    const objects = [
      configMap(ns, 'settings', {}),
      deployment(ns, 'web'),
      deployment(ns, 'sidecar', 'nginx:1.27', { 'action.timoni.sh/wait': 'disabled' }),
    ];
    const started = Date.now();

    const error = await applyInstance(cluster, built(ns, objects), { wait: true, timeoutMs: 2_500 }).catch(
      (e: unknown) => e,
    );

    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    expect(error).toBeInstanceOf(InstanceStepError);
    const stepError = error as InstanceStepError;
    expect(stepError.step).toBe('wait');
    expect(stepError.object).toBe(`Deployment/${ns}/web`);
    expect(stepError.message).toContain(
      `timeout (time limit 2.5s) waiting for 1 object(s) to be ready: Deployment/${ns}/web status: 'InProgress': Replicas: 0/1`,
    );
    expect(stepError.message).not.toContain('sidecar');
    expect(stepError.cause).toBeInstanceOf(WaitError);
    expect((stepError.cause as WaitError).notReady.map((r) => r.object.name)).toEqual(['web']);
    // Everything was applied before the wait.
    expect(actions(stepError.changes)).toEqual([
      'ConfigMap/settings created',
      'Deployment/sidecar created',
      'Deployment/web created',
    ]);
    // The record written at install stays (a later delete finds every object); images come with the final write only.
    const stored = await readInstance(cluster, 'web', ns);
    expect(stored?.instance.inventory?.entries).toHaveLength(3);
    expect(stored?.instance.images).toBeUndefined();
  });

  it('still prunes after a readiness failure (as Timoni), and keeps the old record', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-timeout-prune')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'old', {}), configMap(ns, 'settings', {})]));

    const error = await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {}), deployment(ns, 'web')]), {
      wait: true,
      timeoutMs: 1_500,
    }).catch((e: unknown) => e);

    expect((error as InstanceStepError).step).toBe('wait');
    expect(actions((error as InstanceStepError).changes)).toEqual([
      'ConfigMap/settings unchanged',
      'Deployment/web created',
      'ConfigMap/old deleted',
    ]);
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'old' })).toBeNull();
    // The record is not promoted: the pending revision holds the new inventory.
    const stored = await readInstance(cluster, 'web', ns);
    expect(stored?.instance.inventory?.entries?.map((e) => e.id)).toEqual([
      `${ns}_old__ConfigMap`,
      `${ns}_settings__ConfigMap`,
    ]);
    expect(stored?.pending?.inventory?.entries?.map((e) => e.id)).toEqual([
      `${ns}_settings__ConfigMap`,
      `${ns}_web_apps_Deployment`,
    ]);
  });

  it('succeeds once the workloads become ready while it waits (Deployment available, Job complete)', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-ready')).name;
    const loop = keepReady(clusterClient(CLUSTER), ns, 300);
    try {
      const result = await applyInstance(
        cluster,
        built(ns, [deployment(ns, 'web'), service(ns, 'web'), job(ns, 'migrate', 'true')]),
        {
          wait: true,
          timeoutMs: 60_000,
        },
      );
      expect(actions(result.changes)).toEqual(['Service/web created', 'Deployment/web created', 'Job/migrate created']);
      expect(result.readiness.map((r) => `${r.object.kind}/${r.object.name} ${r.status}`)).toEqual([
        'Service/web Current',
        'Deployment/web Current',
        'Job/migrate Current',
      ]);
      expect(result.readiness.find((r) => r.object.kind === 'Job')?.message).toBe('Job Completed. succeeded: 1/1');
      expect((await readInstance(cluster, 'web', ns))?.instance.images).toEqual(['nginx:1.27']);
    } finally {
      await loop.stop();
    }
  });

  it('applies the sets in order, waiting for each; a set not ready stops the sets after it', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-sets')).name;
    const sets = [
      { name: 'app', objects: [deployment(ns, 'web'), configMap(ns, 'settings', {})] },
      { name: 'test', objects: [job(ns, 'smoke', 'true')] },
    ];

    const error = await applyInstance(cluster, built(ns, [], { sets }), { wait: true, timeoutMs: 1_500 }).catch(
      (e: unknown) => e,
    );
    expect((error as InstanceStepError).step).toBe('wait');
    expect(actions((error as InstanceStepError).changes)).toEqual([
      'ConfigMap/settings created',
      'Deployment/web created',
    ]);
    expect(await admin.getOrNull({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'smoke' })).toBeNull();

    const lines: string[] = [];
    const loop = keepReady(admin, ns, 200);
    try {
      const result = await applyInstance(cluster, built(ns, [], { sets }), {
        wait: true,
        timeoutMs: 60_000,
        log: (line) => lines.push(line),
      });
      expect(actions(result.changes)).toEqual([
        'ConfigMap/settings unchanged',
        'Deployment/web unchanged',
        'Job/smoke created',
      ]);
      expect(lines.filter((line) => /^applying|resources ready$/.test(line))).toEqual([
        'applying app',
        'app resources ready',
        'applying test',
        'test resources ready',
      ]);
      expect(result.record.inventory?.entries?.map((e) => e.id)).toEqual([
        `${ns}_settings__ConfigMap`,
        `${ns}_web_apps_Deployment`,
        `${ns}_smoke_batch_Job`,
      ]);
    } finally {
      await loop.stop();
    }
  });

  it('waitForReady stops when aborted, listing what was not ready', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-abort')).name;
    await applyInstance(cluster, built(ns, [deployment(ns, 'web')]));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 300);
    const error = await waitForReady(
      cluster,
      [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' }],
      { timeoutMs: 60_000, signal: controller.signal },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitError);
    expect((error as WaitError).reason).toBe('aborted');
    expect((error as WaitError).notReady.map((r) => r.status)).toEqual(['InProgress']);
    // The same Deployment annotated wait: disabled is not waited for at all.
    const notWaited = deployment(ns, 'web', 'nginx:1.27', { 'action.timoni.sh/wait': 'disabled' });
    expect(await waitForReady(cluster, [notWaited], { timeoutMs: 60_000 })).toEqual([]);
  });

  it('fails fast on a failed Job', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-failed')).name;
    await applyInstance(cluster, built(ns, [job(ns, 'migrate', 'false')]));
    const now = new Date().toISOString();
    await admin.patchStatus(
      { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' },
      {
        status: {
          startTime: now,
          failed: 1,
          conditions: [
            {
              type: 'FailureTarget',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
              lastTransitionTime: now,
              lastProbeTime: now,
            },
            {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
              lastTransitionTime: now,
              lastProbeTime: now,
            },
          ],
        },
      },
    );
    const started = Date.now();
    const error = await waitForReady(
      cluster,
      [{ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' }],
      { timeoutMs: 60_000 },
    ).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((error as WaitError).reason).toBe('failed');
    expect((error as Error).message).toContain(
      `Job/${ns}/migrate status: 'Failed': Job Failed. failed: 1/1 error: Job has reached the specified backoff limit`,
    );
  });
});
