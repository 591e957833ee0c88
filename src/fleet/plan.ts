// The plan: what would change on every selected cluster, computed with server-side apply
// dry-runs and nothing written. In a cluster, each instance is diffed as soon as it is
// built, while the CUE engine builds the next ones. Clusters are diffed at once (bounded); a cluster that fails
// (down, bad credentials, a CUE error in its values) is reported as failed while the others
// are still diffed. Clusters keep runtime order in the ChangeSet. One object that the API
// server refuses (an immutable field, an invalid value) is a `failed` change: the other
// objects and instances are still diffed and shown, and the cluster is failed. Instances
// that the bundle no longer lists follow the bundle's, as `removed` (removed-instances.ts).
import { selectClusters, type RuntimeCluster } from '../bundle/index.js';
import { diffInstance } from '../kube/instance-diff.js';
import { InstanceStepError } from '../kube/instance.js';
import { mapBounded, settleBounded } from '../concurrency.js';
import { CHANGESET_FORMAT, isChangingAction, type ChangeSet, type ClusterChanges, type ClusterError, type InstanceChanges, type ObjectChange } from '../changeset.js';
import { InstanceBuilds } from '../module/build.js';
import { changeLine, clusterEntry, clusterError, ClusterStepError, logPrefix } from './outcome.js';
import { removedInstancesPlan } from './removed-instances.js';
import { desiredOfBuild, withDesired } from './reviewed.js';
import { BufferedLog, withinDeadline, type FleetRun } from './run.js';
import { allBuilt, connectCluster, instanceInput, moduleInfo, startClusterBuilds, withIdentity, type ClusterInstanceBuild, type ClusterSession } from './session.js';

async function planCluster(run: FleetRun, cluster: RuntimeCluster, log: BufferedLog, bundleName: { value: string }, builds: InstanceBuilds): Promise<ClusterChanges> {
  const startedAt = Date.now();
  const connected = await connectCluster(run, cluster, (text) => log.line(text), startedAt);
  if ('failed' in connected) return connected.failed;
  const { session } = connected;
  try {
    const started = await startClusterBuilds(run.engine, run.evaluation, run.resolver, session, (value) => run.secrets.register(value), builds);
    const bundle = started.evaluated.bundle.name;
    bundleName.value ||= bundle;
    const { built, instances } = await diffWhenBuilt(run, session, cluster.name, bundle, started.instances, (text) => log.line(text));
    if (run.options.prune && run.options.pruneRemovedInstances) {
      instances.push(...(await removedInstancesPlan(session.kube, bundle, built, (text) => log.line(`${logPrefix(bundle, cluster.name)} > ${text}`))));
    }
    const failure = failedObjects(cluster.name, instances);
    if (failure) {
      log.line(`✗ ${failure.message}`);
      run.onClusterError?.(cluster.name, new Error(failure.message));
      return withIdentity(session, clusterEntry(cluster, 'failed', instances, failure, startedAt));
    }
    const changed = instances.some((i) => i.changes.some((c) => isChangingAction(c.action)));
    return withDesired(withIdentity(session, clusterEntry(cluster, changed ? 'changed' : 'unchanged', instances, null, startedAt)), run.recordDesired ? desiredOfBuild(built) : undefined);
  } catch (error) {
    log.line(`✗ ${error instanceof Error ? error.message : String(error)}`);
    run.onClusterError?.(cluster.name, error);
    return withIdentity(session, clusterEntry(cluster, 'failed', [], clusterError(error, 'diff'), startedAt));
  } finally {
    session.kube.close();
  }
}

/** Instances of one cluster diffed at once (each waits for its build first). */
const INSTANCE_DIFFS_AT_ONCE = 4;

/**
 * The instances' dry-run diffs, each once it is built, a few at once, while the engine
 * builds the next ones (a dry-run writes nothing, so one instance's diff never depends on
 * another's). What they tell comes once all are settled, as when every build came first
 * and the diffs ran one after the other: a failed build fails the cluster before any diff
 * is told, and otherwise the first failed diff in bundle order is the cluster's, the lines
 * of the instances before it told, none after.
 */
async function diffWhenBuilt(
  run: FleetRun,
  session: ClusterSession,
  cluster: string,
  bundle: string,
  builds: readonly Promise<ClusterInstanceBuild>[],
  line: (text: string) => void,
): Promise<{ built: ClusterInstanceBuild[]; instances: InstanceChanges[] }> {
  const outcomes = await settleBounded(builds, INSTANCE_DIFFS_AT_ONCE, async (pending) => {
    const instance = await pending;
    let changes: ObjectChange[];
    try {
      ({ changes } = await diffInstance(session.kube, instanceInput(bundle, instance), { force: run.options.force, overwriteOwnership: run.options.overwriteOwnership }));
    } catch (error) {
      if (error instanceof InstanceStepError) throw new ClusterStepError(error.step, error, instance.name, error.object);
      throw new ClusterStepError('diff', error, instance.name);
    }
    const changesOf: InstanceChanges = { name: instance.name, namespace: instance.namespace, module: moduleInfo(instance), changes };
    return changesOf;
  });
  // Every build has settled by now: this only finds the first failed one.
  const built = await allBuilt(builds);
  const instances: InstanceChanges[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') throw outcome.reason;
    const changes = outcome.value;
    for (const change of changes.changes) line(changeLine(bundle, cluster, changes.name, change) + (change.error ? `: ${change.error}` : ''));
    instances.push(changes);
  }
  return { built, instances };
}

/** The cluster's error when objects failed their dry-run: each object with the server's answer. */
export function failedObjects(cluster: string, instances: readonly InstanceChanges[]): ClusterError | null {
  const failed = instances.flatMap((instance) => instance.changes.filter((change) => change.action === 'failed').map((change) => ({ instance: instance.name, change })));
  const first = failed[0];
  if (!first) return null;
  const prefix = `cluster ${cluster}: `;
  const reasons = failed.map(({ instance, change }) => `instance ${instance}: ${(change.error ?? 'failed').replace(prefix, '')}`);
  const count = failed.length === 1 ? 'one object' : `${failed.length} objects`;
  const message = `${prefix}the API server refused ${count} in the dry-run (the other objects are diffed): ${reasons.join('; ')}`;
  const ref = [first.change.kind, first.change.namespace, first.change.name].filter(Boolean).join('/');
  return { step: 'diff', message, instance: first.instance, object: ref };
}

export async function planFleet(run: FleetRun): Promise<ChangeSet> {
  const clusters = selectClusters(run.evaluation.runtime, run.selector);
  const bundleName = { value: '' };
  const builds = new InstanceBuilds(run.engine);
  run.log.line(`diffing ${clusters.length} cluster(s), ${Math.min(run.options.concurrency, clusters.length)} at a time`);
  const results = await mapBounded(clusters, run.options.concurrency, async (cluster) => {
    const log = new BufferedLog();
    const startedAt = Date.now();
    const entry = await withinDeadline(planCluster(run, cluster, log, bundleName, builds), run.deadlineAt ?? Infinity, () =>
      clusterEntry(cluster, 'failed', [], { step: 'deadline', message: `the run passed its deadline while cluster ${cluster.name} was being diffed` }, startedAt),
    );
    log.flushInto(run.log, `cluster ${cluster.name} (${cluster.group}): ${entry.status}`);
    return entry;
  });
  return { format: CHANGESET_FORMAT, bundle: bundleName.value, mode: 'diff', clusters: results };
}
