// Reading and writing instance Secrets on a cluster, as Timoni's StorageManager does.
import { fieldManager, isImmutableError, serverSideApply } from '../ssa/index.js';
import type { KubeCluster } from '../connect/index.js';
import {
  bundleNameLabel,
  decodeInstanceSecret,
  instanceLabels,
  instanceSecret,
  instanceSecretName,
  rfc3339,
  type DecodedInstanceSecret,
  type InstanceRecord,
} from './inventory.js';
import type { KubeObject, ObjectRef } from '../object.js';

const secretRef = (name: string, namespace: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name: instanceSecretName(name),
});

/** The stored instance, or null when there is none. */
export async function readInstance(
  cluster: KubeCluster,
  name: string,
  namespace: string,
): Promise<DecodedInstanceSecret | null> {
  const secret = await cluster.get(secretRef(name, namespace));
  if (!secret) return null;
  try {
    return decodeInstanceSecret(secret);
  } catch (error) {
    throw new Error(
      `cluster ${cluster.name}: invalid instance found in Secret/${namespace}/${instanceSecretName(name)}: ${(error as Error).message}`,
    );
  }
}

/** Instances in a namespace ('' = all), optionally of one bundle, oldest first. */
export async function listInstances(
  cluster: KubeCluster,
  namespace: string,
  bundle?: string,
): Promise<DecodedInstanceSecret[]> {
  const selector: Record<string, string> = {
    [instanceLabels.component]: 'instance',
    [instanceLabels.createdBy]: 'timoni',
  };
  if (bundle) selector[bundleNameLabel] = bundle;
  const secrets = await cluster.list('v1', 'Secret', namespace, selector);
  const created = (secret: KubeObject) => String(secret.metadata.creationTimestamp ?? '');
  return secrets
    .sort((a, b) => (created(a) < created(b) ? -1 : created(a) > created(b) ? 1 : 0))
    .map((secret) => {
      try {
        return decodeInstanceSecret(secret);
      } catch (error) {
        throw new Error(
          `cluster ${cluster.name}: invalid instance found in Secret/${secret.metadata.namespace}/${secret.metadata.name}: ${(error as Error).message}`,
        );
      }
    });
}

/**
 * Writes the instance Secret (server-side apply, field manager `timoni`), stamping
 * `lastTransitionTime`; answers the record as written.
 */
export async function writeInstance(
  cluster: KubeCluster,
  instance: InstanceRecord,
  now: Date = new Date(),
): Promise<InstanceRecord> {
  const written: InstanceRecord = { ...instance, lastTransitionTime: rfc3339(now) };
  delete written.creationTimestamp;
  const secret = instanceSecret(written);
  try {
    await serverSideApply(cluster, secret);
  } catch (error) {
    // Timoni recreates storage written with another Secret type (type is immutable).
    if (!isImmutableError(error)) throw error;
    await cluster.delete(secretRef(instance.name, instance.namespace));
    await serverSideApply(cluster, secret);
  }
  return written;
}

/** Removes the instance Secret; false when it was not there. */
export function deleteInstance(cluster: KubeCluster, name: string, namespace: string): Promise<boolean> {
  return cluster.delete(secretRef(name, namespace));
}

/** True when the namespace exists. */
export async function namespaceExists(cluster: KubeCluster, name: string): Promise<boolean> {
  return (await cluster.get({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name })) !== null;
}

/** Creates the namespace when missing, labelled as Timoni labels the ones it creates. */
export async function ensureNamespace(cluster: KubeCluster, name: string): Promise<boolean> {
  if (await namespaceExists(cluster, name)) return false;
  await serverSideApply(cluster, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { [instanceLabels.createdBy]: fieldManager } },
  });
  return true;
}
