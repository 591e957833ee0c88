// The two writes Timoni v0.32 makes to an instance Secret besides the full record
// (internal/runtime/storage.go): the pending revision of an upgrade, saved before the
// cluster is touched, next to the stored record left byte for byte as it was; and the
// `status.timoni.sh/deleting` mark of an instance being deleted.
import { serverSideApply, fieldManager } from '../ssa/index.js';
import type { KubeCluster } from '../connect/index.js';
import {
  encodeInstance,
  instanceDataKey,
  instanceSecret,
  instanceSecretName,
  pendingDataKey,
  rfc3339,
  type InstanceRecord,
} from './inventory.js';
import { isRecord, type ObjectRef } from '../object.js';

/** Annotation on an instance Secret whose objects are being deleted (Timoni's DeleteInProgressAnnotation). */
export const deletingAnnotation = 'status.timoni.sh/deleting';

const secretRef = (name: string, namespace: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name: instanceSecretName(name),
});

/**
 * Saves `pending` as `data.pending` of the existing instance Secret, keeping `data.instance`
 * and the Secret's labels untouched (one server-side apply); answers the pending record.
 */
export async function savePending(
  cluster: KubeCluster,
  pending: InstanceRecord,
  now: Date = new Date(),
): Promise<InstanceRecord> {
  const where = `Secret/${pending.namespace}/${instanceSecretName(pending.name)}`;
  const existing = await cluster.get(secretRef(pending.name, pending.namespace));
  if (!existing) throw new Error(`cluster ${cluster.name}: ${where}: instance storage not found`);
  const data = isRecord(existing.data) ? existing.data : {};
  const stored = data[instanceDataKey];
  if (typeof stored !== 'string') throw new Error(`cluster ${cluster.name}: instance data not found in ${where}`);

  const record: InstanceRecord = { ...pending, lastTransitionTime: rfc3339(now) };
  delete record.creationTimestamp;
  const secret = instanceSecret({ ...record, labels: undefined });
  secret.metadata.labels = { ...secret.metadata.labels, ...existing.metadata.labels };
  secret.data = { [instanceDataKey]: stored, [pendingDataKey]: Buffer.from(encodeInstance(record)).toString('base64') };
  await serverSideApply(cluster, secret);
  return record;
}

/** Marks the instance Secret as being deleted (merge patch of one annotation; the record stays). */
export async function markDeleting(
  cluster: KubeCluster,
  name: string,
  namespace: string,
  now: Date = new Date(),
): Promise<void> {
  const ref = secretRef(name, namespace);
  const { path } = await cluster.locate(ref);
  await cluster.client.request({
    method: 'PATCH',
    path,
    query: { fieldManager },
    body: { metadata: { annotations: { [deletingAnnotation]: rfc3339(now) } } },
    contentType: 'application/merge-patch+json',
    object: ref,
  });
}
