// Instances removed from the bundle (beyond Timoni, which leaves them in place): instance
// Secrets that carry this bundle's label (`bundle.timoni.sh/name`) but whose instance the
// bundle no longer lists on this cluster. Another bundle's instances (or unlabelled ones)
// are never selected. The diff says what deleting them would do; the rollout deletes them
// as `bundle delete` does (objects in reverse apply order, owner-label and prune rules,
// the same waits, the Secret last).
//
// Listing: the whole cluster's Secrets with the bundle's labels when the credentials may; a
// ServiceAccount confined to the bundle's namespaces (Roles, no ClusterRole on Secrets) gets
// 403 for that, and then each of the bundle's namespaces is listed instead. A namespace
// where even that is refused is reported as unchecked, not as an error: applying needs no
// list right, and the user should not lose the apply for want of it.
import type { ObjectChange } from '../fleet/changeset.js';
import type { KubeCluster } from './cluster.js';
import { KubeApiError } from './errors.js';
import { deleteStoredInstance, type DeletedInstance, type InstanceDeleteOptions } from './instance-delete.js';
import { deleteObjects, inventoryObjects } from './instance-prune.js';
import { bundleNameLabel, inventoryEntryId, type DecodedInstanceSecret } from './inventory.js';
import { listInstances } from './inventory-store.js';

export interface InstanceKey {
  name: string;
  namespace: string;
}

export interface RemovedInstanceScan {
  /** The bundle's stored instances it no longer lists, newest first (the order they are deleted in). */
  removed: DecodedInstanceSecret[];
  /** How the Secrets were listed: across the cluster, or per namespace of the bundle. */
  scope: 'cluster' | 'namespaces';
  /** Namespaces of the bundle whose Secrets could not be listed (403): not checked. */
  unchecked: string[];
}

const key = (instance: InstanceKey) => `${instance.namespace}/${instance.name}`;

function isForbidden(error: unknown): boolean {
  return error instanceof KubeApiError && error.status === 403;
}

/** The stored instances of `bundle` on the cluster that `listed` (the bundle's instances here) lacks. */
export async function findRemovedInstances(cluster: KubeCluster, bundle: string, listed: readonly InstanceKey[]): Promise<RemovedInstanceScan> {
  let stored: DecodedInstanceSecret[];
  let scope: RemovedInstanceScan['scope'] = 'cluster';
  const unchecked: string[] = [];
  try {
    stored = await listInstances(cluster, '', bundle);
  } catch (error) {
    if (!isForbidden(error)) throw error;
    scope = 'namespaces';
    stored = [];
    for (const namespace of [...new Set(listed.map((instance) => instance.namespace))]) {
      try {
        stored.push(...(await listInstances(cluster, namespace, bundle)));
      } catch (inner) {
        if (!isForbidden(inner)) throw inner;
        unchecked.push(namespace);
      }
    }
    const created = (record: DecodedInstanceSecret) => record.instance.creationTimestamp ?? '';
    stored.sort((a, b) => (created(a) < created(b) ? -1 : created(a) > created(b) ? 1 : 0));
  }
  const keep = new Set(listed.map(key));
  const removed = stored.filter((record) => record.instance.labels?.[bundleNameLabel] === bundle && !keep.has(key(record.instance)));
  return { removed: removed.reverse(), scope, unchecked };
}

/**
 * What deleting a removed instance would do, nothing written: `deleted` for each object
 * that would go, `skipped` for one kept by its labels or annotations, or that one of the
 * bundle's instances builds (it takes the object over before removed instances go).
 */
export async function diffRemovedInstance(cluster: KubeCluster, stored: DecodedInstanceSecret, builtIds: ReadonlySet<string>): Promise<ObjectChange[]> {
  const refs = inventoryObjects(stored);
  const taken = new Set(refs.filter((ref) => builtIds.has(inventoryEntryId(ref))).map(inventoryEntryId));
  const changes = await deleteObjects(
    cluster,
    refs.filter((ref) => !taken.has(inventoryEntryId(ref))),
    stored.instance,
    { dryRun: true },
  );
  const kept: ObjectChange[] = refs
    .filter((ref) => taken.has(inventoryEntryId(ref)))
    .map((ref) => ({ kind: ref.kind, apiVersion: ref.apiVersion, namespace: ref.namespace, name: ref.name, action: 'skipped', diff: '' }));
  return [...changes, ...kept];
}

/** Deletes a removed instance as `bundle delete` does; throws an InstanceStepError naming the step. */
export function deleteRemovedInstance(cluster: KubeCluster, stored: DecodedInstanceSecret, options: InstanceDeleteOptions, deadline: number): Promise<DeletedInstance> {
  return deleteStoredInstance(cluster, stored, options, deadline);
}

/** How many objects a removed instance's changes delete (or would). */
export function deletedCount(changes: readonly ObjectChange[]): number {
  return changes.filter((change) => change.action === 'deleted').length;
}
