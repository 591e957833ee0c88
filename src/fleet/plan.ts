// The plan: what would change on every selected cluster, computed with server-side apply
// dry-runs and nothing written. Clusters are diffed at once (bounded); a cluster that fails
// (down, bad credentials, a CUE error in its values) is reported as failed while the others
// are still diffed. Clusters keep runtime order in the ChangeSet.
import { selectClusters, type RuntimeCluster } from '../bundle/index.js';
import { diffInstance } from '../kube/instance-diff.js';
import { InstanceStepError } from '../kube/instance.js';
import { boundedMap } from './bounded-map.js';
import { buildForCluster, ClusterStepError } from './cluster-build.js';
import { clusterEntry, clusterError } from './cluster-outcome.js';
import { connectCluster } from './cluster-connect.js';
import { BufferedLog } from './fleet-log.js';
import type { FleetRun } from './fleet-run.js';
import { instanceInput, moduleInfo } from './instance-input.js';
import type { ChangeSet, ClusterChanges, ObjectChange } from './changeset.js';
import { changeLine } from './change-line.js';
import { withinDeadline } from './deadline.js';
import { InstanceBuilds } from '../module/instance-builds.js';

async function planCluster(run: FleetRun, cluster: RuntimeCluster, log: BufferedLog, bundleName: { value: string }, builds: InstanceBuilds): Promise<ClusterChanges> {
  const startedAt = Date.now();
  const connected = await connectCluster(run, cluster, (text) => log.line(text), startedAt);
  if ('failed' in connected) return connected.failed;
  const { session } = connected;
  try {
    const build = await buildForCluster(run.engine, run.evaluation, run.resolver, session, (value) => run.secrets.register(value), builds);
    const bundle = build.evaluated.bundle.name;
    bundleName.value ||= bundle;
    const instances = [];
    for (const instance of build.instances) {
      let changes: ObjectChange[];
      try {
        ({ changes } = await diffInstance(session.kube, instanceInput(bundle, instance), { force: run.options.force, overwriteOwnership: run.options.overwriteOwnership }));
      } catch (error) {
        if (error instanceof InstanceStepError) throw new ClusterStepError(error.step, error, instance.name, error.object);
        throw new ClusterStepError('diff', error, instance.name);
      }
      for (const change of changes) log.line(changeLine(bundle, cluster.name, instance.name, change));
      instances.push({ name: instance.name, namespace: instance.namespace, module: moduleInfo(instance), changes });
    }
    const changed = instances.some((i) => i.changes.some((c) => c.action !== 'unchanged' && c.action !== 'skipped'));
    return clusterEntry(cluster, changed ? 'changed' : 'unchanged', instances, null, startedAt);
  } catch (error) {
    log.line(`✗ ${error instanceof Error ? error.message : String(error)}`);
    run.onClusterError?.(cluster.name, error);
    return clusterEntry(cluster, 'failed', [], clusterError(error, 'diff'), startedAt);
  } finally {
    session.kube.close();
  }
}

export async function planFleet(run: FleetRun): Promise<ChangeSet> {
  const clusters = selectClusters(run.evaluation.runtime, run.selector);
  const bundleName = { value: '' };
  const builds = new InstanceBuilds(run.engine);
  run.log.line(`diffing ${clusters.length} cluster(s), ${Math.min(run.options.concurrency, clusters.length)} at a time`);
  const results = await boundedMap(clusters, run.options.concurrency, async (cluster) => {
    const log = new BufferedLog();
    const startedAt = Date.now();
    const entry = await withinDeadline(planCluster(run, cluster, log, bundleName, builds), run.deadlineAt ?? Infinity, () =>
      clusterEntry(cluster, 'failed', [], { step: 'deadline', message: `the run passed its deadline while cluster ${cluster.name} was being diffed` }, startedAt),
    );
    log.flushInto(run.log, `cluster ${cluster.name} (${cluster.group}): ${entry.status}`);
    return entry;
  });
  return { bundle: bundleName.value, mode: 'diff', clusters: results };
}
