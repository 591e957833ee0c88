// Applying instances on a real cluster of the fleet: install, upgrade, the pending
// revision, CRDs staged before their objects, ownership conflicts.
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance-apply.js';
import { InstanceStepError } from '../../../src/kube/instance.js';
import { encodeInstance, inventoryEntries, type InstanceRecord } from '../../../src/kube/inventory.js';
import { readInstance, writeInstance } from '../../../src/kube/inventory-store.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet } from '../engine-support.js';
import { actions, built, configMap, deployment, freshNamespaceName, module, secret, service } from './support.js';

const CLUSTER = 0;

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
    expect(actions(result.changes)).toEqual([`Namespace/${ns} created`, 'ConfigMap/settings created', 'Service/web created', 'Deployment/web created']);
    expect(result.changes[1]!.diff).toContain('+  color: blue');
    expect(lines).toContain(`Deployment/${ns}/web created`);

    const namespace = await admin.get({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    expect(namespace.metadata.labels?.['app.kubernetes.io/created-by']).toBe('timoni');
    for (const ref of [
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' },
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' },
    ]) {
      const live = await admin.get(ref);
      expect(live.metadata.labels).toMatchObject({ 'instance.timoni.sh/name': 'web', 'instance.timoni.sh/namespace': ns });
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
    const live = await clusterClient(CLUSTER).get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' });
    expect(live.data).toEqual({ color: 'red' });
    const stored = await readInstance(cluster, 'web', ns);
    expect(stored?.instance.values).toBe('values: {\n\tcolor: "red"\n}\n');
    expect(stored?.instance.module.version).toBe('1.2.4');
    expect(stored?.instance.images).toEqual(['nginx:1.28']);
    expect(stored?.pending).toBeUndefined();

    // Applying the same build again changes nothing.
    expect(actions((await applyInstance(cluster, v2)).changes)).toEqual(['ConfigMap/settings unchanged', 'Service/web unchanged']);
  });

  it('never puts Secret data in the changes it returns or the lines it logs', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-secret')).name;
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const created = await applyInstance(cluster, built(ns, [secret(ns, 'token', 'first-s3cret')]), { log });
    const configured = await applyInstance(cluster, built(ns, [secret(ns, 'token', 'second-s3cret')]), { log });
    const pruned = await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {})]), { log });
    expect(actions([...created.changes, ...configured.changes, ...pruned.changes])).toEqual(['Secret/token created', 'Secret/token configured', 'ConfigMap/settings created', 'Secret/token deleted']);
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
    const broken = built(ns, [configMap(ns, 'settings', { color: 'red' }), configMap(ns, 'extra', {}), service(ns, 'web', 70000)]);
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
    expect(pending.inventory.entries).toEqual(inventoryEntries([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'extra' },
      { apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'web' },
    ]));
    expect(pending.images).toBeUndefined();
    expect((await readInstance(cluster, 'web', ns))?.pending?.inventory?.entries).toHaveLength(3);

    // `extra` was only ever in the pending revision: the next apply without it prunes it.
    const fixed = built(ns, [configMap(ns, 'settings', { color: 'red' }), service(ns, 'web')]);
    const result = await applyInstance(cluster, fixed);
    expect(actions(result.changes)).toEqual(['ConfigMap/settings unchanged', 'Service/web created', 'ConfigMap/extra deleted']);
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
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    const widget: KubeObject = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1', namespace: ns }, spec: { size: 3 } };
    try {
      const result = await applyInstance(cluster, built(ns, [widget, configMap(ns, 'settings', { a: '1' }), crd]));
      expect(actions(result.changes)).toEqual([`CustomResourceDefinition/widgets.${group} created`, 'ConfigMap/settings created', 'Widget/w1 created']);
      // The CRD is cluster-scoped: no namespace in its change or inventory entry.
      expect(result.changes[0]!.namespace).toBe('');
      expect(result.record.inventory?.entries?.map((e) => e.id)).toContain(`_widgets.${group}_apiextensions.k8s.io_CustomResourceDefinition`);
      expect(result.readiness.find((r) => r.object.kind === 'CustomResourceDefinition')?.status).toBe('Current');
      const live = await admin.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w1' });
      expect(live.spec).toEqual({ size: 3 });
    } finally {
      await admin.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${group}` });
    }
  });
});

describe('instance ownership', () => {
  it('refuses an instance of another bundle before writing anything; overwrite takes it over', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-owner')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'settings', { color: 'blue' })]));
    const secretBefore = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });

    const other = built(ns, [configMap(ns, 'settings', { color: 'green' }), configMap(ns, 'extra', { a: 'b' })], { bundle: 'infra' });
    const error = await applyInstance(cluster, other).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceStepError);
    expect((error as InstanceStepError).step).toBe('ownership');
    expect((error as InstanceStepError).changes).toEqual([]);
    expect((error as Error).message).toContain('instance ownership conflict encountered. Conflict: instance "web" exists and is managed by another bundle "apps"');
    expect((error as Error).message).toContain('--overwrite-ownership');
    // Nothing written.
    expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({ color: 'blue' });
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'extra' })).toBeNull();
    const secretAfter = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
    expect(secretAfter.metadata.resourceVersion).toBe(secretBefore.metadata.resourceVersion);

    const result = await applyInstance(cluster, other, { overwriteOwnership: true });
    expect(actions(result.changes)).toEqual(['ConfigMap/extra created', 'ConfigMap/settings configured']);
    const stored = await readInstance(cluster, 'web', ns);
    expect(stored?.instance.labels?.['bundle.timoni.sh/name']).toBe('infra');
  });

  it('an instance not managed by any bundle is a conflict too', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-owner-none')).name;
    await writeInstance(cluster, {
      name: 'web',
      namespace: ns,
      module: { name: module.name, repository: module.url, version: module.version, digest: module.digest },
      values: '',
      inventory: { entries: null },
    });
    const error = await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {})])).catch((e: unknown) => e);
    expect((error as InstanceStepError).step).toBe('ownership');
    expect((error as Error).message).toContain('instance "web" exists and is not managed by any bundle');
    expect(await clusterClient(CLUSTER).getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).toBeNull();
  });
});
