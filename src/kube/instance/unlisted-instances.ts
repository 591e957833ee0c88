// Instances removed from the bundle (beyond Timoni, which leaves them in place): instance
// Secrets that carry this bundle's label (`bundle.timoni.sh/name`) but whose instance the
// bundle no longer lists on this cluster. Another bundle's instances (or unlabelled ones)
// are never selected, nor is a Secret that is not a record Timoni would have written
// (record-checks.ts: its name, namespace, type and labels agree with the instance it names):
// it is reported in `ignored`, never acted on. The diff says what deleting them would do; the rollout deletes them
// as `bundle delete` does (objects in reverse apply order, owner-label and prune rules,
// the same waits, the Secret last).
//
// Listing, without needing to list Secrets across the cluster: the whole cluster's Secrets
// with the bundle's labels when the credentials may; on 403 (a ServiceAccount confined to
// its namespaces by Roles), the Secrets of each namespace the credentials can list
// Namespaces for (a `list namespaces` right reveals no Secret), a few at a time; when even
// that is refused, the namespaces of the bundle's own instances. Namespaces whose Secrets
// may not be listed are reported as unchecked, not as an error: an apply needs no list
// right, and should not be lost for want of one.
import type { ObjectChange } from '../../changeset.js';
import { settleBounded } from '../../concurrency.js';
import { KubeApiError, type KubeCluster } from '../connect/index.js';
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
  /**
   * Where the Secrets were listed: across the cluster; in every namespace the credentials
   * can see; or only in the bundle's namespaces (Namespaces could not be listed either).
   */
  scope: 'cluster' | 'namespaces' | 'bundle-namespaces';
  /** Namespaces whose Secrets could not be listed (403): not checked. */
  unchecked: string[];
  /**
   * Secrets under the bundle's labels that are not records Timoni would have written
   * (record-checks.ts): left out of the scan, never deleted; each message names the Secret and why.
   */
  ignored: string[];
}

const key = (instance: InstanceKey) => `${instance.namespace}/${instance.name}`;

function isForbidden(error: unknown): boolean {
  return error instanceof KubeApiError && error.status === 403;
}

/** Namespaces listed at once when the cluster's Secrets cannot be listed in one request. */
const NAMESPACE_CONCURRENCY = 8;

async function namespacesToList(
  cluster: KubeCluster,
  listed: readonly InstanceKey[],
): Promise<{ namespaces: string[]; scope: RemovedInstanceScan['scope'] }> {
  const own = [...new Set(listed.map((instance) => instance.namespace))];
  try {
    const all = await cluster.list('v1', 'Namespace', '');
    return {
      namespaces: [...new Set([...own, ...all.map((namespace) => namespace.metadata.name)])],
      scope: 'namespaces',
    };
  } catch (error) {
    if (!isForbidden(error)) throw error;
    return { namespaces: own, scope: 'bundle-namespaces' };
  }
}

async function listStored(
  cluster: KubeCluster,
  bundle: string,
  listed: readonly InstanceKey[],
): Promise<Omit<RemovedInstanceScan, 'removed'> & { stored: DecodedInstanceSecret[] }> {
  const ignored: string[] = [];
  const onIgnored = (message: string) => ignored.push(message);
  try {
    return { stored: await listInstances(cluster, '', bundle, onIgnored), scope: 'cluster', unchecked: [], ignored };
  } catch (error) {
    if (!isForbidden(error)) throw error;
  }
  const { namespaces, scope } = await namespacesToList(cluster, listed);
  const outcomes = await settleBounded(namespaces, NAMESPACE_CONCURRENCY, (namespace) =>
    listInstances(cluster, namespace, bundle, onIgnored),
  );
  const stored: DecodedInstanceSecret[] = [];
  const unchecked: string[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') stored.push(...outcome.value);
    else if (isForbidden(outcome.reason)) unchecked.push(namespaces[index]!);
    else throw outcome.reason;
  });
  const created = (record: DecodedInstanceSecret) => record.instance.creationTimestamp ?? '';
  stored.sort((a, b) => (created(a) < created(b) ? -1 : created(a) > created(b) ? 1 : 0));
  return { stored, scope, unchecked, ignored };
}

/** The stored instances of `bundle` on the cluster that `listed` (the bundle's instances here) lacks. */
export async function findRemovedInstances(
  cluster: KubeCluster,
  bundle: string,
  listed: readonly InstanceKey[],
): Promise<RemovedInstanceScan> {
  const { stored, scope, unchecked, ignored } = await listStored(cluster, bundle, listed);
  const keep = new Set(listed.map(key));
  const removed = stored.filter(
    (record) => record.instance.labels?.[bundleNameLabel] === bundle && !keep.has(key(record.instance)),
  );
  return { removed: removed.reverse(), scope, unchecked, ignored };
}

/**
 * What deleting a removed instance would do, nothing written: `deleted` for each object
 * that would go, `skipped` for one kept by its labels or annotations, or that one of the
 * bundle's instances builds (it takes the object over before removed instances go).
 */
export async function diffRemovedInstance(
  cluster: KubeCluster,
  stored: DecodedInstanceSecret,
  builtIds: ReadonlySet<string>,
): Promise<ObjectChange[]> {
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
    .map((ref) => ({
      kind: ref.kind,
      apiVersion: ref.apiVersion,
      namespace: ref.namespace,
      name: ref.name,
      action: 'skipped',
      diff: '',
    }));
  return [...changes, ...kept];
}

/** Deletes a removed instance as `bundle delete` does; throws an InstanceStepError naming the step. */
export function deleteRemovedInstance(
  cluster: KubeCluster,
  stored: DecodedInstanceSecret,
  options: InstanceDeleteOptions,
  deadline: number,
): Promise<DeletedInstance> {
  return deleteStoredInstance(cluster, stored, options, deadline);
}

/** How many objects a removed instance's changes delete (or would). */
export function deletedCount(changes: readonly ObjectChange[]): number {
  return changes.filter((change) => change.action === 'deleted').length;
}
