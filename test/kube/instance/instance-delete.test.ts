// Delete of a bundle's instances on a real cluster.
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { deleteBundleInstances } from '../../../src/kube/instance/instance-delete.js';
import { bundleStatus } from '../../../src/kube/instance/instance-status.js';
import { InstanceStepError } from '../../../src/kube/instance/instance.js';
import { readInstance } from '../../../src/kube/instance/inventory-store.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { built, configMap, deployment, engineFleet, service } from '../support.js';

const CLUSTER = 0;

/** Instances are ordered by their Secret's creationTimestamp, which has a one-second resolution. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_100));

describe('instance delete', () => {
  it('deletes newest instance first, objects in reverse order, waits, then the instance Secret; keeps prune-disabled objects', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-delete')).name;
    const other = (await testNamespace(CLUSTER, 'lc-delete-2')).name;
    const bundle = `delete-${ns}`;
    await applyInstance(
      cluster,
      built(
        ns,
        [
          configMap(ns, 'settings', {}),
          service(ns, 'web'),
          deployment(ns, 'web'),
          configMap(ns, 'kept', {}, { 'action.timoni.sh/prune': 'disabled' }),
        ],
        { bundle },
      ),
    );
    await nextSecond();
    await applyInstance(cluster, built(other, [configMap(other, 'api', {})], { bundle, name: 'api' }));
    await applyInstance(cluster, built(ns, [configMap(ns, 'foreign', {})], { bundle: `${bundle}-x`, name: 'foreign' }));
    const lines: string[] = [];

    const deleted = await deleteBundleInstances(cluster, bundle, {
      timeoutMs: 30_000,
      log: (line) => lines.push(line),
    });

    expect(deleted.map((d) => `${d.namespace}/${d.name}`)).toEqual([`${other}/api`, `${ns}/web`]);
    expect(deleted[1]!.changes.map((c) => `${c.kind}/${c.name} ${c.action}`)).toEqual([
      'Deployment/web deleted',
      'Service/web deleted',
      'ConfigMap/settings deleted',
      'ConfigMap/kept skipped',
    ]);
    expect(lines[0]).toBe(`deleting instance api in namespace ${other}`);
    for (const ref of [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' },
      { apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'web' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: other, name: 'api' },
    ]) {
      expect(await admin.getOrNull(ref)).toBeNull();
    }
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'kept' })).not.toBeNull();
    expect(await readInstance(cluster, 'web', ns)).toBeNull();
    expect(await readInstance(cluster, 'api', other)).toBeNull();
    // Another bundle's instance is untouched.
    expect(await readInstance(cluster, 'foreign', ns)).not.toBeNull();
    expect(
      await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'foreign' }),
    ).not.toBeNull();
    expect(await deleteBundleInstances(cluster, bundle)).toEqual([]);
  });

  it('also deletes the objects of an unfinished upgrade (the pending revision)', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-delete-pending')).name;
    const bundle = `pending-${ns}`;
    await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {})], { bundle }));
    // The upgrade creates `extra`, then fails on an invalid Service: `extra` is only in data.pending.
    await expect(
      applyInstance(
        cluster,
        built(ns, [configMap(ns, 'settings', {}), configMap(ns, 'extra', {}), service(ns, 'web', 70000)], { bundle }),
      ),
    ).rejects.toThrow(InstanceStepError);
    const [status] = await bundleStatus(cluster, bundle);
    expect(status!.pending).toBe(true);
    expect(status!.objects.map((o) => o.object.name)).toEqual(['settings']);

    const [deleted] = await deleteBundleInstances(cluster, bundle, { timeoutMs: 30_000 });
    // Reverse apply order; the Service was never created (already gone counts as deleted, with no diff).
    expect(deleted!.changes.map((c) => `${c.kind}/${c.name} ${c.action}`)).toEqual([
      'Service/web deleted',
      'ConfigMap/settings deleted',
      'ConfigMap/extra deleted',
    ]);
    expect(deleted!.changes[0]!.diff).toBe('');
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'extra' })).toBeNull();
    expect(await readInstance(cluster, 'web', ns)).toBeNull();
  });

  it('keeps the instance Secret, marked as deleting, when an object is not gone in time', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-delete-stuck')).name;
    const bundle = `stuck-${ns}`;
    const stuck = configMap(ns, 'stuck', {});
    stuck.metadata.finalizers = ['example.com/hold'];
    await applyInstance(cluster, built(ns, [stuck], { bundle }));
    try {
      const error = await deleteBundleInstances(cluster, bundle, { timeoutMs: 1_500 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InstanceStepError);
      expect((error as InstanceStepError).step).toBe('wait');
      expect((error as Error).message).toContain(`ConfigMap/${ns}/stuck status: 'Terminating'`);
      const secret = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
      expect(secret.metadata.annotations?.['status.timoni.sh/deleting']).toMatch(/Z$/);
    } finally {
      await admin
        .apply(
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stuck', namespace: ns, finalizers: [] } },
          { fieldManager: 'timoni', force: true },
        )
        .catch(() => undefined);
    }
    // A retry completes the delete once the finalizer is gone.
    const retried = await deleteBundleInstances(cluster, bundle, { timeoutMs: 30_000 });
    expect(retried[0]!.changes.map((c) => c.action)).toEqual(['deleted']);
    expect(await readInstance(cluster, 'web', ns)).toBeNull();
  });
});
