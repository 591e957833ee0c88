// Prune (and what keeps an object from it), immutable changes, one-off objects.
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance-apply.js';
import { InstanceStepError } from '../../../src/kube/instance.js';
import { readInstance } from '../../../src/kube/inventory-store.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet } from '../engine-support.js';
import { actions, built, configMap, job, service } from './support.js';

const CLUSTER = 1;

describe('prune', () => {
  it('deletes objects removed from the build, last, in reverse apply order, and drops them from the inventory', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-prune')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', { x: '1' }), configMap(ns, 'b', { x: '2' }), service(ns, 'web'), service(ns, 'old')]));

    const result = await applyInstance(cluster, built(ns, [configMap(ns, 'a', { x: '1' }), service(ns, 'web')]), { wait: true, timeoutMs: 30_000 });

    expect(actions(result.changes)).toEqual(['ConfigMap/a unchanged', 'Service/web unchanged', 'Service/old deleted', 'ConfigMap/b deleted']);
    expect(result.changes[3]!.diff).toContain('-kind: ConfigMap');
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' })).toBeNull();
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'old' })).toBeNull();
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries?.map((e) => e.id)).toEqual([`${ns}_a__ConfigMap`, `${ns}_web__Service`]);
  });

  it('keeps objects annotated prune: disabled and objects without the instance labels (skipped)', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-keep')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', {}), configMap(ns, 'kept', {}, { 'action.timoni.sh/prune': 'disabled' }), configMap(ns, 'adopted', {})]));
    // Someone else takes `adopted` over: its instance labels go.
    await admin.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'adopted', namespace: ns, labels: { 'instance.timoni.sh/name': 'someone-else' } } },
      { fieldManager: 'other', force: true },
    );

    const result = await applyInstance(cluster, built(ns, [configMap(ns, 'a', {})]));

    expect(actions(result.changes)).toEqual(['ConfigMap/a unchanged', 'ConfigMap/kept skipped', 'ConfigMap/adopted skipped']);
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'kept' })).not.toBeNull();
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'adopted' })).not.toBeNull();
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries?.map((e) => e.id)).toEqual([`${ns}_a__ConfigMap`]);
  });

  it('with prune off, leaves removed objects in place and in the inventory', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-noprune')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', {}), configMap(ns, 'b', {})]));
    const result = await applyInstance(cluster, built(ns, [configMap(ns, 'a', {})]), { prune: false });
    expect(actions(result.changes)).toEqual(['ConfigMap/a unchanged']);
    expect(await clusterClient(CLUSTER).getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' })).not.toBeNull();
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries).toHaveLength(2);
  });
});

describe('immutable fields and one-off objects', () => {
  it('an immutable change is an error naming object and field; force recreates it', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-immutable')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', { v: '1' }), job(ns, 'migrate', 'echo one')]));
    const first = await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });

    const changed = built(ns, [configMap(ns, 'a', { v: '2' }), job(ns, 'migrate', 'echo two')]);
    const error = await applyInstance(cluster, changed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceStepError);
    const stepError = error as InstanceStepError;
    expect(stepError.step).toBe('apply');
    expect(stepError.object).toBe(`Job/${ns}/migrate`);
    expect(stepError.message).toMatch(/immutable field.* spec\.template/);
    expect(stepError.message).not.toContain('echo two');
    expect(actions(stepError.changes)).toEqual(['ConfigMap/a configured']);
    expect((await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' })).metadata.uid).toBe(first.metadata.uid);

    const result = await applyInstance(cluster, changed, { force: true });
    expect(actions(result.changes)).toEqual(['ConfigMap/a unchanged', 'Job/migrate recreated']);
    // The applied change shows the fields that forced the recreation, then that it was recreated.
    const recreatedDiff = result.changes[1]!.diff;
    expect(recreatedDiff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line))).toEqual(['-            - echo one', '+            - echo two']);
    expect(recreatedDiff.endsWith('# recreated: immutable field spec.template changes; the object was deleted and created again\n')).toBe(true);
    const recreated = await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });
    expect(recreated.metadata.uid).not.toBe(first.metadata.uid);
    expect(recreated.spec).toMatchObject({ template: { spec: { containers: [{ command: ['sh', '-c', 'echo two'] }] } } });

    // The object's own force annotation recreates without the option.
    const annotated = built(ns, [configMap(ns, 'a', { v: '2' }), job(ns, 'migrate', 'echo three', { 'action.timoni.sh/force': 'enabled' })]);
    expect(actions((await applyInstance(cluster, annotated)).changes)).toEqual(['ConfigMap/a unchanged', 'Job/migrate recreated']);
  });

  it('one-off objects are created once, then left alone', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-oneoff')).name;
    const oneOff = { 'action.timoni.sh/one-off': 'enabled' };
    const first = await applyInstance(cluster, built(ns, [job(ns, 'seed', 'echo one', oneOff), configMap(ns, 'seed-config', { v: '1' }, oneOff)]));
    expect(actions(first.changes)).toEqual(['ConfigMap/seed-config created', 'Job/seed created']);

    const second = await applyInstance(cluster, built(ns, [job(ns, 'seed', 'echo two', oneOff), configMap(ns, 'seed-config', { v: '2' }, oneOff)]));
    expect(actions(second.changes)).toEqual(['ConfigMap/seed-config skipped', 'Job/seed skipped']);
    expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'seed-config' })).data).toEqual({ v: '1' });
    // Still part of the instance.
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries).toHaveLength(2);
  });
});
