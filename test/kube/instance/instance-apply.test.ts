// Applying instances on a real cluster of the fleet: install, upgrade, the pending
// revision, CRDs staged before their objects; a cancelled apply (records of what was applied); immutable changes and
// one-off objects.
import { describe, expect, it } from 'vitest';
import { RunCancelled } from '../../../src/cancellation.js';
import { applyInstance, InstanceCancelledError } from '../../../src/kube/instance/instance-apply.js';
import { InstanceStepError } from '../../../src/kube/instance/instance.js';
import { encodeInstance, inventoryEntries, type InstanceRecord } from '../../../src/kube/instance/inventory.js';
import { readInstance } from '../../../src/kube/instance/inventory-store.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import {
  actions,
  built,
  configMap,
  deployment,
  engineFleet,
  freshNamespaceName,
  job,
  module,
  secret,
  service,
} from '../support.js';

const CLUSTER = 0;
/** The cluster of the immutable-change and one-off tests. */
const IMMUTABLE_CLUSTER = 1;
/** The cluster of the abort test. */
const ABORT_CLUSTER = 2;

function storedBytes(secret: KubeObject, key: string): string {
  return Buffer.from((secret.data as Record<string, string>)[key]!, 'base64').toString('utf8');
}

describe('instance apply', () => {
  it('installs: creates the namespace, labels every object, stores the inventory exactly as Timoni does', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = freshNamespaceName(CLUSTER, 'lc-install');
    const objects = [deployment(ns, 'web'), service(ns, 'web'), configMap(ns, 'settings', { color: 'blue' })];
    const lines: string[] = [];

    const result = await applyInstance(cluster, built(ns, objects), { log: (line) => lines.push(line) });

    expect(result.installed).toBe(true);
    expect(actions(result.changes)).toEqual([
      `Namespace/${ns} created`,
      'ConfigMap/settings created',
      'Service/web created',
      'Deployment/web created',
    ]);
    expect(result.changes[1]!.diff).toContain('+  color: blue');
    expect(lines).toContain(`Deployment/${ns}/web created`);

    const namespace = await admin.get({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    expect(namespace.metadata.labels?.['app.kubernetes.io/created-by']).toBe('timoni');
    for (const ref of [
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' },
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' },
    ]) {
      const live = await admin.get(ref);
      expect(live.metadata.labels).toMatchObject({
        'instance.timoni.sh/name': 'web',
        'instance.timoni.sh/namespace': ns,
      });
    }

    const secret = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
    expect(secret.type).toBe('timoni.sh/instance');
    expect(secret.metadata.labels).toEqual({
      'app.kubernetes.io/name': 'web',
      'app.kubernetes.io/component': 'instance',
      'app.kubernetes.io/created-by': 'timoni',
      'bundle.timoni.sh/name': 'apps',
    });
    expect(Object.keys(secret.data as object)).toEqual(['instance']);
    const stored = storedBytes(secret, 'instance');
    const lastTransitionTime = JSON.parse(stored).lastTransitionTime as string;
    expect(lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const expected: InstanceRecord = {
      name: 'web',
      namespace: ns,
      labels: { 'bundle.timoni.sh/name': 'apps' },
      module: { name: module.name, repository: module.url, version: module.version, digest: module.digest },
      values: 'values: {\n\tcolor: "blue"\n}\n',
      lastTransitionTime,
      inventory: {
        entries: [
          { id: `${ns}_settings__ConfigMap`, v: 'v1' },
          { id: `${ns}_web__Service`, v: 'v1' },
          { id: `${ns}_web_apps_Deployment`, v: 'v1' },
        ],
      },
      images: ['nginx:1.27'],
    };
    expect(stored).toBe(encodeInstance(expected));
    expect(result.record).toEqual(expected);
  });

  it('upgrades: changed values configure only what changed, the record is replaced', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-upgrade')).name;
    const v1 = built(ns, [configMap(ns, 'settings', { color: 'blue' }), service(ns, 'web')]);
    await applyInstance(cluster, v1);

    const v2 = built(ns, [configMap(ns, 'settings', { color: 'red' }), service(ns, 'web')], {
      valuesSource: 'values: {\n\tcolor: "red"\n}\n',
      module: { ...module, version: '1.2.4' },
      images: ['nginx:1.28'],
    });
    const result = await applyInstance(cluster, v2);

    expect(result.installed).toBe(false);
    // The namespace existed: no namespace change.
    expect(actions(result.changes)).toEqual(['ConfigMap/settings configured', 'Service/web unchanged']);
    expect(result.changes[0]!.diff).toContain('-  color: blue\n+  color: red');
    expect(result.changes[1]!.diff).toBe('');
    const live = await clusterClient(CLUSTER).get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'settings',
    });
    expect(live.data).toEqual({ color: 'red' });
    const stored = await readInstance(cluster, 'web', ns);
    expect(stored?.instance.values).toBe('values: {\n\tcolor: "red"\n}\n');
    expect(stored?.instance.module.version).toBe('1.2.4');
    expect(stored?.instance.images).toEqual(['nginx:1.28']);
    expect(stored?.pending).toBeUndefined();

    // Applying the same build again changes nothing.
    expect(actions((await applyInstance(cluster, v2)).changes)).toEqual([
      'ConfigMap/settings unchanged',
      'Service/web unchanged',
    ]);
  });

  it('never puts Secret data in the changes it returns or the lines it logs', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-secret')).name;
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const created = await applyInstance(cluster, built(ns, [secret(ns, 'token', 'first-s3cret')]), { log });
    const configured = await applyInstance(cluster, built(ns, [secret(ns, 'token', 'second-s3cret')]), { log });
    const pruned = await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {})]), { log });
    expect(actions([...created.changes, ...configured.changes, ...pruned.changes])).toEqual([
      'Secret/token created',
      'Secret/token configured',
      'ConfigMap/settings created',
      'Secret/token deleted',
    ]);
    expect(configured.changes[0]!.diff).toContain('*** (before)');
    const everything = JSON.stringify([created, configured, pruned]) + lines.join('\n');
    for (const value of ['first-s3cret', 'second-s3cret']) {
      expect(everything).not.toContain(value);
      expect(everything).not.toContain(Buffer.from(value).toString('base64'));
    }
  });

  it('records a changed inventory as data.pending before touching objects; a failed upgrade leaves it, the next apply promotes it', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-pending')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'settings', { color: 'blue' })]));
    const before = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });

    // A Service with an invalid port fails its apply, after the ConfigMaps.
    const broken = built(ns, [
      configMap(ns, 'settings', { color: 'red' }),
      configMap(ns, 'extra', {}),
      service(ns, 'web', 70000),
    ]);
    const error = await applyInstance(cluster, broken).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceStepError);
    const stepError = error as InstanceStepError;
    expect(stepError.step).toBe('apply');
    expect(stepError.object).toBe(`Service/${ns}/web`);
    expect(stepError.message).toContain(`cluster ${cluster.name}: instance ${ns}/web: apply failed`);
    expect(actions(stepError.changes)).toEqual(['ConfigMap/extra created', 'ConfigMap/settings configured']);

    const during = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
    expect(Object.keys(during.data as object).sort()).toEqual(['instance', 'pending']);
    expect(storedBytes(during, 'instance')).toBe(storedBytes(before, 'instance'));
    const pending = JSON.parse(storedBytes(during, 'pending'));
    expect(pending.inventory.entries).toEqual(
      inventoryEntries([
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'extra' },
        { apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'web' },
      ]),
    );
    expect(pending.images).toBeUndefined();
    expect((await readInstance(cluster, 'web', ns))?.pending?.inventory?.entries).toHaveLength(3);

    // `extra` was only ever in the pending revision: the next apply without it prunes it.
    const fixed = built(ns, [configMap(ns, 'settings', { color: 'red' }), service(ns, 'web')]);
    const result = await applyInstance(cluster, fixed);
    expect(actions(result.changes)).toEqual([
      'ConfigMap/settings unchanged',
      'Service/web created',
      'ConfigMap/extra deleted',
    ]);
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'extra' })).toBeNull();
    const after = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
    expect(Object.keys(after.data as object)).toEqual(['instance']);
    expect(JSON.parse(storedBytes(after, 'instance')).inventory.entries).toHaveLength(2);
  });

  it('applies a CRD, waits for it to be established, then the custom resource of the same set', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-crd')).name;
    const group = `${ns}.example.com`;
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    const widget: KubeObject = {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', namespace: ns },
      spec: { size: 3 },
    };
    try {
      const result = await applyInstance(cluster, built(ns, [widget, configMap(ns, 'settings', { a: '1' }), crd]));
      expect(actions(result.changes)).toEqual([
        `CustomResourceDefinition/widgets.${group} created`,
        'ConfigMap/settings created',
        'Widget/w1 created',
      ]);
      // The CRD is cluster-scoped: no namespace in its change or inventory entry.
      expect(result.changes[0]!.namespace).toBe('');
      expect(result.record.inventory?.entries?.map((e) => e.id)).toContain(
        `_widgets.${group}_apiextensions.k8s.io_CustomResourceDefinition`,
      );
      expect(result.readiness.find((r) => r.object.kind === 'CustomResourceDefinition')?.status).toBe('Current');
      const live = await admin.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w1' });
      expect(live.spec).toEqual({ size: 3 });
    } finally {
      await admin.delete({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: `widgets.${group}`,
      });
    }
  });
});

describe('immutable fields and one-off objects', () => {
  it('an immutable change is an error naming object and field; force recreates it', async () => {
    const cluster = engineFleet().clusters[IMMUTABLE_CLUSTER]!;
    const admin = clusterClient(IMMUTABLE_CLUSTER);
    const ns = (await testNamespace(IMMUTABLE_CLUSTER, 'lc-immutable')).name;
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
    expect(
      (await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' })).metadata.uid,
    ).toBe(first.metadata.uid);

    const result = await applyInstance(cluster, changed, { force: true });
    expect(actions(result.changes)).toEqual(['ConfigMap/a unchanged', 'Job/migrate recreated']);
    // The applied change shows the fields that forced the recreation, then that it was recreated.
    const recreatedDiff = result.changes[1]!.diff;
    expect(recreatedDiff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line))).toEqual([
      '-            - echo one',
      '+            - echo two',
    ]);
    expect(
      recreatedDiff.endsWith(
        '# recreated: immutable field spec.template changes; the object was deleted and created again\n',
      ),
    ).toBe(true);
    const recreated = await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });
    expect(recreated.metadata.uid).not.toBe(first.metadata.uid);
    expect(recreated.spec).toMatchObject({
      template: { spec: { containers: [{ command: ['sh', '-c', 'echo two'] }] } },
    });

    // The object's own force annotation recreates without the option.
    const annotated = built(ns, [
      configMap(ns, 'a', { v: '2' }),
      job(ns, 'migrate', 'echo three', { 'action.timoni.sh/force': 'enabled' }),
    ]);
    expect(actions((await applyInstance(cluster, annotated)).changes)).toEqual([
      'ConfigMap/a unchanged',
      'Job/migrate recreated',
    ]);
  });

  it('one-off objects are created once, then left alone', async () => {
    const cluster = engineFleet().clusters[IMMUTABLE_CLUSTER]!;
    const admin = clusterClient(IMMUTABLE_CLUSTER);
    const ns = (await testNamespace(IMMUTABLE_CLUSTER, 'lc-oneoff')).name;
    const oneOff = { 'action.timoni.sh/one-off': 'enabled' };
    const first = await applyInstance(
      cluster,
      built(ns, [job(ns, 'seed', 'echo one', oneOff), configMap(ns, 'seed-config', { v: '1' }, oneOff)]),
    );
    expect(actions(first.changes)).toEqual(['ConfigMap/seed-config created', 'Job/seed created']);

    const second = await applyInstance(
      cluster,
      built(ns, [job(ns, 'seed', 'echo two', oneOff), configMap(ns, 'seed-config', { v: '2' }, oneOff)]),
    );
    expect(actions(second.changes)).toEqual(['ConfigMap/seed-config skipped', 'Job/seed skipped']);
    expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'seed-config' })).data).toEqual(
      { v: '1' },
    );
    // Still part of the instance.
    expect((await readInstance(cluster, 'web', ns))?.instance.inventory?.entries).toHaveLength(2);
  });
});

describe('cancel', () => {
  const cancelled = () => {
    const controller = new AbortController();
    return { controller, cancel: () => controller.abort(new RunCancelled('SIGINT')) };
  };
  const instanceSecret = (ns: string) => ({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });

  it('a cancelled apply starts nothing: no object, no record', async () => {
    const cluster = engineFleet().clusters[ABORT_CLUSTER]!;
    const ns = (await testNamespace(ABORT_CLUSTER, 'lc-abort-apply')).name;
    const { controller, cancel } = cancelled();
    cancel();
    const error = await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {})]), {
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceCancelledError);
    expect((error as InstanceCancelledError).step).toBe('namespace');
    expect((error as InstanceCancelledError).record).toBe('none');
    expect((error as Error).message).toContain(
      'the run was cancelled (SIGINT) during namespace: nothing of the instance was applied',
    );
    expect(
      await clusterClient(ABORT_CLUSTER).getOrNull({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: ns,
        name: 'settings',
      }),
    ).toBeNull();
    expect(await clusterClient(ABORT_CLUSTER).getOrNull(instanceSecret(ns))).toBeNull();
  });

  it('cancelled during the readiness wait: every object applied, the final record written with the new values', async () => {
    const cluster = engineFleet().clusters[ABORT_CLUSTER]!;
    const admin = clusterClient(ABORT_CLUSTER);
    const ns = (await testNamespace(ABORT_CLUSTER, 'lc-cancel-wait')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'settings', { color: 'blue' }), deployment(ns, 'web')]), {
      wait: false,
    });
    const { controller, cancel } = cancelled();
    const upgrade = built(ns, [configMap(ns, 'settings', { color: 'red' }), deployment(ns, 'web', 'nginx:1.28')], {
      valuesSource: '{\n\tcolor: "red"\n}',
      images: ['nginx:1.28'],
    });
    const started = Date.now();
    const error = await applyInstance(cluster, upgrade, {
      wait: true,
      timeoutMs: 60_000,
      signal: controller.signal,
      log: (line) => line.startsWith('waiting for') && cancel(),
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(InstanceCancelledError);
    const stopped = error as InstanceCancelledError;
    expect([stopped.step, stopped.record, stopped.object]).toEqual(['wait', 'final', `Deployment/${ns}/web`]);
    expect(actions(stopped.changes)).toEqual(['ConfigMap/settings configured', 'Deployment/web configured']);
    expect(stopped.readiness.find((r) => r.object.kind === 'Deployment')?.status).toBe('InProgress');
    const record = await readInstance(cluster, 'web', ns);
    expect(record?.pending).toBeUndefined();
    expect(record?.instance.values).toBe('{\n\tcolor: "red"\n}');
    expect(record?.instance.images).toEqual(['nginx:1.28']);
    const live = await admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
    expect(
      (live.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]
        ?.image,
    ).toBe('nginx:1.28');
  });

  it('cancelled between objects: the object in flight finishes, the next is not applied, the revision is saved as pending', async () => {
    const cluster = engineFleet().clusters[ABORT_CLUSTER]!;
    const admin = clusterClient(ABORT_CLUSTER);
    const ns = (await testNamespace(ABORT_CLUSTER, 'lc-cancel-apply')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', { v: '1' }), configMap(ns, 'b', { v: '1' })]));
    const before = await admin.get(instanceSecret(ns));
    const { controller, cancel } = cancelled();
    const upgrade = built(ns, [configMap(ns, 'a', { v: '2' }), configMap(ns, 'b', { v: '2' })], {
      valuesSource: '{\n\tv: "2"\n}',
    });
    const error = await applyInstance(cluster, upgrade, {
      signal: controller.signal,
      log: (line) => line.startsWith('ConfigMap/') && cancel(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceCancelledError);
    const stopped = error as InstanceCancelledError;
    expect([stopped.step, stopped.record, stopped.object]).toEqual(['apply', 'pending', `ConfigMap/${ns}/b`]);
    expect(actions(stopped.changes)).toEqual(['ConfigMap/a configured']);
    expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' })).data).toEqual({
      v: '1',
    });
    const during = await admin.get(instanceSecret(ns));
    expect(storedBytes(during, 'instance')).toBe(storedBytes(before, 'instance'));
    expect(JSON.parse(storedBytes(during, 'pending')).values).toBe('{\n\tv: "2"\n}');
  });

  it('cancelled before the prune: the objects the build lost stay, and stay in the record for the next apply to prune', async () => {
    const cluster = engineFleet().clusters[ABORT_CLUSTER]!;
    const admin = clusterClient(ABORT_CLUSTER);
    const ns = (await testNamespace(ABORT_CLUSTER, 'lc-cancel-prune')).name;
    await applyInstance(
      cluster,
      built(ns, [configMap(ns, 'kept', {}), configMap(ns, 'lost', {}), deployment(ns, 'web')]),
      { wait: false },
    );
    const { controller, cancel } = cancelled();
    const error = await applyInstance(cluster, built(ns, [configMap(ns, 'kept', { v: '2' }), deployment(ns, 'web')]), {
      wait: true,
      signal: controller.signal,
      log: (line) => line.startsWith('waiting for') && cancel(),
    }).catch((e: unknown) => e);
    expect((error as InstanceCancelledError).record).toBe('final');
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'lost' })).not.toBeNull();
    const record = await readInstance(cluster, 'web', ns);
    expect((record?.instance.inventory?.entries ?? []).map((entry) => entry.id).sort()).toEqual(
      [`${ns}_kept__ConfigMap`, `${ns}_lost__ConfigMap`, `${ns}_web_apps_Deployment`].sort(),
    );
    const next = await applyInstance(cluster, built(ns, [configMap(ns, 'kept', { v: '2' }), deployment(ns, 'web')]));
    expect(actions(next.changes)).toContain('ConfigMap/lost deleted');
  });
});
