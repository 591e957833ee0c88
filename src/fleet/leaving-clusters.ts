// The clusters that leave the fleet (membership.ts), as a plan shows them and a rollout
// removes the bundle from them. Each is a ChangeSet entry marked `membership: 'leaves'`,
// with its base group and context, listing every instance of the bundle found on it (the
// instance Secrets with the bundle's label, as removed-instances.ts finds instances the
// bundle no longer lists) as `removed`, with the objects deleting them would delete (plan:
// server-side dry-run deletes against the live cluster) or did delete (rollout: newest
// instance first, objects in reverse apply order, their deletion awaited, the instance
// Secret last). A cluster whose context is no longer in the kubeconfig is reported, not
// failed: the bundle stays installed there, and the entry gives the commands that remove
// it by hand. A leaving cluster is connected as a diff connects (its identity checked,
// never recorded): a context that now reaches a cluster recorded under another name is
// refused (step `identity`) before anything is read from it.
import { evaluateForCluster, type RuntimeCluster } from '../bundle/index.js';
import type { ClusterChanges, InstanceChanges, ObjectChange } from '../changeset.js';
import {
  type DecodedInstanceSecret,
  deletedCount,
  deleteRemovedInstance,
  diffRemovedInstance,
  findRemovedInstances,
  InstanceStepError,
} from '../kube/instance/index.js';
import type { KubeCluster } from '../kube/connect/index.js';
import { removalCommands, type LeavingCluster, type Membership } from './membership.js';
import { clusterEntry, clusterError, ClusterStepError, logPrefix, skippedEntry, tellFailure } from './outcome.js';
import { WARNING_MARK, type FleetRun } from './fleet-run.js';
import { connectCluster } from './session.js';

const leaves = (entry: ClusterChanges): ClusterChanges => ({ ...entry, membership: 'leaves' });

function objects(count: number): string {
  return count === 1 ? '1 object' : `${count} objects`;
}

/** The bundle's name for a leaving cluster: the head's, else the bundle evaluated with the base runtime (no cluster read). */
async function leavingBundleName(run: FleetRun, cluster: RuntimeCluster, headName: string): Promise<string> {
  if (headName || !run.baseRuntime) return headName;
  const readObject = () =>
    Promise.reject(new Error(`cluster ${cluster.name} leaves the fleet: its runtime values are not read`));
  try {
    return (
      await evaluateForCluster(run.engine, { ...run.evaluation, runtime: run.baseRuntime.runtime, readObject }, cluster)
    ).bundle.name;
  } catch {
    return '';
  }
}

function storedEntry(stored: DecodedInstanceSecret, changes: ObjectChange[]): InstanceChanges {
  const { module } = stored.instance;
  return {
    name: stored.instance.name,
    namespace: stored.instance.namespace,
    module: { url: module.repository, version: module.version, digest: module.digest },
    changes,
    removed: true,
  };
}

/** Why the bundle is not removed from a leaving cluster by this run, when it is not. */
function keptReason(run: FleetRun, leave: LeavingCluster): string | undefined {
  if (leave.contextGone) {
    const context = leave.cluster.kubeContext ? `kube context "${leave.cluster.kubeContext}"` : 'current kube context';
    return `its ${context} is not in the kubeconfig: the bundle stays installed there`;
  }
  if (leave.conflict) return leave.conflict;
  if (!run.options.prune) return 'prune is off: the bundle stays installed there';
  if (!run.options.pruneRemovedClusters) return 'prune-removed-clusters is off: the bundle stays installed there';
  return undefined;
}

function keptEntry(
  leave: LeavingCluster,
  bundle: string,
  reason: string,
  instances: InstanceChanges[] = [],
): ClusterChanges {
  const entry = leaves(clusterEntry(leave.cluster, 'unchanged', instances, null, Date.now()));
  return { ...entry, bundleKept: { reason, commands: leave.conflict ? [] : removalCommands(bundle, leave.cluster) } };
}

/** The cluster's stored instances of the bundle, newest first (the order they are deleted in). */
async function storedInstances(
  kube: KubeCluster,
  bundle: string,
  line: (text: string) => void,
): Promise<DecodedInstanceSecret[]> {
  try {
    const scan = await findRemovedInstances(kube, bundle, []);
    // Only records Timoni would have written are removed (../kube/instance/record-checks.ts).
    for (const message of scan.ignored) line(`${WARNING_MARK}${message}`);
    if (scan.unchecked.length > 0)
      line(
        `cannot list Secrets in namespace(s) ${scan.unchecked.join(', ')}: instances of the bundle there are not found`,
      );
    return scan.removed;
  } catch (error) {
    throw new ClusterStepError(
      'prune',
      new Error(
        `listing the instances of bundle ${bundle}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      ),
    );
  }
}

/** What removing the bundle from a leaving cluster would delete; nothing written. */
export async function planLeavingCluster(
  run: FleetRun,
  leave: LeavingCluster,
  headBundle: string,
  line: (text: string) => void,
): Promise<ClusterChanges> {
  const { cluster } = leave;
  const bundle = await leavingBundleName(run, cluster, headBundle);
  if (leave.contextGone || leave.conflict) {
    const reason = keptReason(run, leave)!;
    line(`${logPrefix(bundle, cluster.name)} > leaves the fleet; ${reason}`);
    return keptEntry(leave, bundle, reason);
  }
  const startedAt = Date.now();
  const connected = await connectCluster(run, cluster, line, startedAt, 'diff');
  if ('failed' in connected) return leaves(connected.failed);
  const { session } = connected;
  const prefix = logPrefix(bundle, cluster.name);
  try {
    const instances: InstanceChanges[] = [];
    for (const stored of await storedInstances(session.kube, bundle, (text) => line(`${prefix} > ${text}`))) {
      let changes: ObjectChange[];
      try {
        changes = await diffRemovedInstance(session.kube, stored, new Set());
      } catch (error) {
        const object = (error as { object?: unknown }).object;
        throw new ClusterStepError(
          'prune',
          error,
          stored.instance.name,
          typeof object === 'string' ? object : undefined,
        );
      }
      line(
        `${prefix} > i:${stored.instance.name} > leaves with the cluster: ${objects(deletedCount(changes))} would be deleted`,
      );
      instances.push(storedEntry(stored, changes));
    }
    if (instances.length === 0) line(`${prefix} > leaves the fleet: no instance of the bundle found on it`);
    const kept = keptReason(run, leave);
    if (kept) {
      line(`${prefix} > leaves the fleet; ${kept}`);
      const shown = instances.map((instance) => ({
        ...instance,
        changes: instance.changes.map((change) => ({ ...change, action: 'skipped' as const, diff: '' })),
      }));
      return {
        ...keptEntry(leave, bundle, kept, shown),
        startedAt: new Date(startedAt).toISOString(),
        durationMs: Date.now() - startedAt,
      };
    }
    const changed = instances.some((instance) => deletedCount(instance.changes) > 0);
    return leaves(clusterEntry(cluster, changed ? 'changed' : 'unchanged', instances, null, startedAt));
  } catch (error) {
    tellFailure(run, cluster.name, line, error);
    return leaves(clusterEntry(cluster, 'failed', [], clusterError(error, 'diff'), startedAt));
  } finally {
    session.kube.close();
  }
}

/**
 * Removes the bundle from a leaving cluster: its instances newest first, each one's objects
 * in reverse apply order with their deletion awaited (`wait`), then its instance Secret.
 * The first failure stops the cluster (what was deleted before it is listed).
 */
export async function removeFromLeavingCluster(
  run: FleetRun,
  leave: LeavingCluster,
  headBundle: string,
  line: (text: string) => void,
): Promise<ClusterChanges> {
  const { cluster } = leave;
  const bundle = await leavingBundleName(run, cluster, headBundle);
  const kept = keptReason(run, leave);
  if (kept) {
    line(`${logPrefix(bundle, cluster.name)} > leaves the fleet; ${kept}`);
    return keptEntry(leave, bundle, kept);
  }
  const startedAt = Date.now();
  const deadline = Math.min(startedAt + run.options.timeoutMs, run.deadlineAt ?? Infinity);
  const instances: InstanceChanges[] = [];
  try {
    // A leave that was not reviewed is refused before the cluster is reached (the action's `reviewed` input).
    run.beforeLeave?.(cluster, bundle);
  } catch (error) {
    const refused = new ClusterStepError('review', error);
    tellFailure(run, cluster.name, line, refused);
    return leaves(clusterEntry(cluster, 'failed', [], clusterError(refused, 'review'), startedAt));
  }
  const connected = await connectCluster(run, cluster, line, startedAt, 'diff');
  if ('failed' in connected) return leaves(connected.failed);
  const { session } = connected;
  const prefix = logPrefix(bundle, cluster.name);
  try {
    const stored = await storedInstances(session.kube, bundle, (text) => line(`${prefix} > ${text}`));
    if (stored.length === 0) line(`${prefix} > leaves the fleet: no instance of the bundle found on it`);
    for (const record of stored) {
      const name = record.instance.name;
      const log = (text: string) => line(`${prefix} > i:${name} > ${text}`);
      if (run.cancel?.aborted)
        throw new ClusterStepError(
          'cancelled',
          new Error(`cluster ${cluster.name}: the run was cancelled before instance ${name} was deleted`),
          name,
        );
      log('leaves with the cluster: deleting it');
      try {
        const deleted = await deleteRemovedInstance(
          session.kube,
          record,
          {
            wait: run.options.wait,
            timeoutMs: run.options.timeoutMs,
            log,
            ...(run.cancel ? { signal: run.cancel } : {}),
          },
          deadline,
        );
        log(`leaves with the cluster: ${objects(deletedCount(deleted.changes))} deleted`);
        instances.push(storedEntry(record, deleted.changes));
      } catch (error) {
        if (error instanceof InstanceStepError) {
          instances.push(storedEntry(record, error.changes));
          throw new ClusterStepError(error.step, error, name, error.object);
        }
        throw new ClusterStepError('prune', error, name);
      }
    }
    return leaves(clusterEntry(cluster, 'applied', instances, null, startedAt));
  } catch (error) {
    tellFailure(run, cluster.name, line, error);
    return leaves(clusterEntry(cluster, 'failed', instances, clusterError(error, 'prune'), startedAt));
  } finally {
    session.kube.close();
  }
}

/**
 * After the rollout of the head's clusters: the leaving clusters, one after the other, each
 * in its own log group; all `skipped` when a head cluster failed (nothing is removed from a
 * fleet whose rollout did not succeed), and the ones after a failure too.
 */
export async function rollOutLeaves(
  run: FleetRun,
  membership: Membership,
  headBundle: string,
  headFailed: boolean,
): Promise<ClusterChanges[]> {
  const entries: ClusterChanges[] = [];
  let failed = headFailed;
  for (const leave of membership.leaving) {
    if (failed || run.cancel?.aborted || (run.deadlineAt !== undefined && Date.now() >= run.deadlineAt)) {
      entries.push(leaves(skippedEntry(leave.cluster)));
      continue;
    }
    run.log.startGroup(`cluster ${leave.cluster.name} (${leave.cluster.group}): leaves the fleet`);
    const entry = await removeFromLeavingCluster(run, leave, headBundle, (text) => run.log.line(text));
    run.log.endGroup();
    entries.push(entry);
    failed = entry.status === 'failed';
  }
  const skipped = entries.filter((entry) => entry.status === 'skipped').map((entry) => entry.name);
  if (skipped.length > 0)
    run.log.line(
      `the bundle was not removed from the cluster(s) leaving the fleet: ${skipped.join(', ')} (${headFailed ? 'the rollout of the remaining clusters did not succeed' : 'an earlier cluster failed'})`,
    );
  return entries;
}

/** The plan's entries of the leaving clusters, after the head's (a few at once is not needed: usually one). */
export async function planLeaves(run: FleetRun, membership: Membership, headBundle: string): Promise<ClusterChanges[]> {
  const entries: ClusterChanges[] = [];
  for (const leave of membership.leaving) {
    const lines: string[] = [];
    const entry = await planLeavingCluster(run, leave, headBundle, (text) => lines.push(text));
    run.log.startGroup(`cluster ${leave.cluster.name} (${leave.cluster.group}): leaves the fleet, ${entry.status}`);
    for (const text of lines) run.log.line(text);
    run.log.endGroup();
    entries.push(entry);
  }
  return entries;
}
