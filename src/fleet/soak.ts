// Soak gates (`soak`): after a wave (strategy `waves`) or a cluster (sequential) is applied,
// and before the next one starts, the objects its instances applied are kept watched for
// the soak's duration: their readiness (kstatus, ../kube/status/) is read every few seconds
// on every cluster of the wave at once. An object that is not Current any more (a
// Deployment whose replicas became unavailable, a deleted object, ...) fails its cluster
// at step `soak` (SOAK_STEP), naming the object and its status, and the rollout stops there
// as after any failed cluster. The last wave (or cluster) is soaked too: the run's outcome
// then means "applied and stayed ready for the soak", for every cluster alike.
//
// What is watched: every object of the cluster's ChangeSet entry that the apply left in
// place (not deleted, skipped or failed), less Jobs (a Job's outcome is final once the
// apply's wait saw it complete, and a finished Job may be deleted by its TTL) and objects
// annotated `action.timoni.sh/wait: disabled` (never waited for). An object `Failed` or
// `NotFound` fails at once; one `InProgress` (or `Terminating`) must be seen so on two rounds
// in a row, since a Deployment whose spec or annotations change (an HPA scaling it, an
// annotation added) is `InProgress` for the moment its controller takes to observe the new
// generation; a read that fails (`Unknown`: the API server did not answer) is tolerated for
// three rounds in a row (NOT_READY_ROUNDS). The soak ends early, with the clusters still `applied`, when the run's deadline
// comes first or the run is cancelled: the rollout then stops before the next cluster
// (`runStopped`), as it always does, and the log says the soak was cut short.
import type { ClusterChanges, ObjectChange, ReadinessStatus } from '../changeset.js';
import { formatDuration, formatLimit } from '../duration.js';
import { openCluster, withRequestDeadline, type KubeCluster } from '../kube/connect/index.js';
import { annotations, anyInMetadata, disabledValue, formatRef, type ObjectRef } from '../kube/object.js';
import { computeStatus } from '../kube/status/index.js';
import { cancellationOf } from '../cancellation.js';
import { CLUSTER_GRACE_MS, withinDeadline, type FleetRun } from './fleet-run.js';
import { tellFailure } from './outcome.js';

/** The error step of a cluster that turned not ready during the soak. */
export const SOAK_STEP = 'soak';

/** Rounds in a row an object must be seen with a status before the soak fails its cluster. */
export const NOT_READY_ROUNDS: Readonly<Record<Exclude<ReadinessStatus, 'Current'>, number>> = {
  Failed: 1,
  NotFound: 1,
  InProgress: 2,
  Terminating: 2,
  Unknown: 3,
};

export interface SoakTiming {
  /** Between two rounds of reads. */
  intervalMs: number;
  /** Between two progress lines. */
  progressEveryMs: number;
}

export const DEFAULT_SOAK_TIMING: SoakTiming = { intervalMs: 3_000, progressEveryMs: 30_000 };

/** What a soak needs of the run. */
export type SoakRun = Pick<FleetRun, 'kubeconfig' | 'secrets' | 'log' | 'deadlineAt' | 'cancel' | 'onClusterError'> & {
  options: { soakMs?: number | undefined };
};

interface Watched {
  ref: ObjectRef;
  instance: string;
}

interface Turned {
  object: Watched;
  status: ReadinessStatus;
  message: string;
  afterMs: number;
}

type ClusterSoak = { held: true } | { held: false; turned: Turned } | { cut: 'deadline' | 'cancelled' | 'stopped' };

/** The objects of a cluster's entry that the soak watches (see the head of this file). */
export function watchedObjects(entry: ClusterChanges): Watched[] {
  const left: ReadonlySet<ObjectChange['action']> = new Set(['deleted', 'skipped', 'failed']);
  return entry.instances.flatMap((instance) =>
    instance.changes
      .filter((change) => !left.has(change.action) && change.kind !== 'Job')
      .map((change) => ({
        ref: { apiVersion: change.apiVersion, kind: change.kind, namespace: change.namespace, name: change.name },
        instance: instance.name,
      })),
  );
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

async function readStatus(kube: KubeCluster, ref: ObjectRef): Promise<{ status: ReadinessStatus; message: string }> {
  try {
    const live = await kube.get(ref);
    if (live && anyInMetadata(live, { [annotations.wait]: disabledValue }))
      return { status: 'Current', message: 'not watched (wait disabled)' };
    return computeStatus(live);
  } catch (error) {
    return { status: 'Unknown', message: `status not read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Watches one cluster's objects until `endAt`, or until one turns not ready, or `stop` aborts. */
async function soakCluster(
  run: SoakRun,
  entry: ClusterChanges,
  endAt: number,
  timing: SoakTiming,
  stop: AbortSignal,
): Promise<ClusterSoak> {
  const watched = watchedObjects(entry);
  const startedAt = Date.now();
  const kube = openCluster(run.kubeconfig, entry.kubeContext || undefined, { secrets: run.secrets, name: entry.name });
  const notReadyRounds = new Map<string, number>();
  try {
    for (;;) {
      const round = await withRequestDeadline(endAt, () =>
        Promise.all(watched.map(async (object) => ({ object, ...(await readStatus(kube, object.ref)) }))),
      );
      if (stop.aborted) return { cut: 'stopped' };
      for (const read of round) {
        const key = formatRef(read.object.ref);
        if (read.status === 'Current') {
          notReadyRounds.delete(key);
          continue;
        }
        const rounds = (notReadyRounds.get(key) ?? 0) + 1;
        notReadyRounds.set(key, rounds);
        if (rounds >= NOT_READY_ROUNDS[read.status])
          return { held: false, turned: { ...read, afterMs: Date.now() - startedAt } };
      }
      const left = endAt - Date.now();
      if (left <= 0) return { held: true };
      await pause(Math.min(timing.intervalMs, left), stop);
      if (stop.aborted) return { cut: 'stopped' };
    }
  } finally {
    kube.close();
  }
}

/** The cluster's entry once the soak failed it: status `failed` at step `soak`, the object's readiness as last read. */
function failedEntry(entry: ClusterChanges, turned: Turned, soakMs: number): ClusterChanges {
  const object = formatRef(turned.object.ref);
  const message = `cluster ${entry.name}: ${object} of instance ${turned.object.instance} turned not ready during the soak, ${formatDuration(turned.afterMs)} into ${formatLimit(soakMs)}: status '${turned.status}': ${turned.message}`;
  const same = (change: ObjectChange) =>
    change.kind === turned.object.ref.kind &&
    change.namespace === turned.object.ref.namespace &&
    change.name === turned.object.ref.name;
  return {
    ...entry,
    status: 'failed',
    error: { step: SOAK_STEP, message, instance: turned.object.instance, object },
    instances: entry.instances.map((instance) =>
      instance.name !== turned.object.instance
        ? instance
        : {
            ...instance,
            changes: instance.changes.map((change) =>
              same(change) ? { ...change, readiness: { status: turned.status, message: turned.message } } : change,
            ),
          },
    ),
  };
}

/**
 * Soaks the clusters of `entries` that were applied (`what` names them in the log: `wave 1
 * of 2 (group staging)`, `cluster staging-1`); answers the entries in the same order, a
 * cluster that turned not ready replaced by its failed entry. Does nothing without a soak.
 */
export async function soakClusters(
  run: SoakRun,
  entries: readonly ClusterChanges[],
  what: string,
  timing: SoakTiming = DEFAULT_SOAK_TIMING,
): Promise<ClusterChanges[]> {
  const soakMs = run.options.soakMs;
  const applied = entries.filter((entry) => entry.status === 'applied');
  if (!soakMs || applied.length === 0) return [...entries];
  const startedAt = Date.now();
  const endAt = Math.min(startedAt + soakMs, run.deadlineAt ?? Infinity);
  const count = applied.reduce((sum, entry) => sum + watchedObjects(entry).length, 0);
  run.log.line(
    `soak of ${what}: watching ${count} object(s) on ${applied.map((entry) => entry.name).join(', ')} for ${formatLimit(soakMs)} before going on`,
  );
  const stop = new AbortController();
  const onCancel = () => stop.abort();
  run.cancel?.addEventListener('abort', onCancel, { once: true });
  const progress = setInterval(() => {
    const left = Math.max(0, startedAt + soakMs - Date.now());
    run.log.line(`soak of ${what}: every object ready so far, ${formatDuration(left)} left`);
  }, timing.progressEveryMs);
  let results: ClusterSoak[];
  try {
    results = await Promise.all(
      applied.map(async (entry) => {
        const cut = (why: 'deadline' | 'cancelled'): ClusterSoak => ({ cut: why });
        const result = await withinDeadline(
          soakCluster(run, entry, endAt, timing, stop.signal),
          endAt + CLUSTER_GRACE_MS,
          cut,
          run.cancel,
        );
        // One cluster turned not ready: the others stop watching, the rollout stops anyway.
        if ('held' in result && !result.held) stop.abort();
        return result;
      }),
    );
  } finally {
    clearInterval(progress);
    run.cancel?.removeEventListener('abort', onCancel);
  }
  const failed = new Map<string, ClusterChanges>();
  applied.forEach((entry, index) => {
    const result = results[index];
    if (result && 'held' in result && !result.held) failed.set(entry.name, failedEntry(entry, result.turned, soakMs));
  });
  const elapsed = formatDuration(Date.now() - startedAt);
  if (failed.size > 0) {
    for (const entry of failed.values()) {
      const error = new Error(entry.error?.message ?? `cluster ${entry.name} failed its soak`);
      tellFailure(run, entry.name, (text) => run.log.line(text), error);
    }
    run.log.line(`soak of ${what} failed after ${elapsed}: ${[...failed.keys()].join(', ')} turned not ready`);
  } else if (run.cancel?.aborted) {
    run.log.line(
      `soak of ${what} cut short after ${elapsed}: ${cancellationOf(run.cancel)?.message ?? 'the run was cancelled'}`,
    );
  } else if (endAt < startedAt + soakMs) {
    run.log.line(
      `soak of ${what} cut short after ${elapsed} by the run's deadline; every object stayed ready until then`,
    );
  } else {
    run.log.line(`soak of ${what} passed: every object stayed ready for ${formatLimit(soakMs)}`);
  }
  return entries.map((entry) => failed.get(entry.name) ?? entry);
}
