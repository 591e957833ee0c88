// The instance Secret format, compared with what Timoni v0.33.0's own code writes
// (fixtures/timoni-instance.json, produced by fixtures/timoni-inventory-oracle.go.txt).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodeInstanceSecret,
  encodeInstance,
  instanceSecret,
  inventoryEntries,
  inventoryEntryId,
  parseInventoryEntry,
  rfc3339,
  type InstanceRecord,
} from '../../../src/kube/instance/inventory.js';
import { moduleReference } from '../../../src/kube/instance/instance.js';
import type { ObjectRef } from '../../../src/kube/object.js';

const oracle = readFileSync(new URL('../fixtures/timoni-instance.json', import.meta.url), 'utf8')
  .trim()
  .split('\n');

// The same objects and instance as the oracle program, in the same (unsorted) order.
const objects: ObjectRef[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'podinfo' },
  { apiVersion: 'v1', kind: 'Service', namespace: 'apps', name: 'podinfo' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: '', name: 'system:podinfo' },
  { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'apps', name: 'podinfo' },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    namespace: '',
    name: 'things.example.com',
  },
  { apiVersion: 'example.com/v1beta1', kind: 'Thing', namespace: 'apps', name: 'one' },
  { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'b' },
  { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'a' },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    namespace: '',
    name: 'hook',
  },
  { apiVersion: 'batch/v1', kind: 'Job', namespace: 'apps', name: 'migrate' },
];

const podinfo: InstanceRecord = {
  name: 'podinfo',
  namespace: 'apps',
  labels: { 'bundle.timoni.sh/name': 'apps' },
  module: {
    name: 'timoni.sh/podinfo',
    repository: 'oci://ghcr.io/stefanprodan/modules/podinfo',
    version: '6.5.4',
    digest: 'sha256:abc',
    // Given out of order: Go's encoding/json writes map keys sorted.
    annotations: {
      'sh.timoni.images': 'ghcr.io/stefanprodan/podinfo:6.5.4,docker.io/curlimages/curl:8.21.0',
      'org.opencontainers.image.version': '6.5.4',
      'org.opencontainers.image.created': '2026-01-02T03:04:05Z',
    },
  },
  values: '{\n\tmessage: "<hello> & bye"\n\treplicas: 2\n}',
  lastTransitionTime: '2026-01-02T03:04:05Z',
  inventory: { entries: inventoryEntries(objects) },
  images: ['ghcr.io/stefanprodan/podinfo:6.5.4'],
};

describe('instance inventory format', () => {
  it('encodes an instance byte for byte as Timoni does', () => {
    expect(encodeInstance(podinfo)).toBe(oracle[0]);
  });

  it('encodes an instance without objects as Timoni does (null entries, no images)', () => {
    const empty: InstanceRecord = {
      name: 'empty',
      namespace: 'default',
      module: { name: 'm', repository: 'file://m', version: '0.0.0-devel', digest: '' },
      values: '',
      inventory: { entries: inventoryEntries([]) },
    };
    expect(encodeInstance(empty)).toBe(oracle[1]);
  });

  it('writes entry ids as cli-utils does and reads them back', () => {
    expect(inventoryEntryId({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'web' })).toBe(
      'apps_web_apps_Deployment',
    );
    expect(inventoryEntryId({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'apps' })).toBe(
      '_apps__Namespace',
    );
    expect(
      inventoryEntryId({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        namespace: '',
        name: 'system:x',
      }),
    ).toBe('_system__x_rbac.authorization.k8s.io_ClusterRole');
    for (const ref of objects) {
      expect(parseInventoryEntry({ id: inventoryEntryId(ref), v: ref.apiVersion.split('/').pop()! })).toEqual(ref);
    }
    expect(() => parseInventoryEntry({ id: 'nonsense', v: 'v1' })).toThrow(/not <namespace>_<name>_<group>_<kind>/);
  });

  it('builds the Secret Timoni stores and decodes it, labels from the Secret', () => {
    const secret = instanceSecret(podinfo);
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'timoni.podinfo',
        namespace: 'apps',
        labels: {
          'app.kubernetes.io/name': 'podinfo',
          'app.kubernetes.io/component': 'instance',
          'app.kubernetes.io/created-by': 'timoni',
          'bundle.timoni.sh/name': 'apps',
        },
      },
      type: 'timoni.sh/instance',
      data: { instance: Buffer.from(oracle[0]!).toString('base64') },
    });
    const decoded = decodeInstanceSecret({
      ...secret,
      metadata: { ...secret.metadata, creationTimestamp: '2026-01-01T00:00:00Z' },
    });
    expect(decoded.instance).toEqual({
      ...podinfo,
      labels: secret.metadata.labels,
      annotations: undefined,
      creationTimestamp: '2026-01-01T00:00:00Z',
    });
    expect(decoded.pending).toBeUndefined();
    const withPending = decodeInstanceSecret({
      ...secret,
      data: {
        instance: Buffer.from(oracle[0]!).toString('base64'),
        pending: Buffer.from(oracle[1]!).toString('base64'),
      },
    });
    expect(withPending.pending?.name).toBe('empty');
    expect(() => decodeInstanceSecret({ ...secret, data: {} })).toThrow(
      /Secret\/apps\/timoni.podinfo: instance data not found/,
    );
  });

  it('records a module as Timoni does: pulled with its repository and manifest annotations, local by path without them', () => {
    const annotations = {
      'org.opencontainers.image.version': '1.0.0',
      'sh.timoni.images': 'docker.io/nginx:1.31.4-alpine',
    };
    expect(
      moduleReference({
        url: 'oci://docker.io/org/app',
        repository: 'oci://index.docker.io/org/app',
        version: '1.0.0',
        digest: 'sha256:abc',
        name: 'timoni.sh/app',
        annotations,
      }),
    ).toEqual({
      name: 'timoni.sh/app',
      repository: 'oci://index.docker.io/org/app',
      version: '1.0.0',
      digest: 'sha256:abc',
      annotations,
    });
    expect(
      moduleReference({
        url: 'oci://ghcr.io/org/app',
        version: '1.0.0',
        digest: 'sha256:abc',
        name: 'timoni.sh/app',
        annotations: {},
      }),
    ).toEqual({
      name: 'timoni.sh/app',
      repository: 'oci://ghcr.io/org/app',
      version: '1.0.0',
      digest: 'sha256:abc',
    });
    // internal/engine/fetcher/local.go: the path as written, digest "unknown", no annotations.
    expect(
      moduleReference({
        url: 'file://./modules/app',
        version: '0.0.0-devel',
        digest: 'unknown',
        name: 'timoni.sh/app',
        annotations,
      }),
    ).toEqual({
      name: 'timoni.sh/app',
      repository: './modules/app',
      version: '0.0.0-devel',
      digest: 'unknown',
    });
  });

  it('formats times as Go time.RFC3339 in UTC', () => {
    expect(rfc3339(new Date('2026-11-22T02:03:04.567Z'))).toBe('2026-11-22T02:03:04Z');
  });
});
