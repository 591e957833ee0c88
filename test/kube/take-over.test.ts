// Fields set with kubectl or Helm are taken over by Timoni's field manager before the apply,
// so that fields the module no longer sets are removed (as Timoni does).
import { describe, expect, it } from 'vitest';
import { applyObject, serverSideApply } from '../../src/kube/apply.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { KubeClient } from '../harness/fleet/kube-client.js';
import { clusterClient, testNamespace } from '../harness/fleet/test-context.js';
import { engineFleet, onEveryCluster } from './engine-support.js';

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

function desired(namespace: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 'desired' } };
}

/** Creates the ConfigMap as `kubectl apply` (client-side) does: an Update by kubectl-client-side-apply. */
async function kubectlCreate(admin: KubeClient, namespace: string, name: string): Promise<void> {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 'by-kubectl', extra: 'left-over' } };
  await admin.requestJson('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    query: { fieldManager: 'kubectl-client-side-apply' },
    body: JSON.stringify({ ...object, metadata: { ...object.metadata, annotations: { [lastApplied]: JSON.stringify(object) } } }),
    contentType: 'application/json',
  });
}

const managers = (object: KubeObject) => (object.metadata.managedFields ?? []).map((entry) => `${entry.manager}/${entry.operation}`).sort();

describe('take-over of kubectl and Helm fields', () => {
  it('takes over client-side kubectl apply, and without it the kubectl field would stay', async () => {
    const { clusters } = engineFleet();
    await onEveryCluster(clusters, async (cluster, index) => {
      const ns = (await testNamespace(index, 'kube-takeover')).name;
      const admin = clusterClient(index);
      await kubectlCreate(admin, ns, 'taken');
      await kubectlCreate(admin, ns, 'control');

      const result = await applyObject(cluster, desired(ns, 'taken'));
      expect(result.action).toBe('configured');
      const taken = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'taken' });
      expect(taken.data).toEqual({ a: 'desired' });
      expect(taken.metadata.annotations?.[lastApplied]).toBeUndefined();
      expect(managers(taken as KubeObject)).toEqual(['timoni/Apply']);

      // Control: a forced apply alone leaves the kubectl-owned field in place.
      await serverSideApply(cluster, desired(ns, 'control'));
      const control = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'control' });
      expect(control.data).toEqual({ a: 'desired', extra: 'left-over' });
      expect(managers(control as KubeObject)).toContain('kubectl-client-side-apply/Update');

      expect((await applyObject(cluster, desired(ns, 'taken'))).action).toBe('unchanged');
    });
  });

  it('merges kubectl edits and server-side kubectl and Helm fields into the existing timoni entry', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const ns = (await testNamespace(0, 'kube-takeover-merge')).name;
    const admin = clusterClient(0);
    expect((await applyObject(cluster, desired(ns, 'merged'))).action).toBe('created');
    const path = `/api/v1/namespaces/${ns}/configmaps/merged`;
    await admin.requestJson('PATCH', path, { query: { fieldManager: 'kubectl-edit' }, body: JSON.stringify({ data: { edited: 'by-hand' } }), contentType: 'application/merge-patch+json' });
    await admin.requestJson('PATCH', path, {
      query: { fieldManager: 'kubectl', force: 'true' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'merged', namespace: ns, labels: { ssa: 'kubectl' } } }),
      contentType: 'application/apply-patch+yaml',
    });
    await admin.requestJson('PATCH', path, {
      query: { fieldManager: 'helm' },
      body: JSON.stringify({ metadata: { annotations: { 'meta.helm.sh/release-name': 'old' } }, data: { helm: 'chart' } }),
      contentType: 'application/merge-patch+json',
    });
    await admin.requestJson('PATCH', path, { query: { fieldManager: 'someone-else' }, body: JSON.stringify({ data: { kept: 'theirs' } }), contentType: 'application/merge-patch+json' });
    const before = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'merged' });
    expect(managers(before as KubeObject)).toEqual(['helm/Update', 'kubectl-edit/Update', 'kubectl/Apply', 'someone-else/Update', 'timoni/Apply']);

    expect((await applyObject(cluster, desired(ns, 'merged'))).action).toBe('configured');
    const after = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'merged' });
    expect(after.data).toEqual({ a: 'desired', kept: 'theirs' });
    expect(after.metadata.labels?.ssa).toBeUndefined();
    expect(after.metadata.annotations?.['meta.helm.sh/release-name']).toBeUndefined();
    expect(managers(after as KubeObject)).toEqual(['someone-else/Update', 'timoni/Apply']);
  });
});
