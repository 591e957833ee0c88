// Instance ownership between bundles, checked before anything is written (Timoni's
// bundleInstancesOwnershipConflicts): an instance Secret that exists without the bundle
// label, or with another bundle's, is a conflict unless ownership is overwritten.
import type { KubeCluster } from '../connect/index.js';
import { bundleNameLabel, type DecodedInstanceSecret } from './inventory.js';
import { readInstance } from './inventory-store.js';

export interface OwnershipConflict {
  instance: string;
  namespace: string;
  /** The bundle that owns the instance now; empty when none does. */
  currentBundle: string;
}

/** Timoni's message for the conflicts, with its advice. */
export function ownershipConflictMessage(conflicts: readonly OwnershipConflict[]): string {
  const each = conflicts.map((c) =>
    c.currentBundle
      ? `instance "${c.instance}" exists and is managed by another bundle "${c.currentBundle}"`
      : `instance "${c.instance}" exists and is not managed by any bundle`,
  );
  return `instance ownership conflict encountered. Conflict: ${each.join('; ')} Apply with "--overwrite-ownership" to gain instance ownership.`;
}

export class OwnershipConflictError extends Error {
  override name = 'OwnershipConflictError';
  constructor(
    readonly cluster: string,
    readonly bundle: string,
    readonly conflicts: OwnershipConflict[],
  ) {
    super(`cluster ${cluster}: bundle ${bundle}: ${ownershipConflictMessage(conflicts)}`);
  }
}

/** The instances of `bundle` that exist in the cluster and belong to another bundle or to none. */
export async function findOwnershipConflicts(
  cluster: KubeCluster,
  bundle: string,
  instances: ReadonlyArray<{ name: string; namespace: string }>,
): Promise<OwnershipConflict[]> {
  const conflicts: OwnershipConflict[] = [];
  for (const instance of instances) {
    const conflict = ownershipConflict(
      await readInstance(cluster, instance.name, instance.namespace),
      bundle,
      instance,
    );
    if (conflict) conflicts.push(conflict);
  }
  return conflicts;
}

/** The conflict an instance's stored record (null: none stored) makes for `bundle`, if any. */
export function ownershipConflict(
  stored: DecodedInstanceSecret | null,
  bundle: string,
  instance: { name: string; namespace: string },
): OwnershipConflict | null {
  if (!stored) return null;
  const owner = stored.instance.labels?.[bundleNameLabel] ?? '';
  return owner === bundle ? null : { instance: instance.name, namespace: instance.namespace, currentBundle: owner };
}

/** Throws an OwnershipConflictError when any instance of the bundle is owned elsewhere. */
export async function assertOwnership(
  cluster: KubeCluster,
  bundle: string,
  instances: ReadonlyArray<{ name: string; namespace: string }>,
): Promise<void> {
  const conflicts = await findOwnershipConflicts(cluster, bundle, instances);
  if (conflicts.length > 0) throw new OwnershipConflictError(cluster.name, bundle, conflicts);
}
