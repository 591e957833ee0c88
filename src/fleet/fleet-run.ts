// What a fleet run is: everything a plan or a rollout needs (the CUE engine, the bundle
// inputs, the clusters' kubeconfig, the module resolver, the options named as in
// `timoni bundle apply`), where it reports progress (FleetLog), and how long it may take
// (the run's deadline, and the grace a cluster is given past its own time limit), and how it
// is stopped early (its cancellation, which ends the clusters' work as the deadline does).
import type { ClusterEvaluationOptions, ClusterSelector, Runtime, RuntimeCluster } from '../bundle/index.js';
import type { ClusterError, DesiredState } from '../changeset.js';
import type { CueEngine } from '../cue/index.js';
import type { IdentityMode, Kubeconfig } from '../kube/connect/index.js';
import type { HistoryProvenance, HistoryReviewed, ReservedObjectRules } from '../kube/instance/index.js';
import type { SecretRegistry } from '../secrets.js';
import type { ModuleResolver } from '../module/source.js';
import { runOptions, type OnFailure, type RolloutStrategy } from './run-options.js';

export interface FleetOptions {
  force: boolean;
  overwriteOwnership: boolean;
  wait: boolean;
  timeoutMs: number;
  prune: boolean;
  /**
   * With `prune`: delete (and show in a diff) the instances that the cluster stores under
   * this bundle's label but that the bundle no longer lists. False keeps them.
   */
  pruneRemovedInstances: boolean;
  /**
   * With `prune` and a base runtime (`FleetRun.baseRuntime`): delete the bundle from the
   * clusters that leave the fleet (listed at the base, missing at the head, not renamed:
   * membership.ts) once the rollout of the remaining clusters succeeded. False keeps the
   * bundle installed there (the diff still shows them leaving, with nothing deleted).
   */
  pruneRemovedClusters: boolean;
  /** Clusters diffed at once. */
  concurrency: number;
  /**
   * How a rollout goes through the clusters: `sequential` one after the other (Timoni's
   * way), `waves` the clusters of one group at once, group after group (waves.ts).
   */
  strategy: RolloutStrategy;
  /** With `waves`: clusters of one wave applied at once (1 or more). */
  maxParallel: number;
  /**
   * The soak gate (soak.ts), in milliseconds: after a wave (or, sequentially, a cluster) is
   * applied, its objects are watched this long before the next one starts. Absent: none.
   */
  soakMs?: number | undefined;
  /**
   * A rollout's failed cluster: `stop` leaves it as the failure left it; `rollback` puts back
   * every instance the run changed on it (and, with waves, on the other clusters of its wave)
   * as it was before the run (rollback.ts), then stops.
   */
  onFailure?: OnFailure;
  /**
   * Revisions of each instance an apply keeps in the cluster, the current one included
   * (`history`, ../kube/instance/history-store.ts); 0: no history written.
   */
  history: number;
  /**
   * The cluster identity check (`../kube/connect/cluster-identity.ts`): `mode` (absent: `check`,
   * refuse a cluster whose record names another runtime cluster, write nothing), the
   * record's ConfigMap name (absent: `timoni-fleet-identity`), the runtime clusters an apply
   * re-pins on purpose.
   */
  identity?: {
    mode: IdentityMode;
    recordName?: string;
    repin: string[];
    /** How the user re-pins a cluster, in the words of the entry point (the action's input, the CLI's flag). */
    repinAdvice?: (runtimeCluster: string) => string;
  };
}

/**
 * The options of a run that is given none: the defaults of the run options' contract
 * (run-options.ts), where the action's and the CLI's are alike for each of these. The
 * identity check is left to each entry point (their defaults differ on purpose).
 */
export const defaultFleetOptions: FleetOptions = {
  force: runOptions.force.action.value,
  overwriteOwnership: runOptions.overwriteOwnership.action.value,
  wait: runOptions.wait.action.value,
  timeoutMs: runOptions.timeout.action.value,
  prune: runOptions.prune.action.value,
  pruneRemovedInstances: runOptions.pruneRemovedInstances.action.value,
  pruneRemovedClusters: runOptions.pruneRemovedClusters.action.value,
  concurrency: runOptions.concurrency.action.value,
  strategy: runOptions.strategy.action.value,
  maxParallel: runOptions.maxParallel.action.value,
  onFailure: runOptions.onFailure.action.value,
  history: runOptions.history.action.value,
};

/** What a rollback to a revision puts back on each cluster (`FleetRun.rollbackTo`, revision-rollback.ts). */
export interface RevisionTarget {
  /** Only this instance ('': every instance the bundle lists on the cluster). */
  instance: string;
  /** The revision to put back (absent: each instance's previous one). */
  revision?: number;
  /**
   * A revision whose history entry does not say it was reviewed (HistoryEntry.reviewed: applied
   * by a run whose review matched, or put back such a revision): `refuse` fails its cluster
   * before anything is applied there (step `review`), `warn` puts it back and logs a warning
   * line (WARNING_MARK). Absent: it is put back and nothing is said (the CLI, the action's
   * `reviewed: off`).
   */
  unreviewed?: 'refuse' | 'warn';
  /** With `unreviewed`: how to go on, in the words of the entry point (its inputs), ending the refusal's message. */
  unreviewedAdvice?: string;
}

export interface FleetRun {
  engine: CueEngine;
  evaluation: Omit<ClusterEvaluationOptions, 'selector' | 'readObject'> & { runtime: Runtime };
  selector: ClusterSelector;
  kubeconfig: Kubeconfig;
  secrets: SecretRegistry;
  resolver: ModuleResolver;
  options: FleetOptions;
  log: FleetLog;
  /**
   * The whole run's deadline (epoch milliseconds): no cluster starts after it, a cluster's
   * work is not waited for past it, and each cluster's own time limit ends by it.
   */
  deadlineAt?: number;
  /**
   * The deadline as messages name it (`20s, 5s of it kept to publish the report`): the
   * error of a cluster whose work the deadline stopped says which deadline it was.
   */
  deadlineText?: string;
  /**
   * The run's cancellation (`../cancellation.ts`, aborted by the first SIGINT or SIGTERM),
   * taken the way the deadline is: no cluster starts after it, nor does an instance or an
   * object; the object being applied finishes and the instance's record is written for what
   * was applied; a wait ends at once; the cluster is reported `failed` at step `cancelled`
   * (`../changeset.ts`), the clusters after it `skipped`. A cluster's work is waited for at
   * most CANCEL_GRACE_MS once it is aborted.
   */
  cancel?: AbortSignal;
  /** Where the applied revisions come from, kept in each instance's history (the action: its commit and run URL). */
  provenance?: HistoryProvenance;
  /**
   * A rollback to a revision of each instance's history (revision-rollback.ts): the plan and
   * the rollout build each instance from the revision instead of the bundle's module and
   * values. No membership change is looked for and no instance the bundle does not list is
   * deleted; objects within each instance are pruned.
   */
  rollbackTo?: RevisionTarget;
  /** Filled in as the run goes: milliseconds since the process started (performance.now()). */
  timings?: { firstClusterRequestMs?: number };
  /** Told of every error that fails a cluster (the action turns CUE errors into annotations). */
  onClusterError?: (cluster: string, error: unknown) => void;
  /**
   * Record each cluster's desired state as digests in its ChangeSet entry (`desired`,
   * desired-state.ts): the action's diff does, for the review record of the PR comment.
   */
  recordDesired?: boolean;
  /**
   * Called by a rollout for each cluster once it is built, right before anything is written
   * to it, with its desired state (desired-state.ts). Throwing refuses the cluster (step `review`,
   * the error's message as the cluster's error): nothing is applied to it and the rollout
   * stops there, as after any failed cluster. Answering a mark says that the desired state is
   * the one reviewed: each revision applied to the cluster is kept in its history as reviewed
   * (HistoryEntry.reviewed), which a rollback under `unreviewed: refuse` asks for.
   */
  beforeApply?: (cluster: RuntimeCluster, bundle: string, desired: DesiredState) => HistoryReviewed | undefined;
  /**
   * The runtime the fleet had before this change (fleet membership, membership.ts): the
   * runtime file at the pull request's base commit, or at the push's `before` commit, or
   * the CLI's `--base-runtime FILE` / `--base-ref REF`. Its clusters (selected as the head's
   * are) that the head no longer lists leave the fleet: a diff shows the bundle's instances
   * on them, a rollout deletes them (`options.pruneRemovedClusters`). A cluster the head
   * lists under another name that reaches the same cluster (identity record, kube-system
   * UID) is a rename: nothing is deleted. `from` says where it was read, for the reports
   * ("runtime.cue at base commit abc1234"). Absent: no membership change is looked for
   * (a first pull request, a runtime file that did not exist at the base, or not asked).
   */
  baseRuntime?: { runtime: Runtime; from: string };
  /**
   * Set instead of `baseRuntime` when the base runtime could not be read or evaluated: the
   * run goes on without membership changes, and the reports (comment, summary, log) say so
   * with this text (no secret in it: it is shown as is, escaped).
   */
  baseRuntimeWarning?: string;
  /**
   * Called by a rollout before the bundle is removed from a cluster that leaves the fleet
   * (leaving-clusters.ts). Throwing refuses it (step `review`, the error's message): the
   * action refuses a leave the reviewed record does not hold (`reviewed: require`).
   */
  beforeLeave?: (cluster: RuntimeCluster, bundle: string) => void;
  /**
   * Called by a rollout for each rename (membership.ts) before any cluster: throwing keeps
   * the renamed cluster's identity record as it is (the cluster is then refused by the
   * identity check, its record naming the old name), and the message is logged.
   */
  beforeRename?: (to: RuntimeCluster, from: RuntimeCluster) => void;
  /**
   * A plan also lists the clusters that hold the bundle and that no runtime cluster names
   * (orphaned-clusters.ts: the kubeconfig's contexts that no runtime cluster uses), as
   * leaving clusters whose bundle stays installed: the action's `mode: drift` sets it.
   */
  lookForOrphans?: boolean;
}

// ---- Progress

/**
 * Where the fleet layer reports progress: plain lines and groups (one per cluster). The
 * CLI prints lines; the action turns groups into collapsible log groups. A line that tells
 * why a cluster (or the run) failed starts with FAILURE_MARK (outcome.ts `tellFailure`):
 * the CLI prints it as it is, the action shows it as an error annotation, once.
 */
/**
 * The run's rules of the objects a bundle may not apply (../kube/instance/reserved-objects.ts):
 * the identity record's name it reads. One place, for the plan, the rollout and a rollback's builds.
 */
export function reservedObjectRules(run: Pick<FleetRun, 'options'>): ReservedObjectRules {
  const name = run.options.identity?.recordName;
  return name ? { identityRecord: name } : {};
}

export const FAILURE_MARK = '✗ ';

/**
 * A line that warns of something that did not fail the cluster (an instance's history not
 * written after its apply succeeded): the CLI prints it as it is, the action shows it as a
 * warning annotation.
 */
export const WARNING_MARK = '⚠ ';

export interface FleetLog {
  line(text: string): void;
  startGroup(title: string): void;
  endGroup(): void;
}

/** Collects one cluster's lines while clusters run at once, to print them together. */
export class BufferedLog {
  readonly lines: string[] = [];

  line(text: string): void {
    this.lines.push(text);
  }

  flushInto(log: FleetLog, title: string): void {
    log.startGroup(title);
    for (const text of this.lines) log.line(text);
    log.endGroup();
  }
}

// ---- Time limits and cancellation
// The wait for one cluster's work is bounded by a deadline. The work is not cancelled (a
// request already sent stays sent); the run stops waiting for it, reports the cluster as
// failed, and goes on to publish what it has. The action's process ends after publishing,
// which also ends any work still in flight. A cancellation is one more way the run stops:
// the same checks before each cluster (`runStopped`), and the same bounded wait for a
// cluster's work (`withinDeadline`), shortened to CANCEL_GRACE_MS from the cancellation.

/** How long past its own time limit a cluster is waited for (its waits end by the limit themselves). */
export const CLUSTER_GRACE_MS = 2_000;

/**
 * How long a cluster's work is waited for once the run is cancelled: its object in flight,
 * its records and its log, well inside the 7.5 s GitHub leaves between SIGINT and SIGTERM,
 * so that the report is published before the second signal stops the process.
 */
export const CANCEL_GRACE_MS = 3_000;

/** Why a run stops before its work is done: its deadline passed, or it was cancelled. */
export type RunStop = 'deadline' | 'cancelled';

/** Whether the run may start one more cluster: undefined when it may, else why not. */
export function runStopped(run: {
  deadlineAt?: number | undefined;
  cancel?: AbortSignal | undefined;
}): RunStop | undefined {
  if (run.cancel?.aborted) return 'cancelled';
  if (run.deadlineAt !== undefined && Date.now() >= run.deadlineAt) return 'deadline';
  return undefined;
}

/**
 * `work`, or `onStop(why)` if it has not ended by `deadlineAt`, or CANCEL_GRACE_MS after
 * `cancel` aborts (whichever comes first).
 */
export function withinDeadline<T>(
  work: Promise<T>,
  deadlineAt: number,
  onStop: (why: RunStop) => T,
  cancel?: AbortSignal,
): Promise<T> {
  if (!Number.isFinite(deadlineAt) && !cancel) return work;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<T>((resolve) => {
    const stopAt = (at: number, why: RunStop) => {
      clearTimeout(timer);
      timer = setTimeout(() => resolve(onStop(why)), Math.max(0, at - Date.now()));
    };
    if (Number.isFinite(deadlineAt)) stopAt(deadlineAt, 'deadline');
    if (!cancel) return;
    onAbort = () => {
      const at = Date.now() + CANCEL_GRACE_MS;
      if (at < deadlineAt) stopAt(at, 'cancelled');
    };
    if (cancel.aborted) onAbort();
    else cancel.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, stopped]).finally(() => {
    clearTimeout(timer);
    if (onAbort) cancel?.removeEventListener('abort', onAbort);
  });
}

/**
 * Where one cluster's work is (its step, since when), kept as it goes, so that a cluster
 * whose work the deadline stopped says where it was and for how long.
 */
export class ClusterProgress {
  step: string;
  since = Date.now();

  constructor(step: string) {
    this.step = step;
  }

  at(step: string): void {
    if (step === this.step) return;
    this.step = step;
    this.since = Date.now();
  }
}

/**
 * A cluster's error when the run's deadline stopped its work: step `deadline`, the step it
 * was at (`interrupted`), for how long, which deadline, and what became of the work.
 */
export function deadlineError(
  run: Pick<FleetRun, 'deadlineText'>,
  cluster: string,
  progress: { step: string; since: number; instance?: string },
  outcome: string,
): ClusterError {
  const seconds = (Math.max(0, Date.now() - progress.since) / 1000).toFixed(1);
  const deadline = run.deadlineText ? ` (${run.deadlineText})` : '';
  const instance = progress.instance ? ` (instance ${progress.instance})` : '';
  return {
    step: 'deadline',
    interrupted: progress.step,
    message: `the run reached its deadline${deadline} while cluster ${cluster} was at step ${progress.step}${instance} for ${seconds} s: ${outcome}`,
    ...(progress.instance ? { instance: progress.instance } : {}),
  };
}

/** What a deadline error says of an evaluation stopped by it. */
export const EVALUATION_ABANDONED = 'the CUE evaluation was abandoned and the engine stopped';
