// The ChangeSet: one JSON document that `timoni-fleet diff|apply -o json` print, that the
// action sets as its `changes` output, and that the reports are rendered from.
// Clusters are in runtime order, instances in bundle order, objects in apply order.

export type ChangeSetMode = 'diff' | 'apply';

/**
 * unchanged/changed after a diff; applied/failed after an apply; skipped = not reached after
 * an earlier failure (or a cancellation). A cancelled cluster is `failed` with the error step
 * `cancelled` (CANCELLED_STEP, `isCancelled`), so that every reader that stops on a failure
 * stops on a cancellation too.
 */
export type ClusterStatus = 'unchanged' | 'changed' | 'applied' | 'failed' | 'skipped';

/**
 * recreated = an immutable field changes and the object is deleted and created again (force);
 * failed = the API server refused this one object's dry-run (or apply): `error` says why,
 * and the other objects are still reported (as Timoni's dry-run diff does).
 */
export type ObjectAction = 'created' | 'configured' | 'unchanged' | 'deleted' | 'recreated' | 'skipped' | 'failed';

export interface ObjectChange {
  kind: string;
  apiVersion: string;
  /** Empty for cluster-scoped objects. */
  namespace: string;
  name: string;
  action: ObjectAction;
  /**
   * Unified diff of normalised YAML (`--- live` / `+++ desired`), Secret data masked;
   * for `created` the whole object; empty for `unchanged`. For `recreated` (and a `failed`
   * immutable change) the fields that force the recreation, followed by a `# ...` note line.
   */
  diff: string;
  /** Why the object failed (action `failed` only): the API server's answer, naming the object. */
  error?: string;
  /**
   * Set when the diff was too large to compute within the diff's limits (a huge object, or
   * too many changed lines): `diff` is then empty and the reports say so.
   */
  diffTooLarge?: { liveLines: number; desiredLines: number };
  /** The result of waiting for the object after apply (kstatus), when it was waited for. */
  readiness?: ObjectReadiness;
}

/** kstatus's status names, as Timoni's `--wait` prints them (`Deployment/apps/podinfo Current - Resource is Ready`). */
export type ReadinessStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown';

export const READINESS_STATUSES: readonly ReadinessStatus[] = [
  'Current',
  'InProgress',
  'Failed',
  'Terminating',
  'NotFound',
  'Unknown',
];

export interface ObjectReadiness {
  status: ReadinessStatus;
  message: string;
  durationMs?: number;
}

export interface ModuleInfo {
  url: string;
  version: string;
  digest: string;
}

export interface InstanceChanges {
  name: string;
  namespace: string;
  module: ModuleInfo;
  changes: ObjectChange[];
  /**
   * True for an instance that the cluster stores under this bundle's label but that the
   * bundle no longer lists: its objects are `deleted` (would be, in a diff) and then its
   * inventory Secret. Listed after the bundle's instances. Absent otherwise.
   */
  removed?: true;
  /**
   * Set when the instance failed as a whole, and why: it could not be built (its module not
   * fetched, a values or module error: step `build`) or, in a diff, its dry-run stopped
   * (`changes` then holds what was found before). Its cluster is `failed`. In a diff the
   * other instances are still built, diffed and listed beside it, and the cluster's error is
   * the first failure in bundle order (this one's, when it comes first). After an apply, a
   * cluster with an instance that did not build is applied nothing: its entry lists only the
   * instances that did not build, each with its error. Absent otherwise.
   */
  error?: InstanceError;
  /**
   * Set after a rollback (`on-failure: rollback`, fleet/rollback.ts) of this instance, which
   * the run had changed on a cluster that failed (or on another cluster of its wave): what
   * putting it back did. Absent otherwise.
   */
  rollback?: InstanceRollback;
  /**
   * Set by a rollback to a revision of the instance's history (`timoni-fleet rollback`, the
   * action's `mode: rollback`; fleet/revision-rollback.ts): the revision whose module and
   * values were applied (`to`), and the one that was live before (`from`, absent when the
   * live record is none of the revisions kept). Absent otherwise.
   */
  revision?: InstanceRevision;
}

/** The revisions of a rollback to a revision (`InstanceChanges.revision`). */
export interface InstanceRevision {
  to: number;
  from?: number;
}

/** What a rollback did to one instance (`InstanceChanges.rollback`). */
export interface InstanceRollback {
  /**
   * restored: the previous module (by digest) built with the previous values, applied with
   * prune and waited for, then Timoni's instance record written back byte for byte as it was
   * before the run; deleted: an instance this run installed for the first time, deleted as
   * `bundle delete` deletes one; failed: see `error`.
   */
  action: 'restored' | 'deleted' | 'failed';
  /** The module put back (restored only). */
  module?: ModuleInfo;
  /** What the rollback did to each object, in order (its readiness when waited for). */
  changes: ObjectChange[];
  /** Why the rollback of this instance failed: the step, the object and the server's answer. */
  error?: InstanceError;
}

/**
 * A rollback's outcome on a cluster (`ClusterChanges.rollback`): `rolled back` when every
 * instance the run changed there was put back, `rollback failed` (with the first error)
 * otherwise. `wave` names the cluster whose failure rolled back this one, when it was another
 * cluster of its wave (this one's own status then stays what its apply gave).
 */
export interface ClusterRollback {
  outcome: 'rolled back' | 'rollback failed';
  error?: { message: string; instance?: string; object?: string };
  wave?: { failed: string };
}

/** Why an instance failed as a whole (`InstanceChanges.error`). */
export interface InstanceError {
  /** The step that failed: `build`, or a step of the dry-run (`diff`, `ownership`, ...). */
  step: string;
  message: string;
  /** The object concerned, when the error concerns one (`Kind/namespace/name`). */
  object?: string;
}

export interface ClusterError {
  /** The step that failed, e.g. `evaluate`, `build`, `diff`, `apply`, `wait`, `prune`; `cancelled` when the run was cancelled. */
  step: string;
  message: string;
  /** The instance and object concerned, when the error concerns one. */
  instance?: string;
  object?: string;
  /**
   * With step `cancelled`: the step the cluster's work was in when the run was cancelled
   * (`connect`, `build`, `apply`, `wait`, `prune`...), or `start` for a cluster the run was
   * cancelled before (nothing applied to it).
   */
  interrupted?: string;
}

/** The error step of a cluster whose work a cancellation (SIGINT, SIGTERM) stopped. */
export const CANCELLED_STEP = 'cancelled';

/** True for a cluster stopped by the run's cancellation (status `failed`, step `cancelled`). */
export function isCancelled(cluster: Pick<ClusterChanges, 'status' | 'error'>): boolean {
  return cluster.status === 'failed' && cluster.error?.step === CANCELLED_STEP;
}

export interface ClusterChanges {
  name: string;
  group: string;
  kubeContext: string;
  status: ClusterStatus;
  error: ClusterError | null;
  instances: InstanceChanges[];
  /** When work on this cluster began (ISO 8601); absent for a cluster not reached. */
  startedAt?: string;
  /** Wall time spent on this cluster, in milliseconds. */
  durationMs?: number;
  /**
   * The cluster's identity (`kube/connect/cluster-identity.ts`): the UID of its `kube-system`
   * Namespace, the runtime cluster name timoni-fleet recorded for it and when, and what this
   * run wrote (`recorded` on a first apply, `repinned`, `rewritten` after a restore). Absent
   * when the run neither recorded nor found a record.
   */
  identity?: { uid: string; recordedAs?: string; recordedAt?: string; change?: 'recorded' | 'repinned' | 'rewritten' };
  /**
   * What was built for this cluster, as digests (`fleet/desired-state.ts`): set when the run
   * records it (the action's diff, for the review record of the PR comment; its rollout,
   * to compare with that record before applying). Absent otherwise.
   */
  desired?: DesiredState;
  /**
   * Fleet membership (`fleet/membership.ts`), set only when the run had a base runtime:
   * `leaves` for a cluster listed at the base and missing at the head (its entry lists the
   * bundle's instances found on it, `removed`, with what deleting them would do or did; its
   * `group` and `kubeContext` are the base's); `{ renamedFrom }` for a head cluster that the
   * base listed under another name and that reaches the same cluster (nothing deleted, its
   * identity record re-pinned on apply). Absent for every other cluster.
   */
  membership?: ClusterMembership;
  /**
   * A leaving cluster the bundle stays installed on: why (its kube context is no longer in
   * the kubeconfig, `prune-removed-clusters` is false, its context reaches a cluster that
   * stays), and the commands that remove it by hand (none when it must not be removed).
   */
  bundleKept?: { reason: string; commands: string[] };
  /** What `on-failure: rollback` did on this cluster (ClusterRollback); absent when nothing was rolled back. */
  rollback?: ClusterRollback;
}

/** A cluster's change of fleet membership (`ClusterChanges.membership`). */
export type ClusterMembership = 'leaves' | { renamedFrom: string };

/**
 * Where the base runtime of the membership comparison was read (`from`, e.g. "runtime.cue
 * at base commit abc1234"), or why there was none (`warning`: it could not be read or
 * evaluated, and no membership change was looked for). Absent: no base runtime was given.
 */
export interface MembershipSource {
  from?: string;
  warning?: string;
}

/**
 * The desired state of one cluster as digests (`fleet/desired-state.ts`): no object and no
 * secret value, only hashes of them.
 */
export interface DesiredState {
  /** sha256 (hex) over every desired object (normalised, Secret values as their sha256) and every module. */
  digest: string;
  /** Each instance's module, by instance name. */
  modules: Record<string, ModuleInfo>;
  /** Each object's own digest (16 hex), by `instance/Kind/namespace/name`; a shortened record may list fewer than `objectCount`. */
  objects: Record<string, string>;
  /** How many objects the cluster's instances hold. */
  objectCount: number;
}

/** The version of this document's format; a reader refuses a ChangeSet of a newer format. */
export const CHANGESET_FORMAT = 1;

export interface ChangeSet {
  /** CHANGESET_FORMAT of the writer. */
  format: number;
  bundle: string;
  mode: ChangeSetMode;
  /** The commit the bundle was read from, when known (the action's GITHUB_SHA). */
  commit?: string;
  clusters: ClusterChanges[];
  /** The base runtime of the membership comparison (`MembershipSource`), when the run had one or failed to read one. */
  membership?: MembershipSource;
  /**
   * Set for a rollback to a revision (fleet/revision-rollback.ts; `mode` is `apply`, or
   * `diff` for `rollback --dry-run`): the instance rolled back (absent: every instance the
   * bundle lists) and the revision asked for (absent: each instance's previous one).
   */
  rollback?: { instance?: string; revision?: number };
}

/** True for a cluster that leaves the fleet (listed at the base runtime, not at the head). */
export function isLeaving(cluster: Pick<ClusterChanges, 'membership'>): boolean {
  return cluster.membership === 'leaves';
}

/** The base name of a renamed cluster, or undefined. */
export function renamedFrom(cluster: Pick<ClusterChanges, 'membership'>): string | undefined {
  const membership = cluster.membership;
  return typeof membership === 'object' ? membership.renamedFrom : undefined;
}

/** True when the action changes the cluster (or would): not unchanged, skipped or failed. */
export function isChangingAction(action: ObjectAction): boolean {
  return action !== 'unchanged' && action !== 'skipped' && action !== 'failed';
}

/** True when any cluster has an object that changes (a failed object is a failure, not a change). */
export function hasChanges(changeSet: ChangeSet): boolean {
  return changeSet.clusters.some((cluster) =>
    cluster.instances.some((instance) => instance.changes.some((change) => isChangingAction(change.action))),
  );
}
