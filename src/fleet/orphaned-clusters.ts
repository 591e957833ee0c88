// Clusters that hold the bundle but are no longer in the runtime (`mode: status`, `status
// -o`, `mode: drift`). A kubeconfig often holds contexts of clusters that were never this
// fleet's (another project's, a developer's), where a bundle of the same name may live: so a
// cluster is an orphan of this fleet only when this fleet's identity record there (the
// `cluster-identity-record` ConfigMap, written by an apply: `../kube/connect/cluster-identity.ts`)
// names a runtime cluster that the runtime no longer lists, or when the run's base runtime
// listed its context. Then, when it stores instances of the bundle (Timoni's instance
// Secrets with the bundle's label), it is an orphan, named as its record (or the base
// runtime) names it: `orphaned` rows in a status, a leaving entry whose bundle stays
// installed (with the commands that remove it) in a drift run's diff. Cheap: only the
// kubeconfig's contexts that no runtime cluster uses, one read of the record each (and one
// list when it is this fleet's), only when the whole runtime is selected (a run of one group
// or cluster looks at no other context) and the bundle's name is known. A context that
// cannot be reached or read is left out: the log says so. Nothing is written.
import type { RuntimeCluster } from '../bundle/index.js';
import type { ClusterChanges } from '../changeset.js';
import { openCluster, readIdentityRecord } from '../kube/connect/index.js';
import { type DecodedInstanceSecret, instanceStatus, listInstances } from '../kube/instance/index.js';
import { readinessOf, storedModuleOf, type InstanceStateRow } from './instance-state.js';
import { removalCommands } from './membership.js';
import { WARNING_MARK, type FleetRun } from './fleet-run.js';

const everything = (wanted: string | undefined) => wanted === undefined || wanted === '' || wanted === '*';

export interface OrphanedCluster {
  /** Named by its base runtime name when the run has a base runtime that lists its context, else by its context. */
  cluster: RuntimeCluster;
  /** The bundle's instances stored there, oldest first. */
  instances: DecodedInstanceSecret[];
  /** Each instance's status (readiness, last apply), when it could be read. */
  statuses: Map<DecodedInstanceSecret, Awaited<ReturnType<typeof instanceStatus>> | undefined>;
  reason: string;
  commands: string[];
}

/** The kubeconfig's contexts that no runtime cluster uses and whose cluster holds the bundle. */
export async function findOrphanedClusters(run: FleetRun, bundle: string): Promise<OrphanedCluster[]> {
  if (!bundle || !everything(run.selector.cluster) || !everything(run.selector.group)) return [];
  const runtime = run.evaluation.runtime;
  const used = new Set(runtime.clusters.map((cluster) => cluster.kubeContext || run.kubeconfig.currentContext || ''));
  const names = new Set(runtime.clusters.map((cluster) => cluster.name.toLowerCase()));
  const unused = [...run.kubeconfig.contexts.keys()].filter((context) => !used.has(context));
  const found: OrphanedCluster[] = [];
  for (const context of unused) {
    const base = run.baseRuntime?.runtime.clusters.find((cluster) => cluster.kubeContext === context);
    const kube = openCluster(run.kubeconfig, context, { secrets: run.secrets, name: base?.name ?? context });
    try {
      // Records checked when read (../kube/instance/record-checks.ts, ../kube/connect/cluster-identity.ts):
      // an identity record or instance Secret that fails is left out, and said.
      const warn = (message: string) => run.log.line(`${WARNING_MARK}${message}`);
      const record = await readIdentityRecord(kube, run.options.identity?.recordName, warn);
      // Not this fleet's cluster (no record of it, nor listed at the base), or one of the runtime reached by another context.
      if ((!record && !base) || (record && names.has(record.runtimeCluster.toLowerCase()))) continue;
      const cluster: RuntimeCluster = {
        name: record?.runtimeCluster ?? base?.name ?? context,
        group: base?.group ?? '',
        kubeContext: context,
      };
      const instances = await listInstances(kube, '', bundle, warn);
      if (instances.length === 0) continue;
      const statuses = new Map<DecodedInstanceSecret, Awaited<ReturnType<typeof instanceStatus>> | undefined>();
      for (const instance of instances)
        statuses.set(instance, await instanceStatus(kube, instance).catch(() => undefined));
      const commands = removalCommands(bundle, cluster);
      found.push({
        cluster,
        instances,
        statuses,
        commands,
        reason: `the cluster of kube context "${context}" holds the bundle but is in no runtime cluster (it left the fleet): the bundle stays installed there until it is removed`,
      });
    } catch (error) {
      run.log.line(
        `kube context "${context}" (in no runtime cluster) not checked for instances of bundle ${bundle}: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      kube.close();
    }
  }
  return found;
}

/** The `orphaned` rows of a status. */
export async function orphanedRows(run: FleetRun, bundle: string): Promise<InstanceStateRow[]> {
  const rows: InstanceStateRow[] = [];
  for (const orphan of await findOrphanedClusters(run, bundle)) {
    for (const instance of orphan.instances) {
      const status = orphan.statuses.get(instance);
      rows.push({
        cluster: orphan.cluster.name,
        group: orphan.cluster.group,
        instance: instance.instance.name,
        namespace: instance.instance.namespace,
        state: 'orphaned',
        module: storedModuleOf(instance),
        desired: null,
        lastApplied: status?.lastApplied || instance.instance.lastTransitionTime || null,
        readiness: status ? readinessOf(status) : null,
        reason: `${orphan.reason}; remove it with: ${orphan.commands[0] ?? ''}`,
      });
    }
  }
  return rows;
}

/**
 * A drift run's entries for the orphans: leaving clusters whose bundle stays installed,
 * each instance listed (nothing would be deleted by an apply of the runtime: it does not
 * list them), with the commands that remove the bundle by hand.
 */
export async function orphanedEntries(
  run: FleetRun,
  bundle: string,
  known: ReadonlySet<string>,
): Promise<ClusterChanges[]> {
  const orphans = await findOrphanedClusters(run, bundle);
  return orphans
    .filter((orphan) => !known.has(orphan.cluster.name))
    .map((orphan) => ({
      name: orphan.cluster.name,
      group: orphan.cluster.group,
      kubeContext: orphan.cluster.kubeContext,
      status: 'unchanged' as const,
      error: null,
      membership: 'leaves' as const,
      bundleKept: { reason: orphan.reason, commands: orphan.commands },
      instances: orphan.instances.map((stored) => ({
        name: stored.instance.name,
        namespace: stored.instance.namespace,
        module: storedModuleOf(stored),
        removed: true as const,
        changes: [],
      })),
    }));
}
