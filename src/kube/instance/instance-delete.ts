// Deleting a bundle's instances from one cluster, as `timoni bundle delete` does: newest
// instance first; for each, the Secret is marked as being deleted (when waiting), the
// objects of its inventory (and of a pending revision) are deleted in reverse apply order
// with the owner-label and prune-disabled rules, their termination is awaited, and only
// then the instance Secret goes, so that a delete that timed out can be retried. The
// instance's history (history-store.ts) goes after it, as `helm uninstall` removes a
// release's: it holds the instance's values, which should not outlive it (one that cannot
// be removed is logged, the delete done).
import type { ObjectChange } from '../../changeset.js';
import { DEFAULT_TIMEOUT_MS } from '../../default-timeout.js';
import type { KubeCluster } from '../connect/index.js';
import { instanceId, InstanceStepError, type InstanceStep } from './instance.js';
import { deleteObjects, inventoryObjects } from './instance-prune.js';
import type { DecodedInstanceSecret } from './inventory.js';
import { markDeleting } from './inventory-pending.js';
import { deleteHistory, historySecretName } from './history-store.js';
import { deleteInstance, listInstances } from './inventory-store.js';
import type { ObjectRef } from '../object.js';
import { waitForDeletion } from '../status/index.js';

export interface InstanceDeleteOptions {
  /** Wait for the deleted objects to be gone before removing the instance Secret (default true). */
  wait?: boolean;
  /** Time limit of the wait, for all instances together; default 5 minutes (DEFAULT_TIMEOUT_MS, ../../default-timeout.ts). */
  timeoutMs?: number;
  log?: (line: string) => void;
  /** A Secret under the bundle's labels left alone: not a record Timoni would have written (default `log`). */
  onIgnored?: (message: string) => void;
  signal?: AbortSignal;
  pollIntervalMs?: number;
}

export interface DeletedInstance {
  name: string;
  namespace: string;
  /** Per object, in delete order: `deleted`, or `skipped` when kept by its labels or annotations. */
  changes: ObjectChange[];
}

/** Deletes one stored instance: its objects, then its Secret. */
export async function deleteStoredInstance(
  cluster: KubeCluster,
  stored: DecodedInstanceSecret,
  options: InstanceDeleteOptions = {},
  deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
): Promise<DeletedInstance> {
  const { name, namespace } = stored.instance;
  const id = instanceId(stored.instance);
  const wait = options.wait ?? true;
  let changes: ObjectChange[] = [];
  const fail = (step: InstanceStep, error: unknown, object?: string): never => {
    throw new InstanceStepError(cluster.name, step, id, [...changes], error, object);
  };
  options.log?.(`deleting instance ${name} in namespace ${namespace}`);
  try {
    if (wait) await markDeleting(cluster, name, namespace);
  } catch (error) {
    fail('delete', error, `Secret/${namespace}/timoni.${name}`);
  }
  try {
    changes = await deleteObjects(cluster, inventoryObjects(stored), stored.instance, { log: options.log });
  } catch (error) {
    const partial = error as { changes?: ObjectChange[]; object?: unknown };
    if (partial.changes) changes = partial.changes;
    fail('delete', error, typeof partial.object === 'string' ? partial.object : undefined);
  }
  if (wait) {
    const gone = changes
      .filter((c) => c.action === 'deleted' && c.diff)
      .map((c): ObjectRef => ({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name }));
    try {
      if (gone.length > 0) options.log?.(`waiting for ${gone.length} resource(s) to be finalized...`);
      await waitForDeletion(cluster, gone, {
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        deadline,
        signal: options.signal,
        intervalMs: options.pollIntervalMs,
      });
      if (gone.length > 0) options.log?.('all resources have been deleted');
    } catch (error) {
      fail('wait', error);
    }
  }
  try {
    await deleteInstance(cluster, name, namespace);
  } catch (error) {
    fail('inventory', error, `Secret/${namespace}/timoni.${name}`);
  }
  // The instance is gone: a history that cannot be removed is said, not a failed delete.
  try {
    await deleteHistory(cluster, name, namespace);
  } catch (error) {
    options.log?.(
      `Secret/${namespace}/${historySecretName(name)} (the instance's history) not deleted: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { name, namespace, changes };
}

/** Deletes every instance of the bundle in the cluster, newest first; stops at the first failure. */
export async function deleteBundleInstances(
  cluster: KubeCluster,
  bundle: string,
  options: InstanceDeleteOptions = {},
): Promise<DeletedInstance[]> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  // A Secret under the bundle's label that is not a record Timoni would have written is left
  // alone and said (record-checks.ts): its instance is not deleted.
  const stored = await listInstances(cluster, '', bundle, options.onIgnored ?? options.log);
  // As Timoni's bundle delete: said, and not an error.
  if (stored.length === 0) options.log?.('no instances found in bundle');
  const deleted: DeletedInstance[] = [];
  for (const instance of stored.reverse())
    deleted.push(await deleteStoredInstance(cluster, instance, options, deadline));
  return deleted;
}
