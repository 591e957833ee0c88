// The plan: what would change on every selected cluster, computed with server-side apply
// dry-runs and nothing written. Clusters are diffed at once (bounded); a cluster that fails
// (down, bad credentials, a CUE error in its values) is reported as failed while the others
// are still diffed. Clusters keep runtime order in the ChangeSet. One object that the API
// server refuses (an immutable field, an invalid value) is a `failed` change: the other
// objects and instances are still diffed and shown, and the cluster is failed. Instances
// that the bundle no longer lists follow the bundle's, as `removed` (removed-instances.ts).
import { selectClusters, type RuntimeCluster } from '../bundle/index.js';
import { diffInstance } from '../kube/instance-diff.js';
import { InstanceStepError } from '../kube/instance.js';
import { mapBounded } from '../concurrency.js';
import { CHANGESET_FORMAT, isChangingAction, type ChangeSet, type ClusterChanges, type ClusterError, type InstanceChanges, type ObjectChange } from '../changeset.js';
import { InstanceBuilds } from '../module/build.js';
import { changeLine, clusterEntry, clusterError, ClusterStepError, logPrefix } from './outcome.js';
import { removedInstancesPlan } from './removed-instances.js';
import { desiredOfBuild, withDesired } from './reviewed.js';
import { BufferedLog, withinDeadline, type FleetRun } from './run.js';
import { buildForCluster, connectCluster, instanceInput, moduleInfo, withIdentity } from './session.js';

async function planCluster(run: FleetRun, cluster: RuntimeCluster, log: BufferedLog, bundleName: { value: string }, builds: InstanceBuilds): Promise<ClusterChanges> {
  const startedAt = Date.now();
  const connected = await connectCluster(run, cluster, (text) => log.line(text), startedAt);
  if ('failed' in connected) return connected.failed;
  const { session } = connected;
  try {
    const build = await buildForCluster(run.engine, run.evaluation, run.resolver, session, (value) => run.secrets.register(value), builds);
    const bundle = build.evaluated.bundle.name;
    bundleName.value ||= bundle;
    const instances: InstanceChanges[] = [];
    for (const instance of build.instances) {
      let changes: ObjectChange[];
      try {
        ({ changes } = await diffInstance(session.kube, instanceInput(bundle, instance), { force: run.options.force, overwriteOwnership: run.options.overwriteOwnership }));
      } catch (error) {
        if (error instanceof InstanceStepError) throw new ClusterStepError(error.step, error, instance.name, error.object);
        throw new ClusterStepError('diff', error, instance.name);
      }
      for (const change of changes) log.line(changeLine(bundle, cluster.name, instance.name, change) + (change.error ? `: ${change.error}` : ''));
      instances.push({ name: instance.name, namespace: instance.namespace, module: moduleInfo(instance), changes });
    }
    if (run.options.prune && run.options.pruneRemovedInstances) {
      instances.push(...(await removedInstancesPlan(session.kube, bundle, build.instances, (text) => log.line(`${logPrefix(bundle, cluster.name)} > ${text}`))));
    }
    const failure = failedObjects(cluster.name, instances);
    if (failure) {
      log.line(`✗ ${failure.message}`);
      run.onClusterError?.(cluster.name, new Error(failure.message));
      return withIdentity(session, clusterEntry(cluster, 'failed', instances, failure, startedAt));
    }
    const changed = instances.some((i) => i.changes.some((c) => isChangingAction(c.action)));
    return withDesired(withIdentity(session, clusterEntry(cluster, changed ? 'changed' : 'unchanged', instances, null, startedAt)), run.recordDesired ? desiredOfBuild(build.instances) : undefined);
  } catch (error) {
    log.line(`✗ ${error instanceof Error ? error.message : String(error)}`);
    run.onClusterError?.(cluster.name, error);
    return withIdentity(session, clusterEntry(cluster, 'failed', [], clusterError(error, 'diff'), startedAt));
  } finally {
    session.kube.close();
  }
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
