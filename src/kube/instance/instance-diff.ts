// What applying one built instance would change, without writing anything (Timoni's
// `bundle apply --diff`, internal/dyff InstanceDryRunDiff): a missing namespace makes every
// object `created` without asking the server; otherwise each object is diffed with a
// server-side dry-run; objects of the stored inventory (and of a pending revision) that
// the build lacks are `deleted`, unless their labels or a prune-disabled annotation keep
// them (`skipped`).
import type { ObjectChange } from '../../changeset.js';
import { applyStages, diffObject, wholeObjectDiff } from '../ssa/index.js';
import { settleBounded } from '../../concurrency.js';
import type { KubeCluster } from '../connect/index.js';
import { instanceId, InstanceStepError, labelledSets, type BuiltInstanceInput, type InstanceStep } from './instance.js';
import { deleteObjects, staleObjects } from './instance-prune.js';
import { inventoryEntries, type DecodedInstanceSecret } from './inventory.js';
import { namespaceExists, readInstance } from './inventory-store.js';
import { formatRef, type ObjectRef } from '../object.js';
import { ownershipConflict, OwnershipConflictError } from './ownership.js';
import {
  refusedChange,
  reservedObjectMessage,
  reservedObjectReason,
  type ReservedObjectRules,
} from './reserved-objects.js';

export interface InstanceDiffOptions extends ReservedObjectRules {
  /** Immutable-field changes become `recreated` instead of an error. */
  force?: boolean;
  /** Do not report instances owned by another bundle (or none) as a conflict. */
  overwriteOwnership?: boolean;
  /** Report stale objects as `deleted` (default true, as apply prunes by default). */
  prune?: boolean;
  /** Objects diffed at once (default OBJECTS_DIFFED_AT_ONCE). */
  concurrency?: number;
}

/**
 * Objects of one instance dry-run at once, as Timoni's apply concurrency: not the run's
 * `concurrency` option (clusters diffed at once, ../../fleet/run-options.ts), which a plan
 * multiplies by this and by the instances of a cluster diffed at once.
 */
const OBJECTS_DIFFED_AT_ONCE = 4;

export interface InstanceDiffResult {
  /** Per object in apply order (a namespace to create first, objects to prune last). */
  changes: ObjectChange[];
  /** False when the instance namespace does not exist yet. */
  namespaceExists: boolean;
}

/** Diffs the instance; throws an InstanceStepError (`ownership` or `diff`) with the changes found before. */
export async function diffInstance(
  cluster: KubeCluster,
  instance: BuiltInstanceInput,
  options: InstanceDiffOptions = {},
): Promise<InstanceDiffResult> {
  const id = instanceId(instance);
  const changes: ObjectChange[] = [];
  const fail = (step: InstanceStep, error: unknown, object?: string): never => {
    throw new InstanceStepError(cluster.name, step, id, [...changes], error, object);
  };

  // The instance's stored record, read once: for the ownership check, and later for what
  // to prune (a dry-run changes nothing in between). Undefined while not read.
  let stored: DecodedInstanceSecret | null | undefined;
  if (!options.overwriteOwnership) {
    try {
      stored = await readInstance(cluster, instance.name, instance.namespace);
      const conflict = ownershipConflict(stored, instance.bundle, instance);
      if (conflict) throw new OwnershipConflictError(cluster.name, instance.bundle, [conflict]);
    } catch (error) {
      fail('ownership', error);
    }
  }

  // A stored record lives in the instance's namespace: the namespace exists then.
  let exists = true;
  if (!stored) {
    try {
      exists = await namespaceExists(cluster, instance.namespace);
    } catch (error) {
      fail('diff', error, `Namespace/${instance.namespace}`);
    }
  }
  if (!exists) {
    const namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: instance.namespace, labels: { 'app.kubernetes.io/created-by': 'timoni' } },
    };
    changes.push({
      kind: 'Namespace',
      apiVersion: 'v1',
      namespace: '',
      name: instance.namespace,
      action: 'created',
      diff: wholeObjectDiff(namespace),
    });
  }

  // Objects in apply order, diffed a few at a time; the first failure (in that order) is reported.
  const sets = labelledSets(instance);
  const ordered = sets.flatMap((set) => applyStages(set.objects).flatMap((stage) => stage.objects));
  // An object that is (or looks like) a record read back from clusters is refused, never
  // dry-run: `failed` with the reason (reserved-objects.ts).
  const outcomes = await settleBounded(ordered, options.concurrency ?? OBJECTS_DIFFED_AT_ONCE, async (object) => {
    const reserved = reservedObjectReason(object, options);
    if (reserved) return refusedChange(object, reservedObjectMessage(object, reserved));
    return diffObject(cluster, object, { namespaceExists: exists, force: options.force });
  });
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'rejected') fail('diff', outcome.reason, formatRef(ordered[index]!));
    else changes.push(outcome.value);
  });

  // Without its namespace the instance has no stored record: nothing to prune.
  if (exists && (options.prune ?? true)) {
    try {
      const record = stored === undefined ? await readInstance(cluster, instance.name, instance.namespace) : stored;
      const refs: ObjectRef[] = await Promise.all(
        sets.flatMap((set) => set.objects).map((object) => cluster.scopedRef(object)),
      );
      const stale = staleObjects(record, inventoryEntries(refs));
      changes.push(...(await deleteObjects(cluster, stale, instance, { dryRun: true })));
    } catch (error) {
      const object = (error as { object?: unknown }).object;
      fail('diff', error, typeof object === 'string' ? object : undefined);
    }
  }
  return { changes, namespaceExists: exists };
}
