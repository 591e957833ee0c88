// Instance Secrets written to and read from the fleet, in Timoni's storage format.
import { describe, expect, it } from 'vitest';
import { encodeInstance, inventoryEntries, type InstanceRecord } from '../../../src/kube/instance/inventory.js';
import {
  deleteInstance,
  ensureNamespace,
  listInstances,
  namespaceExists,
  readInstance,
  writeInstance,
} from '../../../src/kube/instance/inventory-store.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet, onEveryCluster } from '../support.js';

function record(name: string, namespace: string, bundle: string): InstanceRecord {
  return {
    name,
    namespace,
    labels: { 'bundle.timoni.sh/name': bundle },
    module: {
      name: 'timoni.sh/podinfo',
      repository: 'oci://127.0.0.1:5000/modules/podinfo',
      version: '6.5.4',
      digest: 'sha256:0123',
    },
    values: 'values: {\n\treplicas: 2\n}\n',
    inventory: {
      entries: inventoryEntries([
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name },
        { apiVersion: 'v1', kind: 'Service', namespace, name },
      ]),
    },
    images: ['ghcr.io/stefanprodan/podinfo:6.5.4'],
  };
}

describe('instance storage on the fleet', () => {
  it('writes the Secret Timoni writes, reads it back, lists by bundle, deletes', async () => {
    const { clusters } = engineFleet();
    await onEveryCluster(clusters, async (cluster, index) => {
      const ns = (await testNamespace(index, 'kube-inventory')).name;
      const admin = clusterClient(index);
      const now = new Date('2026-03-04T05:06:07.890Z');
      const written = await writeInstance(cluster, record('podinfo', ns, 'apps'), now);
      expect(written.lastTransitionTime).toBe('2026-03-04T05:06:07Z');

      const secret = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.podinfo' });
      expect(secret.type).toBe('timoni.sh/instance');
      expect(secret.metadata.labels).toEqual({
        'app.kubernetes.io/name': 'podinfo',
        'app.kubernetes.io/component': 'instance',
        'app.kubernetes.io/created-by': 'timoni',
        'bundle.timoni.sh/name': 'apps',
      });
      expect(Object.keys(secret.data as object)).toEqual(['instance']);
      const stored = Buffer.from((secret.data as { instance: string }).instance, 'base64').toString('utf8');
      expect(stored).toBe(encodeInstance(written));
      expect(JSON.parse(stored).inventory.entries).toEqual([
        { id: `${ns}_podinfo__Service`, v: 'v1' },
        { id: `${ns}_podinfo_apps_Deployment`, v: 'v1' },
      ]);
      expect(secret.metadata.managedFields?.map((entry) => `${entry.manager}/${entry.operation}`)).toEqual([
        'timoni/Apply',
      ]);

      const read = await readInstance(cluster, 'podinfo', ns);
      expect(read?.instance).toMatchObject({ ...written, creationTimestamp: secret.metadata.creationTimestamp });
      expect(read?.pending).toBeUndefined();
      expect(await readInstance(cluster, 'absent', ns)).toBeNull();

      await writeInstance(cluster, record('other', ns, 'infra'));
      expect((await listInstances(cluster, ns, 'apps')).map((i) => i.instance.name)).toEqual(['podinfo']);
      expect((await listInstances(cluster, ns)).map((i) => i.instance.name).sort()).toEqual(['other', 'podinfo']);

      // Writing again replaces the stored record.
      const next = { ...record('podinfo', ns, 'apps'), values: 'values: {}\n' };
      await writeInstance(cluster, next);
      expect((await readInstance(cluster, 'podinfo', ns))?.instance.values).toBe('values: {}\n');

      expect(await deleteInstance(cluster, 'podinfo', ns)).toBe(true);
      expect(await deleteInstance(cluster, 'podinfo', ns)).toBe(false);
      expect(await readInstance(cluster, 'podinfo', ns)).toBeNull();
    });
  });

  it('creates a missing namespace labelled as Timoni does', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const name = `kube-ns-${Date.now().toString(36)}`;
    const admin = clusterClient(0);
    try {
      expect(await namespaceExists(cluster, name)).toBe(false);
      expect(await ensureNamespace(cluster, name)).toBe(true);
      expect(await ensureNamespace(cluster, name)).toBe(false);
      const ns = await admin.get({ apiVersion: 'v1', kind: 'Namespace', name });
      expect(ns.metadata.labels?.['app.kubernetes.io/created-by']).toBe('timoni');
    } finally {
      await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name });
    }
  });
});
