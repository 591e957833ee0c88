// The rollout: apply the bundle cluster by cluster in runtime order (staging before
// production), stop at the first failure, and list the clusters not reached. Nothing is
// rolled back unless `on-failure: rollback` asks it (rollback.ts: the failed cluster, and
// with waves the other clusters of its wave, put back as they were before the run); a
// failed cluster says which step failed and what was already applied. A
// cluster with an instance that does not build is applied nothing (instance-failures.ts).
// `timeoutMs` bounds each cluster as a whole (connect, build, every instance's waits),
// not each instance. With prune, instances the bundle no longer lists are deleted last.
// Each instance applied in full is added to its history (instance-history.ts).
// With `strategy: waves` the clusters of one group are applied at once (waves.ts).
// A cancelled run (`run.cancel`) stops as at its deadline: no cluster, instance or object
// is started after it; the cluster in flight writes the records of what it applied
// (../kube/instance/instance-apply.ts) and is reported `failed` at step `cancelled`, with the step it
// was in (`interrupted`); the clusters after it are not reached.
import type { RuntimeCluster } from '../bundle/index.js';
import { cancellationOf } from '../cancellation.js';
import {
  applyInstance,
  assertOwnership,
  InstanceCancelledError,
  InstanceStepError,
  type HistoryReviewed,
  type InstanceSnapshot,
} from '../kube/instance/index.js';
import {
  CANCELLED_STEP,
  CHANGESET_FORMAT,
  isCancelled,
  type ChangeSet,
  type ClusterChanges,
  type DesiredState,
  type InstanceChanges,
} from '../changeset.js';
import { InstanceBuilds } from '../module/build.js';
import { builtOrNothing, refuseReservedObjects } from './instance-failures.js';
import {
  clusterEntry,
  clusterError,
  ClusterStepError,
  logPrefix,
  skippedEntry,
  tellFailure,
  withReadiness,
} from './outcome.js';
import {
  needsRollback,
  RestorePoint,
  rollBackCluster,
  rollBackWave,
  snapshotsBefore,
  withRollback,
} from './rollback.js';
import { recordHistory } from './instance-history.js';
import { removedInstancesApply } from './removed-instances.js';
import { rollOutLeaves } from './leaving-clusters.js';
import {
  membershipSource,
  resolveMembership,
  selectHeadClusters,
  withMembership,
  withRenamesRepinned,
  type Membership,
  type Rename,
} from './membership.js';
import { desiredOfBuild, withDesired } from './desired-state.js';
import { rollOutWaves, stoppedEntry } from './waves.js';
import { soakClusters } from './soak.js';
import {
  CLUSTER_GRACE_MS,
  FAILURE_MARK,
  reservedObjectRules,
  runStopped,
  WARNING_MARK,
  withinDeadline,
  type FleetRun,
} from './fleet-run.js';
import { bundleErrorOnce, connectCluster, instanceInput, moduleInfo, withIdentity } from './session.js';
import { rollbackOf, startRunBuilds } from './revision-rollback.js';

/** The run was cancelled while this cluster's work was at `step` (and instance, object). */
class ClusterCancelled extends Error {
  override name = 'ClusterCancelled';
  constructor(
    readonly step: string,
    message: string,
    readonly instance?: string,
    readonly object?: string,
  ) {
    super(message);
  }
}

/** Throws ClusterCancelled when the run is cancelled: called before each step that would start something. */
function stopIfCancelled(run: FleetRun, cluster: RuntimeCluster, step: string, instance?: string): void {
  const cancelled = run.cancel?.aborted
    ? (cancellationOf(run.cancel) ?? new Error('the run was cancelled'))
    : undefined;
  if (!cancelled) return;
  const before = instance ? `before instance ${instance}` : `at ${step}`;
  throw new ClusterCancelled(
    step,
    `cluster ${cluster.name}: ${cancelled.message} ${before}; nothing more was applied to the cluster`,
    instance,
  );
}

async function rollOutCluster(
  run: FleetRun,
  cluster: RuntimeCluster,
  line: (text: string) => void,
  bundleName: { value: string },
  builds: InstanceBuilds,
  point?: RestorePoint,
): Promise<ClusterChanges> {
  const startedAt = Date.now();
  // One time limit for the whole cluster, ending by the run's deadline: each instance gets what is left of it.
  const deadline = Math.min(startedAt + run.options.timeoutMs, run.deadlineAt ?? Infinity);
  const connected = await connectCluster(run, cluster, line, startedAt, 'apply');
  if ('failed' in connected) return connected.failed;
  const { session } = connected;
  const instances: InstanceChanges[] = [];
  let desired: DesiredState | undefined;
  try {
    stopIfCancelled(run, cluster, 'connect');
    // The bundle's builds, or for a rollback to a revision its history's (revision-rollback.ts).
    const started = await startRunBuilds(run, session, builds, line);
    const bundle = started.evaluated.bundle.name;
    bundleName.value ||= bundle;
    // All or nothing: an instance that does not build fails the cluster before anything is applied (instance-failures.ts).
    const build = {
      evaluated: started.evaluated,
      instances: await builtOrNothing(cluster.name, started, instances, line, (failure) =>
        run.onClusterError?.(cluster.name, failure),
      ),
    };
    // Nor is anything applied when an object is (or looks like) a record read back from clusters (instance-failures.ts).
    refuseReservedObjects(cluster.name, build.instances, reservedObjectRules(run), instances, line);
    stopIfCancelled(run, cluster, 'build');
    // What was reviewed is compared before anything is written (reviewed.ts; the action's `reviewed` input).
    // Its answer (the review matched) marks the revisions this cluster gets as reviewed in their history.
    let reviewed: HistoryReviewed | undefined;
    if (run.beforeApply || run.recordDesired) {
      desired = desiredOfBuild(build.instances);
      try {
        reviewed = run.beforeApply?.(cluster, bundle, desired) ?? undefined;
      } catch (error) {
        throw new ClusterStepError('review', error);
      }
    }
    // As Timoni, every instance's ownership is checked before any instance is applied.
    if (!run.options.overwriteOwnership) {
      try {
        await assertOwnership(session.kube, bundle, build.instances);
      } catch (error) {
        throw new ClusterStepError('ownership', error);
      }
    }
    // With `on-failure: rollback`, each instance's state before the run, read before anything is applied (rollback.ts).
    const before = point ? await snapshotsBefore(session.kube, build.instances) : new Map<string, InstanceSnapshot>();
    if (point) point.bundle = bundle;
    for (const instance of build.instances) {
      stopIfCancelled(run, cluster, 'apply', instance.name);
      const snapshot = before.get(instance.name);
      if (point && snapshot) point.touched.push({ snapshot, module: moduleInfo(instance) });
      line(
        `${logPrefix(bundle, cluster.name, instance.name)} > applying module ${instance.module.name} version ${instance.module.version}`,
      );
      try {
        const result = await applyInstance(session.kube, instanceInput(bundle, instance), {
          force: run.options.force,
          overwriteOwnership: run.options.overwriteOwnership,
          wait: run.options.wait,
          timeoutMs: run.options.timeoutMs,
          deadline,
          // A rollback to a revision puts the instance back whole: objects the newer revisions added go.
          prune: run.options.prune || run.rollbackTo !== undefined,
          ...reservedObjectRules(run),
          ...(run.cancel ? { signal: run.cancel } : {}),
          log: (text) => line(`${logPrefix(bundle, cluster.name, instance.name)} > ${text}`),
        });
        instances.push({
          name: instance.name,
          namespace: instance.namespace,
          module: moduleInfo(instance),
          changes: withReadiness(result.changes, result.readiness),
          ...(instance.revision ? { revision: instance.revision } : {}),
        });
        // The revision applied goes into the instance's history; a failure to write it is a warning, not a failed cluster.
        await recordHistory(run, session.kube, result.record, line, { rollbackTo: instance.revision?.to, reviewed });
      } catch (error) {
        if (error instanceof InstanceCancelledError) {
          instances.push({
            name: instance.name,
            namespace: instance.namespace,
            module: moduleInfo(instance),
            changes: withReadiness(error.changes, error.readiness),
          });
          throw new ClusterCancelled(error.step, error.message, instance.name, error.object);
        }
        if (error instanceof InstanceStepError) {
          instances.push({
            name: instance.name,
            namespace: instance.namespace,
            module: moduleInfo(instance),
            changes: error.changes,
          });
          throw new ClusterStepError(error.step, error, instance.name, error.object);
        }
        throw new ClusterStepError('apply', error, instance.name);
      }
    }
    // Instances the bundle no longer lists go last, once every listed instance is applied
    // (an object moved to a listed instance has its new owner's labels by then, and stays).
    // A rollback to a revision deletes no instance (revision-rollback.ts).
    if (run.options.prune && run.options.pruneRemovedInstances && !run.rollbackTo) {
      stopIfCancelled(run, cluster, 'prune');
      await removedInstancesApply(
        session.kube,
        bundle,
        build.instances,
        {
          wait: run.options.wait,
          timeoutMs: run.options.timeoutMs,
          deadline,
          log: (text) => line(`${logPrefix(bundle, cluster.name)} > ${text}`),
          warn: (text) => line(`${WARNING_MARK}${text}`),
        },
        instances,
      );
    }
    return withDesired(withIdentity(session, clusterEntry(cluster, 'applied', instances, null, startedAt)), desired);
  } catch (error) {
    if (error instanceof ClusterCancelled) {
      line(`⏹ ${error.message}`);
      const cancelled = {
        step: CANCELLED_STEP,
        interrupted: error.step,
        message: error.message,
        ...(error.instance ? { instance: error.instance } : {}),
        ...(error.object ? { object: error.object } : {}),
      };
      return withDesired(
        withIdentity(session, clusterEntry(cluster, 'failed', instances, cancelled, startedAt)),
        desired,
      );
    }
    tellFailure(run, cluster.name, line, error);
    return withDesired(
      withIdentity(session, clusterEntry(cluster, 'failed', instances, clusterError(error, 'apply'), startedAt)),
      desired,
    );
  } finally {
    session.kube.close();
  }
}

/**
 * One cluster's rollout, waited for until its time limit (and the run's deadline) plus a
 * grace; `point` (with `on-failure: rollback`) keeps what a rollback needs.
 */
function rollOutWithinLimit(
  run: FleetRun,
  cluster: RuntimeCluster,
  line: (text: string) => void,
  bundleName: { value: string },
  builds: InstanceBuilds,
  point?: RestorePoint,
): Promise<ClusterChanges> {
  const startedAt = Date.now();
  const limit = Math.min(startedAt + run.options.timeoutMs, run.deadlineAt ?? Infinity);
  const work = rollOutCluster(run, cluster, line, bundleName, builds, point);
  if (point) point.work = work;
  return withinDeadline(
    work,
    limit + CLUSTER_GRACE_MS,
    (why) =>
      why === 'cancelled'
        ? clusterEntry(
            cluster,
            'failed',
            [],
            {
              step: CANCELLED_STEP,
              interrupted: 'apply',
              message: `cluster ${cluster.name}: ${cancellationOf(run.cancel)?.message ?? 'the run was cancelled'}, and its work in flight did not end within the grace given to it; objects may have been applied in part and Timoni's instance record not written for them`,
            },
            startedAt,
          )
        : clusterEntry(
            cluster,
            'failed',
            [],
            {
              step: 'timeout',
              message: `cluster ${cluster.name} did not finish within its time limit; objects may have been applied in part (an apply already sent is not undone)`,
            },
            startedAt,
          ),
    run.cancel,
  );
}

/**
 * The renames this rollout re-pins: each one its `beforeRename` accepts (the action: one the
 * reviewed record holds); a refused one is logged, and its cluster's record left as it is.
 */
function acceptedRenames(run: FleetRun, membership: Membership | undefined): Rename[] {
  return (membership?.renames ?? []).filter((rename) => {
    try {
      run.beforeRename?.(rename.to, rename.from);
      return true;
    } catch (error) {
      run.log.line(
        `${FAILURE_MARK}cluster ${rename.to.name}: the rename from ${rename.from.name} is not re-pinned: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    }
  });
}

export async function rollOutFleet(given: FleetRun): Promise<ChangeSet> {
  const clusters = selectHeadClusters(given);
  // Fleet membership (membership.ts): renamed clusters re-pinned, leaving ones cleaned up last.
  // A rollback to a revision changes no membership: it puts instances back where they are.
  const membership = given.rollbackTo ? undefined : await resolveMembership(given);
  const renames = acceptedRenames(given, membership);
  const run = withRenamesRepinned(given, renames);
  const entries = await rollOutHead(run, clusters);
  const headFailed = entries.some((entry) => entry.status === 'failed' || entry.status === 'skipped');
  const leaving = membership ? await rollOutLeaves(run, membership, entries.bundle, headFailed) : [];
  const source = membershipSource(given);
  if (given.baseRuntimeWarning) run.log.line(`fleet membership not compared: ${given.baseRuntimeWarning}`);
  return {
    format: CHANGESET_FORMAT,
    bundle: entries.bundle,
    mode: 'apply',
    clusters: [...withMembership(entries, renames), ...leaving],
    ...(source ? { membership: source } : {}),
    ...rollbackOf(given),
  };
}

async function rollOutHead(run: FleetRun, clusters: RuntimeCluster[]): Promise<ClusterChanges[] & { bundle: string }> {
  const bundleName = { value: '' };
  const builds = new InstanceBuilds(run.engine);
  const withBundle = (entries: ClusterChanges[]) => Object.assign(entries, { bundle: bundleName.value });
  // A bundle error is told once, before the first cluster's log group opens (session.ts).
  await bundleErrorOnce(run);
  if (run.options.strategy === 'waves') {
    const points = new Map<string, RestorePoint>();
    const entries = await rollOutWaves(
      clusters,
      {
        maxParallel: run.options.maxParallel,
        log: run.log,
        deadlineAt: run.deadlineAt,
        cancel: run.cancel,
        soak: (wave, what) => soakClusters(run, wave, what),
        ...(run.options.onFailure === 'rollback'
          ? { afterFailedWave: (results) => rollBackWave(run, results, points, builds) }
          : {}),
      },
      (cluster, line) => {
        const point = run.options.onFailure === 'rollback' ? new RestorePoint(cluster) : undefined;
        if (point) points.set(cluster.name, point);
        return rollOutWithinLimit(run, cluster, line, bundleName, builds, point);
      },
    );
    logCancellation(run, entries);
    return withBundle(entries);
  }
  const entries: ClusterChanges[] = [];
  let failed = false;
  for (const cluster of clusters) {
    if (failed) {
      entries.push(skippedEntry(cluster));
      continue;
    }
    const stop = runStopped(run);
    if (stop) {
      entries.push(stoppedEntry(cluster, stop, cancellationOf(run.cancel)));
      failed = true;
      continue;
    }
    run.log.startGroup(`cluster ${cluster.name} (${cluster.group})`);
    const line = (text: string) => run.log.line(text);
    const point = run.options.onFailure === 'rollback' ? new RestorePoint(cluster) : undefined;
    let entry = await rollOutWithinLimit(run, cluster, line, bundleName, builds, point);
    // The soak gate (soak.ts): the cluster applied is watched before the next one starts.
    if (entry.status === 'applied') [entry = entry] = await soakClusters(run, [entry], `cluster ${cluster.name}`);
    // A cluster that failed (in its apply or in its soak) is put back when asked (on-failure: rollback).
    if (entry.status === 'failed' && needsRollback(run, point))
      entry = withRollback(entry, point, await rollBackCluster(run, point, builds, line));
    run.log.endGroup();
    entries.push(entry);
    failed = entry.status === 'failed';
  }
  const skipped = entries.filter((e) => e.status === 'skipped').map((e) => e.name);
  if (skipped.length > 0)
    run.log.line(
      `rollout stopped at cluster ${entries.find((e) => e.status === 'failed')?.name}; not reached: ${skipped.join(', ')}`,
    );
  logCancellation(run, entries);
  return withBundle(entries);
}

/**
 * The closing line of a cancelled rollout: the clusters applied, the one(s) interrupted and
 * where (instance, step, object), the ones not reached (a cluster the cancellation came
 * before is `failed` at `cancelled` in the ChangeSet, with `interrupted: start`, and counts here as not reached).
 */
export function cancellationLine(entries: readonly ClusterChanges[]): string | undefined {
  const cancelled = entries.filter(isCancelled);
  if (cancelled.length === 0) return undefined;
  const notStarted = (entry: ClusterChanges) => isCancelled(entry) && entry.error?.interrupted === 'start';
  const where = (entry: ClusterChanges) => {
    const error = entry.error;
    return `${entry.name} (${[error?.instance ? `instance ${error.instance}` : '', `step ${error?.interrupted ?? 'unknown'}`, error?.object ?? ''].filter(Boolean).join(', ')})`;
  };
  const list = (items: string[]) => (items.length > 0 ? items.join(', ') : 'none');
  const applied = entries.filter((entry) => entry.status === 'applied').map((entry) => entry.name);
  const interrupted = cancelled.filter((entry) => !notStarted(entry)).map(where);
  const failed = entries.filter((entry) => entry.status === 'failed' && !isCancelled(entry)).map((entry) => entry.name);
  const unreached = entries
    .filter((entry) => entry.status === 'skipped' || notStarted(entry))
    .map((entry) => entry.name);
  return `rollout cancelled: applied ${list(applied)}; interrupted ${list(interrupted)}${failed.length > 0 ? `; failed ${failed.join(', ')}` : ''}; not reached ${list(unreached)}`;
}

function logCancellation(run: FleetRun, entries: readonly ClusterChanges[]): void {
  const line = cancellationLine(entries);
  if (line) run.log.line(line);
}
