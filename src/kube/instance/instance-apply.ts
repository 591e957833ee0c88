// Applies one built instance to one cluster as Timoni v0.32's reconciler does
// (internal/reconciler/reconciler.go, interactive.go):
//   ownership check (nothing written before it) -> namespace -> inventory record
//   (install: the whole record first; upgrade with other objects: `data.pending`) ->
//   each apply set in stages (definitions, wait; classes, wait; Roles; the rest), then a
//   readiness wait when asked -> prune of the objects the build lost -> the final record.
// A readiness failure stops further sets but still lets the prune run, as in Timoni; the
// record is then not promoted, so the pending revision stays for the next run.
// A cancellation (`signal`, the run's SIGINT or SIGTERM) starts nothing new: the object
// being applied finishes, a wait ends at once, the prune is not started, and the record is
// written for what was applied (InstanceCancelledError says where and which record): every
// object applied -> the final record (with objects left unpruned still in its inventory, for
// the next run to prune); some -> the revision being applied as `data.pending` beside the
// stored one (an install's record, written first, lists them already); none -> nothing.
import { cancellationOf } from '../../cancellation.js';
import type { ObjectChange } from '../../changeset.js';
import { DEFAULT_TIMEOUT_MS } from '../../default-timeout.js';
import { applyObject, type ApplyResult, applyStages, comparesStatus, objectDiff, type ObjectDiff, recreateDiff, sortForApply, wholeObjectDiff } from '../ssa/index.js';
import { type KubeCluster, NoMatchError, withRequestDeadline } from '../connect/index.js';
import { instanceId, instanceRecord, InstanceStepError, labelledSets, type BuiltInstanceInput, type InstanceStep } from './instance.js';
import { DeleteObjectsError, deleteObjects, staleObjects } from './instance-prune.js';
import { inventoryEntries, type InstanceRecord, type InventoryEntry } from './inventory.js';
import { savePending } from './inventory-pending.js';
import { ensureNamespace, readInstance, writeInstance } from './inventory-store.js';
import { formatRef, refOf, type KubeObject, type ObjectRef } from '../object.js';
import { assertOwnership } from './ownership.js';
import { objectsToWaitFor, waitForDeletion, waitForReady, WaitError, type ReadinessCheck } from '../status/index.js';

export interface InstanceApplyOptions {
  /** Recreate objects whose immutable fields change (Timoni's `--force`). */
  force?: boolean;
  /** Take over an instance owned by another bundle, or by none. */
  overwriteOwnership?: boolean;
  /** Wait for each set's objects to be ready, and for pruned objects to be gone. */
  wait?: boolean;
  /** Time limit of the waits of this instance, all together; default 5 minutes (DEFAULT_TIMEOUT_MS, ../../default-timeout.ts). */
  timeoutMs?: number;
  /**
   * Give up waiting at this time (epoch ms) instead of `timeoutMs` after the start, when
   * several instances share one time limit (the rollout's, per cluster); `timeoutMs` is
   * then the whole limit that errors name.
   */
  deadline?: number;
  /** Delete objects the build no longer has (default true). With false they stay, and stay in the inventory. */
  prune?: boolean;
  /** Progress lines in Timoni's words (`Deployment/apps/web created`). */
  log?: (line: string) => void;
  /** The run's cancellation: aborted, the apply stops as the header says (InstanceCancelledError). */
  signal?: AbortSignal;
  /** First poll interval of the waits (default 250 ms). */
  pollIntervalMs?: number;
}

export interface InstanceApplyResult {
  /** Per object, in apply order (a created namespace first, pruned objects last as `deleted`). */
  changes: ObjectChange[];
  /** The last readiness of every object waited for (empty without `wait`). */
  readiness: ReadinessCheck[];
  /** The record stored in the instance Secret. */
  record: InstanceRecord;
  /** True when no instance was stored before. */
  installed: boolean;
}

const namespaceChange = (name: string): ObjectChange => ({
  kind: 'Namespace',
  apiVersion: 'v1',
  namespace: '',
  name,
  action: 'created',
  diff: wholeObjectDiff({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'app.kubernetes.io/created-by': 'timoni' } } }),
});

/** Which record a cancelled apply left: see the header. */
export type CancelledRecord = 'final' | 'pending' | 'install' | 'none';

/** The run was cancelled while the instance was applied: `step` is where, `record` what was written. */
export class InstanceCancelledError extends InstanceStepError {
  override name = 'InstanceCancelledError';
  constructor(
    cluster: string,
    step: InstanceStep,
    instance: string,
    changes: ObjectChange[],
    cause: unknown,
    object: string | undefined,
    readonly record: CancelledRecord,
    /** The last readiness known of the objects waited for, when the cancellation came during a wait. */
    readonly readiness: ReadinessCheck[] = [],
    /** Why the record could not be written, when it could not. */
    readonly recordError?: string,
  ) {
    super(cluster, step, instance, changes, cause, object);
    const signal = cause instanceof Error && cause.message ? cause.message : 'the run was cancelled';
    this.message = `cluster ${cluster}: instance ${instance}: ${signal} during ${step}${object ? ` (${object})` : ''}: ${cancelledRecordText(record)}${recordError ? `; writing the instance record failed: ${recordError}` : ''}`;
  }
}

function cancelledRecordText(record: CancelledRecord): string {
  switch (record) {
    case 'final':
      return 'every object was applied and the instance record written for them (readiness not waited for)';
    case 'pending':
      return "objects applied in part; the revision being applied is saved as the record's pending revision, the stored one stays the last complete apply";
    case 'install':
      return 'objects applied in part; the instance record written at install lists every object of the build';
    case 'none':
      return 'nothing of the instance was applied';
  }
}

/** Same set of entries, order ignored (Timoni's sameInventory, which compares id and version). */
function sameInventory(a: InventoryEntry[] | null | undefined, b: InventoryEntry[] | null | undefined): boolean {
  const set = (entries: InventoryEntry[] | null | undefined) => new Set((entries ?? []).map((e) => `${e.id}|${e.v}`));
  const x = set(a);
  const y = set(b);
  return x.size === y.size && [...x].every((key) => y.has(key));
}

/** The object's identity, with the namespace cleared when its kind is cluster-scoped. */
async function scopedRefs(cluster: KubeCluster, objects: KubeObject[]): Promise<ObjectRef[]> {
  return Promise.all(objects.map((object) => cluster.scopedRef(object)));
}

/** Applies one object and says what changed, with the diff of what apply changed. */
async function applyOne(cluster: KubeCluster, desired: KubeObject, ref: ObjectRef, force: boolean): Promise<{ change: ObjectChange; result: ApplyResult }> {
  let before: KubeObject | null = null;
  try {
    before = await cluster.get(refOf(desired));
  } catch (error) {
    if (!(error instanceof NoMatchError)) throw error;
  }
  const result = await applyObject(cluster, desired, { force });
  let diff: ObjectDiff = { diff: '' };
  if (result.action === 'created' || (result.action === 'recreated' && !before)) diff = { diff: wholeObjectDiff(desired) };
  else if (result.action === 'recreated' && before) diff = recreateDiff(before, desired, result.immutableFields ?? [], true);
  else if (result.action === 'configured' && before) diff = objectDiff(before, result.object, await comparesStatus(cluster, desired));
  return { change: { kind: ref.kind, apiVersion: ref.apiVersion, namespace: ref.namespace, name: ref.name, action: result.action, ...diff }, result };
}

/**
 * Applies the instance; throws an InstanceStepError naming the step (and object) that
 * failed, with the changes made before it.
 */
export function applyInstance(cluster: KubeCluster, instance: BuiltInstanceInput, options: InstanceApplyOptions = {}): Promise<InstanceApplyResult> {
  // Requests retried while an API server restarts (../connect/request-retry.ts) stop at the same deadline.
  const deadline = options.deadline ?? Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return withRequestDeadline(deadline, () => applyInstanceSteps(cluster, instance, { ...options, deadline }));
}

async function applyInstanceSteps(cluster: KubeCluster, instance: BuiltInstanceInput, options: InstanceApplyOptions): Promise<InstanceApplyResult> {
  const id = instanceId(instance);
  const log = options.log ?? (() => undefined);
  const deadline = options.deadline ?? Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const changes: ObjectChange[] = [];
  const readiness: ReadinessCheck[] = [];
  const fail = (step: InstanceStep, error: unknown, object?: string): never => {
    if (error instanceof InstanceStepError) throw error;
    throw new InstanceStepError(cluster.name, step, id, [...changes], error, object);
  };
  const waitOptions = () => ({ timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, deadline, signal: options.signal, intervalMs: options.pollIntervalMs });
  const cancelled = () => options.signal?.aborted === true;
  // What a cancellation has to record (see the header), filled in as the apply goes.
  const progress = { stored: false, appliedObjects: 0, allApplied: false, pruned: false, pendingSaved: false };
  let recordRefs = (): ObjectRef[] => [];
  const stopCancelled = async (step: InstanceStep, object?: string): Promise<never> => {
    let record: CancelledRecord = 'none';
    let recordError: string | undefined;
    try {
      if (progress.allApplied) {
        record = 'final';
        await writeInstance(cluster, instanceRecord(instance, recordRefs(), true));
      } else if (progress.appliedObjects > 0 && !progress.stored) {
        record = 'install';
      } else if (progress.appliedObjects > 0) {
        record = 'pending';
        if (!progress.pendingSaved) await savePending(cluster, instanceRecord(instance, recordRefs(), false));
      }
    } catch (error) {
      recordError = error instanceof Error ? error.message : String(error);
    }
    const reason: unknown = options.signal?.reason;
    const cause = cancellationOf(options.signal) ?? (reason instanceof Error ? reason : new Error('the run was cancelled'));
    throw new InstanceCancelledError(cluster.name, step, id, [...changes], cause, object, record, [...readiness], recordError);
  };

  // 1. Ownership, before anything is written.
  let stored: Awaited<ReturnType<typeof readInstance>> = null;
  try {
    if (!options.overwriteOwnership) {
      await assertOwnership(cluster, instance.bundle, [instance]);
    }
    stored = await readInstance(cluster, instance.name, instance.namespace);
  } catch (error) {
    fail('ownership', error);
  }

  // 2. The namespace.
  if (cancelled()) await stopCancelled('namespace');
  try {
    if (await ensureNamespace(cluster, instance.namespace)) {
      changes.push(namespaceChange(instance.namespace));
      log(`Namespace/${instance.namespace} created`);
    }
  } catch (error) {
    fail('namespace', error, `Namespace/${instance.namespace}`);
  }

  // 3. The intended inventory, before the objects are touched.
  const sets = labelledSets(instance);
  const allObjects = sets.flatMap((set) => set.objects);
  const prune = options.prune ?? true;
  let refs: ObjectRef[] = [];
  let stale: ObjectRef[] = [];
  // What the record will hold: the build's objects, and without prune the stale ones too.
  let intended: ObjectRef[] = [];
  if (cancelled()) await stopCancelled('inventory');
  try {
    refs = await scopedRefs(cluster, allObjects);
    stale = staleObjects(stored, inventoryEntries(refs));
    intended = prune ? refs : [...refs, ...stale];
    if (!stored) {
      log(`installing ${instance.name} in namespace ${instance.namespace}`);
      await writeInstance(cluster, instanceRecord(instance, intended, false));
    } else {
      progress.stored = true;
      log(`upgrading ${instance.name} in namespace ${instance.namespace}`);
      if (!sameInventory(inventoryEntries(intended), stored.instance.inventory?.entries)) {
        await savePending(cluster, instanceRecord(instance, intended, false));
        progress.pendingSaved = true;
      }
    }
  } catch (error) {
    fail('inventory', error, `Secret/${instance.namespace}/timoni.${instance.name}`);
  }
  const refFor = new Map(allObjects.map((object, i) => [object, refs[i]!]));
  // A cancelled apply records every object of the build, and the stale ones until they are pruned.
  recordRefs = () => (prune && !progress.pruned ? [...refs, ...stale] : intended);

  // 4. The apply sets, in order; each in stages, then the readiness wait.
  let readinessError: unknown;
  for (const set of sets) {
    if (sets.length > 1) log(`applying ${set.name}`);
    for (const stage of applyStages(set.objects)) {
      for (const object of stage.objects) {
        const ref = refFor.get(object)!;
        if (cancelled()) await stopCancelled('apply', formatRef(ref));
        try {
          const { change } = await applyOne(cluster, object, ref, !!options.force);
          progress.appliedObjects += 1;
          progress.allApplied = progress.appliedObjects === allObjects.length;
          changes.push(change);
          log(`${formatRef(ref)} ${change.action}`);
        } catch (error) {
          fail('apply', error, formatRef(ref));
        }
      }
      if (stage.waitAfter) {
        // CRDs established, Namespaces active... before the objects that need them (all of
        // them, whatever their wait annotation, as fluxcd ssa's staged apply does).
        try {
          readiness.push(...(await waitForReady(cluster, stage.objects.map((o) => refFor.get(o)!), waitOptions())));
        } catch (error) {
          if (cancelled()) {
            if (error instanceof WaitError) readiness.push(...error.notReady);
            await stopCancelled('wait', waitObject(error));
          }
          fail('wait', error, waitObject(error));
        }
        if (stage.objects.some((o) => o.kind === 'CustomResourceDefinition')) await cluster.discovery.refresh();
      }
    }
    if (options.wait) {
      const waitFor = sortForApply(objectsToWaitFor(set.objects));
      log(`waiting for ${waitFor.length} resource(s) to become ready...`);
      try {
        const done = await waitForReady(cluster, waitFor, waitOptions());
        readiness.push(...done.filter((r) => !readiness.some((known) => formatRef(known.object) === formatRef(r.object))));
        log(`${set.name} resources ready`);
      } catch (error) {
        if (cancelled()) {
          if (error instanceof WaitError) readiness.push(...error.notReady.filter((r) => !readiness.some((known) => formatRef(known.object) === formatRef(r.object))));
          await stopCancelled('wait', waitObject(error));
        }
        // As Timoni: stop applying, but still prune what the build lost.
        readinessError = error;
        if (error instanceof WaitError) readiness.push(...error.notReady);
        break;
      }
    }
  }

  // 5. Prune what the build lost (not started once cancelled: the record keeps those objects).
  if (prune && cancelled() && !readinessError) await stopCancelled('prune');
  if (prune) {
    try {
      const pruned = await deleteObjects(cluster, stale, instance, { log });
      progress.pruned = true;
      changes.push(...pruned);
      if (options.wait) {
        const gone = pruned.filter((c) => c.action === 'deleted' && c.diff).map((c): ObjectRef => ({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name }));
        if (gone.length > 0) {
          log(`waiting for ${gone.length} resource(s) to be finalized...`);
          await waitForDeletion(cluster, gone, waitOptions());
        }
      }
    } catch (error) {
      if (error instanceof DeleteObjectsError) changes.push(...error.changes);
      if (progress.pruned && cancelled() && !readinessError) await stopCancelled('prune');
      const object = error instanceof DeleteObjectsError ? error.object : undefined;
      if (readinessError) {
        fail('wait', new Error(`${(readinessError as Error).message}; pruning failed too: ${(error as Error).message}`), waitObject(readinessError));
      }
      fail('prune', error, object);
    }
  }
  if (readinessError) fail('wait', readinessError, waitObject(readinessError));

  // 6. The final record (drops `data.pending`).
  let record: InstanceRecord;
  try {
    record = await writeInstance(cluster, instanceRecord(instance, intended, true));
  } catch (error) {
    return fail('inventory', error, `Secret/${instance.namespace}/timoni.${instance.name}`);
  }
  return { changes, readiness, record, installed: !stored };
}

function waitObject(error: unknown): string | undefined {
  if (!(error instanceof WaitError)) return undefined;
  const first = error.notReady.find((r) => r.status !== 'Current') ?? error.notReady[0];
  return first ? formatRef(first.object) : undefined;
}
