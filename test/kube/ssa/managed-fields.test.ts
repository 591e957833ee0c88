import { describe, expect, it } from 'vitest';
import { applyObject, serverSideApply } from '../../../src/kube/ssa/apply.js';
import { replaceFieldManagers, takeOwnershipPatch, unionFields } from '../../../src/kube/ssa/managed-fields.js';
import type { KubeObject, ManagedFieldsEntry } from '../../../src/kube/object.js';
import type { KubeClient } from '../../harness/fleet/kube-client.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet, onEveryCluster } from '../support.js';

const entry = (
  manager: string,
  operation: string,
  fields: Record<string, unknown>,
  extra: Partial<ManagedFieldsEntry> = {},
): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: 'v1',
  time: '2026-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: fields,
  ...extra,
});

describe('field take-over', () => {
  it('merges FieldsV1 tries', () => {
    expect(
      unionFields(
        { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
        { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:y': {} } } },
      ),
    ).toEqual({
      'f:data': { 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:x': {}, 'f:y': {} } },
    });
  });

  it('renames the first match to timoni/Apply when timoni owns nothing yet', () => {
    const entries = [
      entry('kubectl-client-side-apply', 'Update', { 'f:data': { 'f:a': {} } }),
      entry('kube-controller-manager', 'Update', { 'f:status': {} }),
    ];
    expect(replaceFieldManagers(entries, 'timoni')).toEqual([
      entries[1],
      { ...entries[0], manager: 'timoni', operation: 'Apply' },
    ]);
  });

  it('merges every matching manager into the existing timoni entry, and keeps the others', () => {
    const timoni = entry('timoni', 'Apply', { 'f:data': { 'f:a': {} } });
    const entries = [
      entry('helm', 'Update', { 'f:data': { 'f:h': {} } }),
      timoni,
      entry('before-first-apply', 'Update', { 'f:data': { 'f:b': {} } }),
      entry('kubectl', 'Apply', { 'f:metadata': { 'f:labels': { 'f:k': {} } } }),
      entry('kubectl-edit', 'Update', { 'f:data': { 'f:e': {} } }),
      entry('kubectl', 'Update', { 'f:status': {} }, { subresource: 'status' }),
      entry('helm-operator', 'Update', { 'f:data': { 'f:o': {} } }),
      entry('kubectl', 'Apply', {}, {}),
    ];
    const replaced = replaceFieldManagers(entries, 'timoni')!;
    expect(replaced.map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`)).toEqual([
      'kubectl/Update/status',
      'helm-operator/Update',
      'timoni/Apply',
    ]);
    expect(replaced[2]!.fieldsV1).toEqual({
      'f:data': { 'f:a': {}, 'f:h': {}, 'f:b': {}, 'f:e': {} },
      'f:metadata': { 'f:labels': { 'f:k': {} } },
    });
    expect(replaceFieldManagers([timoni, entry('flux', 'Apply', {})], 'timoni')).toBeNull();
  });

  it('builds one JSON patch: test the version, drop kubectl/Helm annotations, replace managedFields', () => {
    const live: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        resourceVersion: '42',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{}',
          'meta.helm.sh/release-name': 'r',
          keep: 'me',
        },
        managedFields: [entry('kubectl-client-side-apply', 'Update', { 'f:data': {} })],
      },
    };
    expect(takeOwnershipPatch(live, 'timoni')).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      { op: 'remove', path: '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration' },
      { op: 'remove', path: '/metadata/annotations/meta.helm.sh~1release-name' },
      {
        op: 'replace',
        path: '/metadata/managedFields',
        value: [{ ...live.metadata.managedFields![0], manager: 'timoni', operation: 'Apply' }],
      },
    ]);
    expect(
      takeOwnershipPatch({ ...live, metadata: { name: 'c', managedFields: [entry('timoni', 'Apply', {})] } }, 'timoni'),
    ).toEqual([]);
  });
});

// Fields set with kubectl or Helm are taken over by Timoni's field manager before the apply,
// so that fields the module no longer sets are removed (as Timoni does).
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

function desired(namespace: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 'desired' } };
}

/** Creates the ConfigMap as `kubectl apply` (client-side) does: an Update by kubectl-client-side-apply. */
async function kubectlCreate(admin: KubeClient, namespace: string, name: string): Promise<void> {
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: { a: 'by-kubectl', extra: 'left-over' },
  };
  await admin.requestJson('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    query: { fieldManager: 'kubectl-client-side-apply' },
    body: JSON.stringify({
      ...object,
      metadata: { ...object.metadata, annotations: { [lastApplied]: JSON.stringify(object) } },
    }),
    contentType: 'application/json',
  });
}

const managers = (object: KubeObject) =>
  (object.metadata.managedFields ?? []).map((entry) => `${entry.manager}/${entry.operation}`).sort();

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
    await admin.requestJson('PATCH', path, {
      query: { fieldManager: 'kubectl-edit' },
      body: JSON.stringify({ data: { edited: 'by-hand' } }),
      contentType: 'application/merge-patch+json',
    });
    await admin.requestJson('PATCH', path, {
      query: { fieldManager: 'kubectl', force: 'true' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'merged', namespace: ns, labels: { ssa: 'kubectl' } },
      }),
      contentType: 'application/apply-patch+yaml',
    });
    await admin.requestJson('PATCH', path, {
      query: { fieldManager: 'helm' },
      body: JSON.stringify({
        metadata: { annotations: { 'meta.helm.sh/release-name': 'old' } },
        data: { helm: 'chart' },
      }),
      contentType: 'application/merge-patch+json',
    });
    await admin.requestJson('PATCH', path, {
      query: { fieldManager: 'someone-else' },
      body: JSON.stringify({ data: { kept: 'theirs' } }),
      contentType: 'application/merge-patch+json',
    });
    const before = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'merged' });
    expect(managers(before as KubeObject)).toEqual([
      'helm/Update',
      'kubectl-edit/Update',
      'kubectl/Apply',
      'someone-else/Update',
      'timoni/Apply',
    ]);

    expect((await applyObject(cluster, desired(ns, 'merged'))).action).toBe('configured');
    const after = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'merged' });
    expect(after.data).toEqual({ a: 'desired', kept: 'theirs' });
    expect(after.metadata.labels?.ssa).toBeUndefined();
    expect(after.metadata.annotations?.['meta.helm.sh/release-name']).toBeUndefined();
    expect(managers(after as KubeObject)).toEqual(['someone-else/Update', 'timoni/Apply']);
  });
});
