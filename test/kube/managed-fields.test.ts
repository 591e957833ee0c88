import { describe, expect, it } from 'vitest';
import { replaceFieldManagers, takeOwnershipPatch, unionFields } from '../../src/kube/managed-fields.js';
import type { KubeObject, ManagedFieldsEntry } from '../../src/kube/object.js';

const entry = (manager: string, operation: string, fields: Record<string, unknown>, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
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
    expect(unionFields({ 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }, { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:y': {} } } })).toEqual({
      'f:data': { 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:x': {}, 'f:y': {} } },
    });
  });

  it('renames the first match to timoni/Apply when timoni owns nothing yet', () => {
    const entries = [entry('kubectl-client-side-apply', 'Update', { 'f:data': { 'f:a': {} } }), entry('kube-controller-manager', 'Update', { 'f:status': {} })];
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
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'meta.helm.sh/release-name': 'r', keep: 'me' },
        managedFields: [entry('kubectl-client-side-apply', 'Update', { 'f:data': {} })],
      },
    };
    expect(takeOwnershipPatch(live, 'timoni')).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      { op: 'remove', path: '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration' },
      { op: 'remove', path: '/metadata/annotations/meta.helm.sh~1release-name' },
      { op: 'replace', path: '/metadata/managedFields', value: [{ ...live.metadata.managedFields![0], manager: 'timoni', operation: 'Apply' }] },
    ]);
    expect(takeOwnershipPatch({ ...live, metadata: { name: 'c', managedFields: [entry('timoni', 'Apply', {})] } }, 'timoni')).toEqual([]);
  });
});
