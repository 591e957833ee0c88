// Objects an instance no longer has (prune) or all of them (delete): removed in reverse
// apply order, only when the live object carries the instance's owner labels and is not
// annotated `action.timoni.sh/prune: disabled` (fluxcd ssa DeleteAll with Timoni's
// inclusions and exclusions). The same rules, without writing, for a diff.
import type { ObjectChange } from '../../changeset.js';
import { sortForApply, sortForDelete, wholeObjectDiff } from '../ssa/index.js';
import { type KubeCluster, NoMatchError } from '../connect/index.js';
import { ownedBy } from './instance.js';
import { inventoryEntryId, parseInventoryEntry, type DecodedInstanceSecret, type InventoryEntry } from './inventory.js';
import { annotations, anyInMetadata, disabledValue, formatRef, type KubeObject, type ObjectRef } from '../object.js';

function refsOf(entries: InventoryEntry[] | null | undefined): ObjectRef[] {
  return (entries ?? []).map(parseInventoryEntry);
}

/**
 * Objects of the stored inventory, and of the pending revision of an unfinished upgrade,
 * that the new inventory lacks; in apply order, without duplicates (Timoni's stale objects).
 */
export function staleObjects(stored: DecodedInstanceSecret | null, next: InventoryEntry[]): ObjectRef[] {
  if (!stored) return [];
  const keep = new Set(next.map((entry) => entry.id));
  const seen = new Set<string>();
  const stale: ObjectRef[] = [];
  for (const ref of [...refsOf(stored.instance.inventory?.entries), ...refsOf(stored.pending?.inventory?.entries)]) {
    const id = inventoryEntryId(ref);
    if (keep.has(id) || seen.has(id)) continue;
    seen.add(id);
    stale.push(ref);
  }
  return sortForApply(stale);
}

/** Every object of the stored record and of its pending revision, in apply order, without duplicates. */
export function inventoryObjects(stored: DecodedInstanceSecret): ObjectRef[] {
  return staleObjects(stored, []);
}

/** The whole live object as removed lines (Secret data masked). */
export function deletedDiff(live: KubeObject): string {
  return wholeObjectDiff(live, 'deleted');
}

const change = (ref: ObjectRef, action: ObjectChange['action'], diff: string): ObjectChange => ({
  kind: ref.kind,
  apiVersion: ref.apiVersion,
  namespace: ref.namespace,
  name: ref.name,
  action,
  diff,
});

/** Why an object of the inventory is left in place, or null when it goes. */
function keepReason(live: KubeObject, owner: { name: string; namespace: string }): string | null {
  if (!ownedBy(live, owner)) return 'not labelled as an object of this instance';
  if (anyInMetadata(live, { [annotations.prune]: disabledValue }))
    return `annotated ${annotations.prune}: ${disabledValue}`;
  return null;
}

export interface DeleteObjectsOptions {
  /** Only say what would happen (a diff): nothing is deleted. */
  dryRun?: boolean;
  log?: (line: string) => void;
}

/** Deleting some objects failed; the others were deleted (or skipped) as said in `changes`. */
export class DeleteObjectsError extends Error {
  override name = 'DeleteObjectsError';
  constructor(
    readonly cluster: string,
    readonly changes: ObjectChange[],
    readonly failures: Array<{ object: string; error: Error }>,
  ) {
    super(
      `cluster ${cluster}: deleting ${failures.length} object(s) failed: ${failures.map((f) => f.error.message.replace(`cluster ${cluster}: `, '')).join('; ')}`,
    );
  }

  get object(): string | undefined {
    return this.failures[0]?.object;
  }
}

/**
 * Deletes the objects in reverse apply order, background propagation; answers one change
 * per object: `deleted` (also when it was already gone), or `skipped` when its labels or
 * annotations keep it. Every object is tried; failures are thrown together at the end.
 */
export async function deleteObjects(
  cluster: KubeCluster,
  refs: readonly ObjectRef[],
  owner: { name: string; namespace: string },
  options: DeleteObjectsOptions = {},
): Promise<ObjectChange[]> {
  const changes: ObjectChange[] = [];
  const failures: Array<{ object: string; error: Error }> = [];
  for (const ref of sortForDelete(refs)) {
    try {
      let live: KubeObject | null;
      try {
        live = await cluster.get(ref);
      } catch (error) {
        // Its kind is no longer served (the CRD went first): nothing is left of it.
        if (!(error instanceof NoMatchError)) throw error;
        live = null;
      }
      if (!live) {
        changes.push(change(ref, 'deleted', ''));
        continue;
      }
      const reason = keepReason(live, owner);
      if (reason) {
        options.log?.(`${formatRef(ref)} skipped (${reason})`);
        changes.push(change(ref, 'skipped', ''));
        continue;
      }
      if (!options.dryRun) await cluster.delete(ref, 'Background');
      options.log?.(`${formatRef(ref)} deleted${options.dryRun ? ' (server dry run)' : ''}`);
      changes.push(change(ref, 'deleted', deletedDiff(live)));
    } catch (error) {
      failures.push({ object: formatRef(ref), error: error as Error });
    }
  }
  if (failures.length > 0) throw new DeleteObjectsError(cluster.name, changes, failures);
  return changes;
}
