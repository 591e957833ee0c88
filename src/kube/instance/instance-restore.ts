// What a rollback needs of an instance at the Kubernetes level: its state before a run
// (Timoni's instance Secret as it was, raw and decoded, or none for a first install), and
// that Secret written back exactly as it was (same type, labels, annotations and data bytes:
// `data.instance`, and `data.pending` when there was one), so that `timoni bundle status` and
// `timoni inspect values` read the old revision again. The objects themselves are put back by
// applying the previous build (instance-apply.ts) or deleting the instance (instance-delete.ts).
import { serverSideApply } from '../ssa/index.js';
import type { KubeCluster } from '../connect/index.js';
import { decodeInstanceSecret, instanceDataKey, instanceSecretName, type DecodedInstanceSecret } from './inventory.js';
import { isRecord, type KubeObject, type ObjectRef } from '../object.js';

/** One instance's state before a run changed it. */
export interface InstanceSnapshot {
  name: string;
  namespace: string;
  /** Timoni's instance Secret as read (null: the instance was not installed). */
  secret: KubeObject | null;
  /** The same Secret decoded (null: not installed). */
  stored: DecodedInstanceSecret | null;
}

const secretRef = (name: string, namespace: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name: instanceSecretName(name),
});

/** Reads the instance's Secret before the run touches it. */
export async function snapshotInstance(
  cluster: KubeCluster,
  name: string,
  namespace: string,
): Promise<InstanceSnapshot> {
  const secret = await cluster.get(secretRef(name, namespace));
  if (!secret) return { name, namespace, secret: null, stored: null };
  try {
    return { name, namespace, secret, stored: decodeInstanceSecret(secret) };
  } catch (error) {
    throw new Error(
      `cluster ${cluster.name}: invalid instance found in Secret/${namespace}/${instanceSecretName(name)}: ${(error as Error).message}`,
    );
  }
}

/** The Secret's data as it was (base64 values by key). */
export function snapshotData(snapshot: InstanceSnapshot): Record<string, string> {
  const data = snapshot.secret && isRecord(snapshot.secret.data) ? snapshot.secret.data : {};
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, String(value)]));
}

/** Timoni's record as the snapshot's Secret stores it (`data.instance`, decoded), or null without one. */
export function snapshotRecordText(snapshot: InstanceSnapshot): string | null {
  const encoded = snapshotData(snapshot)[instanceDataKey];
  return encoded === undefined ? null : Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * Writes the instance Secret back as the snapshot holds it (server-side apply with Timoni's
 * field manager, which owns every field of it: a key the run added, `data.pending`, goes).
 * Throws when the snapshot holds no Secret.
 */
export async function writeBackInstance(cluster: KubeCluster, snapshot: InstanceSnapshot): Promise<void> {
  const secret = snapshot.secret;
  if (!secret)
    throw new Error(`cluster ${cluster.name}: instance ${snapshot.namespace}/${snapshot.name} had no record before`);
  const metadata: KubeObject['metadata'] = { name: secret.metadata.name, namespace: secret.metadata.namespace };
  if (secret.metadata.labels) metadata.labels = { ...secret.metadata.labels };
  if (secret.metadata.annotations) metadata.annotations = { ...secret.metadata.annotations };
  await serverSideApply(cluster, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata,
    ...(typeof secret.type === 'string' ? { type: secret.type } : {}),
    data: snapshotData(snapshot),
  });
}
