// The plan: what would change on every selected cluster, computed with server-side apply
// dry-runs and nothing written. In a cluster, each instance is diffed as soon as it is
// built, while the CUE engine builds the next ones. Clusters are diffed at once (bounded); a cluster that fails
// (down, bad credentials, a CUE error in the bundle) is reported as failed while the others
// are still diffed. Clusters keep runtime order in the ChangeSet. One broken instance does
// not hide the rest: an instance that does not build (a values error, a module that cannot
// be fetched) or whose dry-run stops is listed in its place with its error, the other
// instances are still built, diffed and shown, and the cluster is failed, its error the
// first failure in bundle order (instance-failures.ts). One object that the API server
// refuses (an immutable field, an invalid value) is a `failed` change: the other objects
// and instances are still diffed and shown, and the cluster is failed. Instances that the
// bundle no longer lists follow the bundle's, as `removed` (removed-instances.ts).
import { type BundleInstance, type RuntimeCluster } from '../bundle/index.js';
import { isEngineStopped } from '../cue/index.js';
import { diffInstance, InstanceStepError, isReservedRefusal } from '../kube/instance/index.js';
import { mapBounded, settleBounded } from '../concurrency.js';
import {
  CHANGESET_FORMAT,
  isChangingAction,
  type ChangeSet,
  type ClusterChanges,
  type ClusterError,
  type InstanceChanges,
} from '../changeset.js';
import { InstanceBuilds } from '../module/build.js';
import {
  clusterErrorOfInstance,
  instanceStepError,
  unbuiltInstanceEntry,
  undiffedInstanceEntry,
} from './instance-failures.js';
import { changeLine, clusterEntry, clusterError, ClusterStepError, logPrefix, tellFailure } from './outcome.js';
import { removedInstancesPlan } from './removed-instances.js';
import { planLeaves } from './leaving-clusters.js';
import { orphanedEntries } from './orphaned-clusters.js';
import {
  membershipSource,
  resolveMembership,
  selectHeadClusters,
  withMembership,
  withRenamesRepinned,
} from './membership.js';
import { desiredOfBuild, withDesired } from './desired-state.js';
import { rollbackOf, startRunBuilds } from './revision-rollback.js';
import {
  BufferedLog,
  ClusterProgress,
  deadlineError,
  EVALUATION_ABANDONED,
  FAILURE_MARK,
  reservedObjectRules,
  WARNING_MARK,
  withinDeadline,
  type FleetRun,
} from './fleet-run.js';
import {
  connectCluster,
  instanceInput,
  moduleInfo,
  withIdentity,
  type ClusterInstanceBuild,
  type ClusterSession,
} from './session.js';

async function planCluster(
  run: FleetRun,
  cluster: RuntimeCluster,
  log: BufferedLog,
  bundleName: { value: string },
  builds: InstanceBuilds,
  progress: ClusterProgress,
): Promise<ClusterChanges> {
  const startedAt = Date.now();
  const connected = await connectCluster(run, cluster, (text) => log.line(text), startedAt);
  if ('failed' in connected) return connected.failed;
  const { session } = connected;
  try {
    // The bundle's builds, or for a rollback to a revision its history's (revision-rollback.ts).
    progress.at('evaluate');
    const started = await startRunBuilds(run, session, builds, (text) => log.line(text));
    const bundle = started.evaluated.bundle.name;
    bundleName.value ||= bundle;
    progress.at('build');
    const buildsSince = Date.now();
    const { built, instances, allBuilt, abandoned } = await diffWhenBuilt(
      run,
      session,
      cluster.name,
      bundle,
      started.evaluated.bundle.instances,
      started.instances,
      (text) => log.line(text),
      progress,
    );
    // An instance whose build the deadline stopped: the cluster is failed at the deadline,
    // told once (the instance's own line said the engine was stopped).
    if (abandoned) {
      const error = deadlineError(
        run,
        cluster.name,
        { step: abandoned.step, since: buildsSince, ...(abandoned.instance ? { instance: abandoned.instance } : {}) },
        EVALUATION_ABANDONED,
      );
      tellFailure(run, cluster.name, (text) => log.line(text), new Error(error.message));
      return withIdentity(session, clusterEntry(cluster, 'failed', instances, error, startedAt));
    }
    // A rollback to a revision deletes no instance (revision-rollback.ts).
    if (run.options.prune && run.options.pruneRemovedInstances && !run.rollbackTo) {
      // An instance that did not build still belongs to the bundle, but its objects are unknown:
      // what deleting the removed instances would do cannot be told without them.
      if (allBuilt)
        instances.push(
          ...(await removedInstancesPlan(
            session.kube,
            bundle,
            built,
            (text) => log.line(`${logPrefix(bundle, cluster.name)} > ${text}`),
            (text) => log.line(`${WARNING_MARK}${text}`),
          )),
        );
      else
        log.line(
          `${logPrefix(bundle, cluster.name)} > instances removed from the bundle are not looked for: not every instance was built`,
        );
    }
    const failure = clusterFailure(cluster.name, instances);
    if (failure) {
      // An instance's own failure was told in its place; refused objects are summed up here.
      if (!failure.told) {
        tellFailure(run, cluster.name, (text) => log.line(text), new Error(failure.error.message));
      }
      return withIdentity(session, clusterEntry(cluster, 'failed', instances, failure.error, startedAt));
    }
    const changed = instances.some((i) => i.changes.some((c) => isChangingAction(c.action)));
    return withDesired(
      withIdentity(session, clusterEntry(cluster, changed ? 'changed' : 'unchanged', instances, null, startedAt)),
      run.recordDesired ? desiredOfBuild(built) : undefined,
    );
  } catch (error) {
    // An evaluation the deadline stopped (the action's watchdog stopped the engine): where it was, for how long.
    const failure = isEngineStopped(error)
      ? deadlineError(
          run,
          cluster.name,
          { step: clusterError(error, progress.step).step, since: progress.since },
          EVALUATION_ABANDONED,
        )
      : clusterError(error, 'diff');
    tellFailure(
      run,
      cluster.name,
      (text) => log.line(text),
      isEngineStopped(error) ? new Error(failure.message) : error,
    );
    return withIdentity(session, clusterEntry(cluster, 'failed', [], failure, startedAt));
  } finally {
    session.kube.close();
  }
}

/** Instances of one cluster diffed at once (each waits for its build first). */
const INSTANCE_DIFFS_AT_ONCE = 4;

/** One instance as the plan found it: its entry, its failure when it failed as a whole, its build when there was one. */
interface InstanceOutcome {
  entry: InstanceChanges;
  failure?: ClusterStepError;
  built?: ClusterInstanceBuild;
  /** The build failed because the deadline stopped the engine. */
  abandoned?: boolean;
}

/**
 * The instances' dry-run diffs, each once it is built, a few at once, while the engine
 * builds the next ones (a dry-run writes nothing, so one instance's diff never depends on
 * another's). What they tell comes once all are settled, in bundle order, as when the
 * instances were built and diffed one after the other: each instance's change lines, or
 * its failure (a build that failed, a dry-run that stopped) in its place, once. Every
 * instance is listed; `allBuilt` is false when one did not build.
 */
async function diffWhenBuilt(
  run: FleetRun,
  session: ClusterSession,
  cluster: string,
  bundle: string,
  bundleInstances: readonly BundleInstance[],
  builds: readonly Promise<ClusterInstanceBuild>[],
  line: (text: string) => void,
  progress: ClusterProgress,
): Promise<{
  built: ClusterInstanceBuild[];
  instances: InstanceChanges[];
  allBuilt: boolean;
  /** The first instance whose build the deadline stopped (its engine stopped), if any. */
  abandoned?: ClusterStepError;
}> {
  const outcomes = await settleBounded(
    builds,
    INSTANCE_DIFFS_AT_ONCE,
    async (pending, index): Promise<InstanceOutcome> => {
      const declared = bundleInstances[index];
      if (!declared)
        throw new Error(`cluster ${cluster}: the build of instance ${index + 1} has no instance in the bundle`);
      let instance: ClusterInstanceBuild;
      try {
        instance = await pending;
      } catch (error) {
        const failure = instanceStepError(error, 'build', declared.name);
        return { entry: unbuiltInstanceEntry(declared, failure), failure, abandoned: isEngineStopped(error) };
      }
      progress.at('diff');
      const entry = {
        name: instance.name,
        namespace: instance.namespace,
        module: moduleInfo(instance),
        ...(instance.revision ? { revision: instance.revision } : {}),
      };
      try {
        const { changes } = await diffInstance(session.kube, instanceInput(bundle, instance), {
          force: run.options.force,
          overwriteOwnership: run.options.overwriteOwnership,
          // Objects that are (or look like) records read back are refused (../kube/instance/reserved-objects.ts).
          ...reservedObjectRules(run),
        });
        return { entry: { ...entry, changes }, built: instance };
      } catch (error) {
        if (error instanceof InstanceStepError) {
          const failure = new ClusterStepError(error.step, error, instance.name, error.object);
          return { entry: undiffedInstanceEntry(entry, failure, error.changes), failure, built: instance };
        }
        const failure = new ClusterStepError('diff', error, instance.name);
        return { entry: undiffedInstanceEntry(entry, failure, []), failure, built: instance };
      }
    },
  );
  const built: ClusterInstanceBuild[] = [];
  const instances: InstanceChanges[] = [];
  let allBuilt = true;
  let abandoned: ClusterStepError | undefined;
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') throw outcome.reason;
    const { entry, failure } = outcome.value;
    if (outcome.value.abandoned && failure) abandoned ??= failure;
    for (const change of entry.changes)
      line(changeLine(bundle, cluster, entry.name, change) + (change.error ? `: ${change.error}` : ''));
    if (failure) {
      tellFailure(run, cluster, line, failure);
    }
    if (outcome.value.built) built.push(outcome.value.built);
    else allBuilt = false;
    instances.push(entry);
  }
  return { built, instances, allBuilt, ...(abandoned ? { abandoned } : {}) };
}

/**
 * The cluster's error from its instances: the first failure in bundle order, an instance's
 * own (`told`: logged in its place already) or its refused objects' (all of the cluster's
 * refused objects summed up, failedObjects); null when nothing failed.
 */
export function clusterFailure(
  cluster: string,
  instances: readonly InstanceChanges[],
): { error: ClusterError; told: boolean } | null {
  for (const instance of instances) {
    if (instance.error) return { error: clusterErrorOfInstance(instance.name, instance.error), told: true };
    if (instance.changes.some((change) => change.action === 'failed')) {
      const error = failedObjects(cluster, instances);
      if (error) return { error, told: false };
    }
  }
  return null;
}

/** The cluster's error when objects failed their dry-run: each object with the server's answer. */
export function failedObjects(cluster: string, instances: readonly InstanceChanges[]): ClusterError | null {
  const failed = instances.flatMap((instance) =>
    instance.changes
      .filter((change) => change.action === 'failed')
      .map((change) => ({ instance: instance.name, change })),
  );
  const first = failed[0];
  if (!first) return null;
  const prefix = `cluster ${cluster}: `;
  const reasons = failed.map(
    ({ instance, change }) => `instance ${instance}: ${(change.error ?? 'failed').replace(prefix, '')}`,
  );
  const count = (n: number) => (n === 1 ? 'one object' : `${n} objects`);
  // Objects refused as records read back (../kube/instance/reserved-objects.ts) come first:
  // an apply refuses the whole cluster for them (step `reserved`), whatever the server says.
  const reserved = failed.filter(({ change }) => isReservedRefusal(change));
  const shown = reserved[0] ?? first;
  const ref = [shown.change.kind, shown.change.namespace, shown.change.name].filter(Boolean).join('/');
  if (reserved.length > 0) {
    const message = `${prefix}${count(reserved.length)} of the bundle refused (an apply applies nothing to the cluster): ${reasons.join('; ')}`;
    return { step: 'reserved', message, instance: shown.instance, object: ref };
  }
  const message = `${prefix}the API server refused ${count(failed.length)} in the dry-run (the other objects are diffed): ${reasons.join('; ')}`;
  return { step: 'diff', message, instance: first.instance, object: ref };
}

export async function planFleet(given: FleetRun): Promise<ChangeSet> {
  const clusters = selectHeadClusters(given);
  // Fleet membership (membership.ts): a renamed cluster is diffed as re-pinned (its record
  // names its base name), and the clusters that leave are diffed after the head's.
  // A rollback to a revision changes no membership: it puts instances back where they are.
  const membership = given.rollbackTo ? undefined : await resolveMembership(given);
  const run = withRenamesRepinned(given, membership?.renames ?? []);
  const bundleName = { value: '' };
  const builds = new InstanceBuilds(run.engine);
  run.log.line(
    `diffing ${clusters.length} cluster(s), ${Math.min(run.options.concurrency, clusters.length)} at a time`,
  );
  const results = await mapBounded(clusters, run.options.concurrency, async (cluster) => {
    const log = new BufferedLog();
    const startedAt = Date.now();
    const progress = new ClusterProgress('connect');
    const entry = await withinDeadline(
      planCluster(run, cluster, log, bundleName, builds, progress),
      run.deadlineAt ?? Infinity,
      () => {
        // A request or a module pull still running: not waited for; the cluster says where it was.
        const error = deadlineError(run, cluster.name, progress, 'its work was abandoned, not waited for');
        log.line(`${FAILURE_MARK}${error.message}`);
        return clusterEntry(cluster, 'failed', [], error, startedAt);
      },
    );
    log.flushInto(run.log, `cluster ${cluster.name} (${cluster.group}): ${entry.status}`);
    return entry;
  });
  const leaving = membership ? await planLeaves(run, membership, bundleName.value) : [];
  if (run.lookForOrphans) {
    const known = new Set([...results, ...leaving].map((entry) => entry.name));
    for (const orphan of await orphanedEntries(run, bundleName.value, known)) {
      run.log.line(`cluster ${orphan.name}: ${orphan.bundleKept?.reason ?? 'holds the bundle'}`);
      leaving.push(orphan);
    }
  }
  const source = membershipSource(given);
  if (given.baseRuntimeWarning) run.log.line(`fleet membership not compared: ${given.baseRuntimeWarning}`);
  return {
    format: CHANGESET_FORMAT,
    bundle: bundleName.value,
    mode: 'diff',
    clusters: [...withMembership(results, membership?.renames ?? []), ...leaving],
    ...(source ? { membership: source } : {}),
    ...rollbackOf(given),
  };
}
