// Prune, and what keeps an object from it, on a real cluster of the fleet.
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { readInstance } from '../../../src/kube/instance/inventory-store.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { actions, built, configMap, engineFleet, service } from '../support.js';

const CLUSTER = 1;

describe('prune', () => {
  it('deletes objects removed from the build, last, in reverse apply order, and drops them from the inventory', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-prune')).name;
    await applyInstance(
      cluster,
      built(ns, [
        configMap(ns, 'a', { x: '1' }),
        configMap(ns, 'b', { x: '2' }),
        service(ns, 'web'),
        service(ns, 'old'),
      ]),
    );

    const result = await applyInstance(cluster, built(ns, [configMap(ns, 'a', { x: '1' }), service(ns, 'web')]), {
      wait: true,
      timeoutMs: 30_000,
    });

    expect(actions(result.changes)).toEqual([
      'ConfigMap/a unchanged',
      'Service/web unchanged',
      'Service/old deleted',
      'ConfigMap/b deleted',
    ]);
    expect(result.changes[3]!.diff).toContain('-kind: ConfigMap');
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' })).toBeNull();
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'old' })).toBeNull();
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries?.map((e) => e.id)).toEqual([
      `${ns}_a__ConfigMap`,
      `${ns}_web__Service`,
    ]);
  });

  it('keeps objects annotated prune: disabled and objects without the instance labels (skipped)', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-keep')).name;
    await applyInstance(
      cluster,
      built(ns, [
        configMap(ns, 'a', {}),
        configMap(ns, 'kept', {}, { 'action.timoni.sh/prune': 'disabled' }),
        configMap(ns, 'adopted', {}),
      ]),
    );
    // Someone else takes `adopted` over: its instance labels go.
    await admin.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'adopted', namespace: ns, labels: { 'instance.timoni.sh/name': 'someone-else' } },
      },
      { fieldManager: 'other', force: true },
    );

    const result = await applyInstance(cluster, built(ns, [configMap(ns, 'a', {})]));

    expect(actions(result.changes)).toEqual([
      'ConfigMap/a unchanged',
      'ConfigMap/kept skipped',
      'ConfigMap/adopted skipped',
    ]);
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'kept' })).not.toBeNull();
    expect(
      await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'adopted' }),
    ).not.toBeNull();
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries?.map((e) => e.id)).toEqual([
      `${ns}_a__ConfigMap`,
    ]);
  });

  it('with prune off, leaves removed objects in place and in the inventory', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-noprune')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', {}), configMap(ns, 'b', {})]));
    const result = await applyInstance(cluster, built(ns, [configMap(ns, 'a', {})]), { prune: false });
    expect(actions(result.changes)).toEqual(['ConfigMap/a unchanged']);
    expect(
      await clusterClient(CLUSTER).getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }),
    ).not.toBeNull();
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries).toHaveLength(2);
  });
});
