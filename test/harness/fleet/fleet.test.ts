// The fleet started by the global setup: every context answers as Kubernetes v1.36.3,
// server-side apply and dry-run work, the clusters are independent, authentication and
// RBAC are on, and the controller-manager does its part.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readEnvFile } from './env-file.js';
import { KubeApiError, KubeClient, type KubeObject } from './kube-client.js';
import { connectionFromKubeconfig } from './kubeconfig.js';
import { clusterClient, testFleet, testNamespace } from './test-context.js';

const fleet = testFleet();
const indexes = fleet.clusters.map((_, index) => index);

describe('the fleet of the test run', () => {
  it('has three clusters, each a context of the kubeconfig, listed in the env file', () => {
    expect(fleet.clusters.map((cluster) => cluster.contextName)).toEqual(['fleet-1', 'fleet-2', 'fleet-3']);
    const kubeconfig = parse(readFileSync(fleet.kubeconfigPath, 'utf8')) as {
      contexts: Array<{ name: string }>;
      'current-context': string;
    };
    expect(kubeconfig.contexts.map((context) => context.name)).toEqual(['fleet-1', 'fleet-2', 'fleet-3']);
    expect(kubeconfig['current-context']).toBe('fleet-1');
    const env = readEnvFile(fleet.envPath);
    expect(env.KUBECONFIG).toBe(fleet.kubeconfigPath);
    expect(env.FLEET_CONTEXTS).toBe('fleet-1,fleet-2,fleet-3');
    expect(env.FLEET_CLUSTER_2_SERVER).toBe(fleet.clusters[1]?.server);
    expect(new Set(fleet.clusters.map((cluster) => cluster.server)).size).toBe(3);
  });

  it.each(indexes)('cluster %i answers /version with v1.36.3', async (index) => {
    const version = await clusterClient(index).version();
    expect(version.gitVersion).toBe('v1.36.3');
    expect(version.major).toBe('1');
    expect(version.minor).toBe('36');
    expect(fleet.clusters[index]?.version).toBe('v1.36.3');
  });

  it.each(indexes)('cluster %i applies server-side, and dry-run stores nothing', async (index) => {
    const client = clusterClient(index);
    const namespace = await testNamespace(index, 'ssa');
    const configMap: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: namespace.name, labels: { app: 'demo' } },
      data: { color: 'blue' },
    };

    const dryRun = await client.apply(configMap, { fieldManager: 'timoni', dryRun: true });
    expect(dryRun.metadata.uid).toBeTruthy();
    expect(
      await client.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'settings' }),
    ).toBeNull();

    const created = await client.apply(configMap, { fieldManager: 'timoni' });
    expect(created.data).toEqual({ color: 'blue' });
    expect(created.metadata.managedFields?.map((entry) => [entry.manager, entry.operation])).toEqual([
      ['timoni', 'Apply'],
    ]);

    // Another manager taking the field conflicts unless forced.
    const conflicting = { ...configMap, data: { color: 'red' } };
    await expect(client.apply(conflicting, { fieldManager: 'kubectl' })).rejects.toMatchObject({
      status: 409,
      reason: 'Conflict',
    });
    const forcedDryRun = await client.apply(conflicting, { fieldManager: 'kubectl', force: true, dryRun: true });
    expect(forcedDryRun.data).toEqual({ color: 'red' });
    const live = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'settings' });
    expect(live.data).toEqual({ color: 'blue' });

    const forced = await client.apply(conflicting, { fieldManager: 'kubectl', force: true });
    expect(forced.data).toEqual({ color: 'red' });
    const list = await client.list('v1', 'ConfigMap', { namespace: namespace.name, labelSelector: 'app=demo' });
    expect(list.items.map((item) => item.metadata.name)).toEqual(['settings']);

    expect(
      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'settings' }),
    ).toBe(true);
    expect(
      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'settings' }),
    ).toBe(false);
  });

  it('keeps the clusters independent: an object created in one is absent from the others', async () => {
    const [first, second, third] = [clusterClient(0), clusterClient(1), clusterClient(2)];
    const namespace = await testNamespace(0, 'independent');
    await first.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'only-here', namespace: namespace.name },
      data: { a: '1' },
    });
    expect(await first.getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: namespace.name })).not.toBeNull();
    for (const other of [second, third]) {
      expect(await other.getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: namespace.name })).toBeNull();
      const all = await other.list('v1', 'ConfigMap', { fieldSelector: 'metadata.name=only-here' });
      expect(all.items).toEqual([]);
    }
    const uids = await Promise.all(
      [first, second, third].map(
        async (client) => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' })).metadata.uid,
      ),
    );
    expect(new Set(uids).size).toBe(3);

    // Each cluster has its own CA: the first cluster's server certificate is not trusted for
    // the second, and the first cluster's client certificate is not accepted by the second.
    const kubeconfig = readFileSync(fleet.kubeconfigPath, 'utf8');
    const firstConnection = connectionFromKubeconfig(kubeconfig, 'fleet-1');
    const secondConnection = connectionFromKubeconfig(kubeconfig, 'fleet-2');
    const wrongCa = new KubeClient({ ...firstConnection, server: secondConnection.server });
    const wrongUser = new KubeClient({ ...firstConnection, server: secondConnection.server, ca: secondConnection.ca });
    try {
      await expect(wrongCa.request('GET', '/version')).rejects.toThrow(/certificate/i);
      expect((await wrongUser.request('GET', '/version')).status).toBe(401);
    } finally {
      wrongCa.close();
      wrongUser.close();
    }
  });

  it.each(indexes)('cluster %i refuses unauthenticated requests and enforces RBAC', async (index) => {
    const admin = clusterClient(index);
    const anonymous = admin.anonymous();
    try {
      const refused = await anonymous.request('GET', '/api/v1/namespaces');
      expect(refused.status).toBe(401);
      expect((await anonymous.request('GET', '/version')).status).toBe(401);
    } finally {
      anonymous.close();
    }

    const cluster = fleet.clusters[index];
    if (!cluster) throw new Error(`no cluster ${index}`);
    const user = admin.withClientCertificate(
      readFileSync(cluster.userCertPath),
      readFileSync(cluster.userKeyPath),
      'fleet-user',
    );
    try {
      const error = await user.list('v1', 'Secret', { namespace: 'default' }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(KubeApiError);
      expect((error as KubeApiError).status).toBe(403);
      expect((error as KubeApiError).message).toContain('User "fleet-user" cannot list resource "secrets"');
      // Once bound to a role, the same user may.
      const namespace = await testNamespace(index, 'rbac');
      await admin.apply({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'fleet-user-view', namespace: namespace.name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'fleet-user' }],
      });
      // The authorizer learns of the binding (and of the aggregated `edit` role) through its
      // informers, a moment after the write: ask again for up to 10 s.
      const deadline = Date.now() + 10_000;
      let allowed = await user.list('v1', 'Secret', { namespace: namespace.name }).catch((caught: unknown) => caught);
      while (allowed instanceof KubeApiError && allowed.status === 403 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        allowed = await user.list('v1', 'Secret', { namespace: namespace.name }).catch((caught: unknown) => caught);
      }
      if (allowed instanceof Error) throw allowed;
      expect((allowed as { items: unknown[] }).items).toEqual([]);
    } finally {
      user.close();
    }
  });

  it('runs the controller-manager: default ServiceAccounts, root CA ConfigMaps, garbage collection', async () => {
    const client = clusterClient(1);
    const namespace = await testNamespace(1, 'controllers');
    expect(
      await client.getOrNull({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: namespace.name, name: 'default' }),
    ).not.toBeNull();

    const owner = await client.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner', namespace: namespace.name },
    });
    await client.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'owned',
        namespace: namespace.name,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }],
      },
    });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'owner' });
    const deadline = Date.now() + 60_000;
    while (await client.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'owned' })) {
      if (Date.now() > deadline)
        throw new Error('the garbage collector did not delete the owned ConfigMap within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const rootCa = await client.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: namespace.name,
      name: 'kube-root-ca.crt',
    });
    expect((rootCa.data as Record<string, string>)['ca.crt']).toBe(
      readFileSync(fleet.clusters[1]?.caCertPath ?? '', 'utf8'),
    );
  });
});
