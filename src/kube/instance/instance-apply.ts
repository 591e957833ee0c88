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
import {
  applyObject,
  type ApplyResult,
  applyStages,
  comparesStatus,
  objectDiff,
  type ObjectDiff,
  recreateDiff,
  sortForApply,
  wholeObjectDiff,
} from '../ssa/index.js';
import { type KubeCluster, NoMatchError, withRequestDeadline } from '../connect/index.js';
import {
  instanceId,
  instanceRecord,
  InstanceStepError,
  labelledSets,
  type BuiltInstanceInput,
  type InstanceApplySet,
  type InstanceStep,
} from './instance.js';
import { DeleteObjectsError, deleteObjects, staleObjects } from './instance-prune.js';
import { inventoryEntries, type DecodedInstanceSecret, type InstanceRecord, type InventoryEntry } from './inventory.js';
import { savePending } from './inventory-pending.js';
import { ensureNamespace, readInstance, writeInstance } from './inventory-store.js';
import { formatRef, refOf, type KubeObject, type ObjectRef } from '../object.js';
import { assertOwnership } from './ownership.js';
import { ReservedObjectError, reservedObjects, type ReservedObjectRules } from './reserved-objects.js';
import { objectsToWaitFor, waitForDeletion, waitForReady, WaitError, type ReadinessCheck } from '../status/index.js';

export interface InstanceApplyOptions extends ReservedObjectRules {
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
  diff: wholeObjectDiff({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'app.kubernetes.io/created-by': 'timoni' } },
  }),
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
async function applyOne(
  cluster: KubeCluster,
  desired: KubeObject,
  ref: ObjectRef,
  force: boolean,
): Promise<{ change: ObjectChange; result: ApplyResult }> {
  let before: KubeObject | null = null;
  try {
    before = await cluster.get(refOf(desired));
  } catch (error) {
    if (!(error instanceof NoMatchError)) throw error;
  }
  const result = await applyObject(cluster, desired, { force });
  let diff: ObjectDiff = { diff: '' };
  if (result.action === 'created' || (result.action === 'recreated' && !before))
    diff = { diff: wholeObjectDiff(desired) };
  else if (result.action === 'recreated' && before)
    diff = recreateDiff(before, desired, result.immutableFields ?? [], true);
  else if (result.action === 'configured' && before)
    diff = objectDiff(before, result.object, await comparesStatus(cluster, desired));
  return {
    change: {
      kind: ref.kind,
      apiVersion: ref.apiVersion,
      namespace: ref.namespace,
      name: ref.name,
      action: result.action,
      ...diff,
    },
    result,
  };
}

/**
 * Applies the instance; throws an InstanceStepError naming the step (and object) that
 * failed, with the changes made before it.
 */
export function applyInstance(
  cluster: KubeCluster,
  instance: BuiltInstanceInput,
  options: InstanceApplyOptions = {},
): Promise<InstanceApplyResult> {
  // Requests retried while an API server restarts (../connect/request-retry.ts) stop at the same deadline.
  const deadline = options.deadline ?? Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return withRequestDeadline(deadline, () => new InstanceApply(cluster, instance, { ...options, deadline }).run());
}

/** An apply stage (../ssa/apply-order.ts): its objects, and whether the next stage waits for them. */
interface Stage {
  objects: KubeObject[];
  waitAfter: boolean;
}

/**
 * One instance's apply, as the steps of `run` (see the header). What a step leaves for the
 * next ones is kept here: the stored record, the build's objects and refs, what the record
 * will hold, the changes made and the readiness seen, and how far the apply got, which is
 * what a cancellation records (`stopCancelled`).
 */
class InstanceApply {
  private readonly id: string;
  private readonly log: (line: string) => void;
  /** Delete the objects the build no longer has (the default); without it they stay in the record. */
  private readonly prune: boolean;
  private readonly changes: ObjectChange[] = [];
  private readonly readiness: ReadinessCheck[] = [];
  /** The record stored before this apply (read with the ownership check). */
  private stored: DecodedInstanceSecret | null = null;
  /** The build's apply sets, each object carrying the owner labels. */
  private sets: InstanceApplySet[] = [];
  private allObjects: KubeObject[] = [];
  /** Each object's identity (scoped), in the order of allObjects, and by object. */
  private refs: ObjectRef[] = [];
  private refFor = new Map<KubeObject, ObjectRef>();
  /** The stored record's objects that the build no longer has. */
  private stale: ObjectRef[] = [];
  /** What the record will hold: the build's objects, and without prune the stale ones too. */
  private intended: ObjectRef[] = [];
  /** How far the apply got, for a cancellation's record. */
  private readonly progress = { appliedObjects: 0, allApplied: false, pruned: false, pendingSaved: false };

  constructor(
    private readonly cluster: KubeCluster,
    private readonly instance: BuiltInstanceInput,
    private readonly options: InstanceApplyOptions & { deadline: number },
  ) {
    this.id = instanceId(instance);
    this.log = options.log ?? (() => undefined);
    this.prune = options.prune ?? true;
  }

  async run(): Promise<InstanceApplyResult> {
    this.refuseReservedObjects();
    await this.readStoredRecord();
    await this.createNamespace();
    await this.writeIntendedRecord();
    const readinessError = await this.applySets();
    if (this.prune) await this.pruneStale(readinessError);
    if (readinessError) this.fail('wait', readinessError, waitObject(readinessError));
    return this.writeFinalRecord();
  }

  /**
   * 0. No object that is (or looks like) a record read back from clusters, before anything
   * is read or written (reserved-objects.ts). The rollout refuses the whole cluster before
   * its first instance already; this guards every other caller.
   */
  private refuseReservedObjects(): void {
    const refused = reservedObjects(
      this.instance.sets.flatMap((set) => set.objects),
      this.options,
    );
    if (refused.length > 0)
      this.fail(
        'reserved',
        new ReservedObjectError(
          this.cluster.name,
          refused.map((entry) => entry.message),
        ),
        formatRef(refused[0]!.object),
      );
  }

  /** 1. Ownership, before anything is written, and the record stored before. */
  private async readStoredRecord(): Promise<void> {
    try {
      if (!this.options.overwriteOwnership) {
        await assertOwnership(this.cluster, this.instance.bundle, [this.instance]);
      }
      this.stored = await readInstance(this.cluster, this.instance.name, this.instance.namespace);
    } catch (error) {
      this.fail('ownership', error);
    }
  }

  /** 2. The namespace, created when it is missing. */
  private async createNamespace(): Promise<void> {
    const { namespace } = this.instance;
    if (this.cancelled) await this.stopCancelled('namespace');
    try {
      if (await ensureNamespace(this.cluster, namespace)) {
        this.changes.push(namespaceChange(namespace));
        this.log(`Namespace/${namespace} created`);
      }
    } catch (error) {
      this.fail('namespace', error, `Namespace/${namespace}`);
    }
  }

  /**
   * 3. The intended inventory, before the objects are touched: an install writes its whole
   * record first; an upgrade whose objects change saves the new revision as `data.pending`.
   */
  private async writeIntendedRecord(): Promise<void> {
    const { cluster, instance } = this;
    this.sets = labelledSets(instance);
    this.allObjects = this.sets.flatMap((set) => set.objects);
    if (this.cancelled) await this.stopCancelled('inventory');
    try {
      this.refs = await scopedRefs(cluster, this.allObjects);
      this.stale = staleObjects(this.stored, inventoryEntries(this.refs));
      this.intended = this.prune ? this.refs : [...this.refs, ...this.stale];
      if (!this.stored) {
        this.log(`installing ${instance.name} in namespace ${instance.namespace}`);
        await writeInstance(cluster, instanceRecord(instance, this.intended, false));
      } else {
        this.log(`upgrading ${instance.name} in namespace ${instance.namespace}`);
        if (!sameInventory(inventoryEntries(this.intended), this.stored.instance.inventory?.entries)) {
          await savePending(cluster, instanceRecord(instance, this.intended, false));
          this.progress.pendingSaved = true;
        }
      }
    } catch (error) {
      this.fail('inventory', error, this.recordSecret);
    }
    this.refFor = new Map(this.allObjects.map((object, i) => [object, this.refs[i]!]));
  }

  /**
   * 4. The apply sets in order, each in stages, then its readiness wait when asked. A set
   * that does not become ready stops the sets after it, and its error is returned: the
   * prune still runs, as in Timoni, and the record is then not promoted.
   */
  private async applySets(): Promise<unknown> {
    for (const set of this.sets) {
      if (this.sets.length > 1) this.log(`applying ${set.name}`);
      for (const stage of applyStages(set.objects)) await this.applyStage(stage);
      if (!this.options.wait) continue;
      const notReady = await this.waitForSet(set);
      if (notReady) return notReady.error;
    }
    return undefined;
  }

  /** A stage's objects in order; then, when the next stage needs them, all of them ready. */
  private async applyStage(stage: Stage): Promise<void> {
    for (const object of stage.objects) await this.applyObject(object);
    if (!stage.waitAfter) return;
    // CRDs established, Namespaces active... before the objects that need them (all of
    // them, whatever their wait annotation, as fluxcd ssa's staged apply does).
    try {
      this.readiness.push(
        ...(await waitForReady(
          this.cluster,
          stage.objects.map((o) => this.refFor.get(o)!),
          this.waitOptions(),
        )),
      );
    } catch (error) {
      if (this.cancelled) {
        if (error instanceof WaitError) this.readiness.push(...error.notReady);
        await this.stopCancelled('wait', waitObject(error));
      }
      this.fail('wait', error, waitObject(error));
    }
    if (stage.objects.some((o) => o.kind === 'CustomResourceDefinition')) await this.cluster.discovery.refresh();
  }

  /** One object, unless the run was cancelled before it (the object in flight finishes). */
  private async applyObject(object: KubeObject): Promise<void> {
    const ref = this.refFor.get(object)!;
    if (this.cancelled) await this.stopCancelled('apply', formatRef(ref));
    try {
      const { change } = await applyOne(this.cluster, object, ref, !!this.options.force);
      this.progress.appliedObjects += 1;
      this.progress.allApplied = this.progress.appliedObjects === this.allObjects.length;
      this.changes.push(change);
      this.log(`${formatRef(ref)} ${change.action}`);
    } catch (error) {
      this.fail('apply', error, formatRef(ref));
    }
  }

  /** A set's readiness wait; what did not become ready, unless the run was cancelled meanwhile (which stops the apply). */
  private async waitForSet(set: InstanceApplySet): Promise<{ error: unknown } | undefined> {
    const waitFor = sortForApply(objectsToWaitFor(set.objects));
    this.log(`waiting for ${waitFor.length} resource(s) to become ready...`);
    try {
      this.addReadiness(await waitForReady(this.cluster, waitFor, this.waitOptions()));
      this.log(`${set.name} resources ready`);
      return undefined;
    } catch (error) {
      if (this.cancelled) {
        if (error instanceof WaitError) this.addReadiness(error.notReady);
        await this.stopCancelled('wait', waitObject(error));
      }
      // As Timoni: stop applying, but still prune what the build lost.
      if (error instanceof WaitError) this.readiness.push(...error.notReady);
      return { error };
    }
  }

  /**
   * 5. Prune what the build lost, and with `wait` wait until it is gone; not started once
   * cancelled (the record keeps those objects). A readiness error before it is told with
   * the prune's.
   */
  private async pruneStale(readinessError: unknown): Promise<void> {
    if (this.cancelled && !readinessError) await this.stopCancelled('prune');
    try {
      const pruned = await deleteObjects(this.cluster, this.stale, this.instance, { log: this.log });
      this.progress.pruned = true;
      this.changes.push(...pruned);
      if (this.options.wait) await this.waitForPruned(pruned);
    } catch (error) {
      if (error instanceof DeleteObjectsError) this.changes.push(...error.changes);
      if (this.progress.pruned && this.cancelled && !readinessError) await this.stopCancelled('prune');
      const object = error instanceof DeleteObjectsError ? error.object : undefined;
      if (readinessError) {
        this.fail(
          'wait',
          new Error(`${(readinessError as Error).message}; pruning failed too: ${(error as Error).message}`),
          waitObject(readinessError),
        );
      }
      this.fail('prune', error, object);
    }
  }

  private async waitForPruned(pruned: ObjectChange[]): Promise<void> {
    const gone = pruned
      .filter((c) => c.action === 'deleted' && c.diff)
      .map((c): ObjectRef => ({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name }));
    if (gone.length === 0) return;
    this.log(`waiting for ${gone.length} resource(s) to be finalized...`);
    await waitForDeletion(this.cluster, gone, this.waitOptions());
  }

  /** 6. The final record (drops `data.pending`). */
  private async writeFinalRecord(): Promise<InstanceApplyResult> {
    let record: InstanceRecord;
    try {
      record = await writeInstance(this.cluster, instanceRecord(this.instance, this.intended, true));
    } catch (error) {
      return this.fail('inventory', error, this.recordSecret);
    }
    return { changes: this.changes, readiness: this.readiness, record, installed: !this.stored };
  }

  // ---- Cancellation (see the header)

  private get cancelled(): boolean {
    return this.options.signal?.aborted === true;
  }

  /** Stops the cancelled apply: the record of what was applied written, then InstanceCancelledError. */
  private async stopCancelled(step: InstanceStep, object?: string): Promise<never> {
    const { record, recordError } = await this.writeCancelledRecord();
    const reason: unknown = this.options.signal?.reason;
    const cause =
      cancellationOf(this.options.signal) ?? (reason instanceof Error ? reason : new Error('the run was cancelled'));
    throw new InstanceCancelledError(
      this.cluster.name,
      step,
      this.id,
      [...this.changes],
      cause,
      object,
      record,
      [...this.readiness],
      recordError,
    );
  }

  /**
   * Every object applied: the final record; some: the revision being applied as the
   * record's pending one (an install's record, written first, lists them already); none:
   * nothing. The record lists every object of the build, and the stale ones until pruned.
   */
  private async writeCancelledRecord(): Promise<{ record: CancelledRecord; recordError?: string }> {
    const recordRefs = this.prune && !this.progress.pruned ? [...this.refs, ...this.stale] : this.intended;
    let record: CancelledRecord = 'none';
    try {
      if (this.progress.allApplied) {
        record = 'final';
        await writeInstance(this.cluster, instanceRecord(this.instance, recordRefs, true));
      } else if (this.progress.appliedObjects > 0 && !this.stored) {
        record = 'install';
      } else if (this.progress.appliedObjects > 0) {
        record = 'pending';
        if (!this.progress.pendingSaved)
          await savePending(this.cluster, instanceRecord(this.instance, recordRefs, false));
      }
      return { record };
    } catch (error) {
      return { record, recordError: error instanceof Error ? error.message : String(error) };
    }
  }

  // ---- Helpers

  private fail(step: InstanceStep, error: unknown, object?: string): never {
    if (error instanceof InstanceStepError) throw error;
    throw new InstanceStepError(this.cluster.name, step, this.id, [...this.changes], error, object);
  }

  private waitOptions() {
    return {
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      deadline: this.options.deadline,
      signal: this.options.signal,
      intervalMs: this.options.pollIntervalMs,
    };
  }

  /** Readiness of objects not yet known. */
  private addReadiness(checks: ReadinessCheck[]): void {
    this.readiness.push(
      ...checks.filter((r) => !this.readiness.some((known) => formatRef(known.object) === formatRef(r.object))),
    );
  }

  private get recordSecret(): string {
    return `Secret/${this.instance.namespace}/timoni.${this.instance.name}`;
  }
}

function waitObject(error: unknown): string | undefined {
  if (!(error instanceof WaitError)) return undefined;
  const first = error.notReady.find((r) => r.status !== 'Current') ?? error.notReady[0];
  return first ? formatRef(first.object) : undefined;
}
