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
import { instanceRecordProblem } from './record-checks.js';

const secretRef = (name: string, namespace: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name: instanceSecretName(name),
});

/** An instance Secret that is not a record Timoni would have written (record-checks.ts). */
export class ForgedInstanceRecordError extends Error {
  override name = 'ForgedInstanceRecordError';
}

function decodeStored(cluster: KubeCluster, secret: KubeObject): DecodedInstanceSecret {
  try {
    return decodeInstanceSecret(secret);
  } catch (error) {
    throw new Error(
      `cluster ${cluster.name}: invalid instance found in Secret/${secret.metadata.namespace ?? ''}/${secret.metadata.name}: ${(error as Error).message}`,
    );
  }
}

/**
 * The stored instance, or null when there is none. The Secret is checked as every record
 * read back is (record-checks.ts): one found under the instance's record name that is not
 * a record Timoni would have written there (it names another instance, its labels or type
 * are not Timoni's) is taken for a forged one. It is not treated as absent (an apply would
 * then install over it, a diff would show a first install): the instance is refused
 * (ForgedInstanceRecordError, naming the Secret and why), so that nothing acts on it until
 * a person has looked.
 */
export async function readInstance(
  cluster: KubeCluster,
  name: string,
  namespace: string,
): Promise<DecodedInstanceSecret | null> {
  const secret = await cluster.get(secretRef(name, namespace));
  if (!secret) return null;
  const decoded = decodeStored(cluster, secret);
  const problem = instanceRecordProblem(secret, decoded);
  if (problem)
    throw new ForgedInstanceRecordError(
      `cluster ${cluster.name}: ${problem}; instance ${namespace}/${name} is refused: its record is not one Timoni would have written`,
    );
  return decoded;
}

/**
 * Instances in a namespace ('' = all), optionally of one bundle, oldest first. Only the
 * Secrets that are records Timoni would have written count (record-checks.ts); each other
 * one found under Timoni's labels is left out and told to `onIgnored` (by default on
 * stderr, as a retry is), with the reason.
 */
export async function listInstances(
  cluster: KubeCluster,
  namespace: string,
  bundle?: string,
  onIgnored: (message: string) => void = ignoredToStderr,
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
    .flatMap((secret) => {
      let decoded: DecodedInstanceSecret;
      try {
        decoded = decodeStored(cluster, secret);
      } catch (error) {
        onIgnored(`${(error as Error).message}: ignored`);
        return [];
      }
      const problem = instanceRecordProblem(secret, decoded);
      if (!problem) return [decoded];
      onIgnored(`cluster ${cluster.name}: ${problem}`);
      return [];
    });
}

function ignoredToStderr(message: string): void {
  process.stderr.write(`${message}\n`);
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
