// Fleet membership: the clusters that leave the fleet, and the ones only renamed. The base
// runtime (`FleetRun.baseRuntime`: the runtime file at the pull request's base commit, the
// push's `before` commit, or the CLI's --base-runtime) is compared with the head's.
//
// - A cluster of the base that the run's selectors select (group and cluster, as at the
//   base: a leaving cluster is judged by the group it was in) and whose name the head
//   runtime no longer lists, in any group, leaves the fleet. A cluster that moved to another
//   group keeps its name: it is not a leave (the head diffs it with its new group's values).
// - A leaving cluster that reaches the same cluster as a cluster the head adds (a name the
//   base did not list) is a rename, not a leave: nothing is deleted. "The same cluster" is
//   told by the identity record (`../kube/connect/cluster-identity.ts`: the added cluster's record
//   names the leaving one), else, when the added cluster has no record, by the kube-system
//   UID read through both contexts, or by both names using one kube context (nothing is
//   deleted when in doubt). An added cluster whose record names a third cluster is never a
//   rename: re-pinning it would undo the guard; its identity check refuses it as before.
// - A leaving cluster whose context reaches a cluster that a cluster staying in the head
//   reaches too is not deleted from: the run would delete what it applies (`conflict`).
//
// Only reads: identity records and kube-system UIDs. What a leave deletes is found later
// (plan.ts, rollout.ts: leaving-clusters.ts); a rename's record is re-pinned by the apply.
import {
  NoClusterMatchesError,
  selectClusters,
  type ClusterSelector,
  type Runtime,
  type RuntimeCluster,
} from '../bundle/index.js';
import type { ClusterChanges, MembershipSource } from '../changeset.js';
import {
  type IdentityRecord,
  type Kubeconfig,
  openCluster,
  readClusterUid,
  readIdentityRecord,
} from '../kube/connect/index.js';
import { WARNING_MARK, type FleetRun } from './fleet-run.js';

function selects(wanted: string | undefined, actual: string): boolean {
  return wanted === undefined || wanted === '' || wanted === '*' || wanted.toLowerCase() === actual.toLowerCase();
}

/** Runtime cluster names are compared as selections compare them: case-insensitively. */
const nameKey = (name: string) => name.toLowerCase();

export interface MembershipComparison {
  /** Base clusters (selected at the base) that the head does not list by name, in base order. */
  leaving: RuntimeCluster[];
  /** Head clusters that the base did not list by name, in head order (rename candidates). */
  added: RuntimeCluster[];
  /** Clusters listed in both, in another group at the head (diffed as head clusters, not leaves). */
  moved: Array<{ name: string; from: string; to: string }>;
}

/** The names alone: which base clusters the head no longer lists, which it adds, which moved group. */
export function compareMembership(base: Runtime, head: Runtime, selector: ClusterSelector): MembershipComparison {
  const headByName = new Map(head.clusters.map((cluster) => [nameKey(cluster.name), cluster]));
  const baseNames = new Set(base.clusters.map((cluster) => nameKey(cluster.name)));
  const leaving: RuntimeCluster[] = [];
  const moved: MembershipComparison['moved'] = [];
  for (const cluster of base.clusters) {
    const now = headByName.get(nameKey(cluster.name));
    if (now) {
      if (now.group !== cluster.group) moved.push({ name: now.name, from: cluster.group, to: now.group });
      continue;
    }
    if (selects(selector.cluster, cluster.name) && selects(selector.group, cluster.group)) leaving.push(cluster);
  }
  const added = head.clusters.filter((cluster) => !baseNames.has(nameKey(cluster.name)));
  return { leaving, added, moved };
}

/** What the run found of a cluster through its context: its UID and identity record, or why not. */
export interface ClusterProbe {
  uid?: string;
  record?: IdentityRecord | null;
  /** The context is not in the kubeconfig. */
  contextGone?: true;
  /** The cluster could not be read (unreachable, no rights): the reason, without secrets (the kube client masks). */
  unreadable?: string;
}

export interface Rename {
  from: RuntimeCluster;
  to: RuntimeCluster;
  /** How it was told: the record of the added cluster names the base one, both UIDs, or one context. */
  by: 'record' | 'uid' | 'context';
}

export interface LeavingCluster {
  cluster: RuntimeCluster;
  /** Its context is no longer in the kubeconfig: nothing can be read or deleted there. */
  contextGone: boolean;
  /** It reaches the cluster that a staying head cluster reaches: it is not deleted from. */
  conflict?: string;
}

export interface Membership {
  /** Where the base runtime was read, for the reports. */
  from: string;
  leaving: LeavingCluster[];
  renames: Rename[];
  moved: MembershipComparison['moved'];
}

/**
 * Decides leaves and renames from the names and what the clusters' contexts reached (pure:
 * the probes are read by `resolveMembership`).
 */
export function decideMembership(
  comparison: MembershipComparison,
  head: Runtime,
  probes: ReadonlyMap<string, ClusterProbe>,
  from: string,
): Membership {
  const probeOf = (cluster: RuntimeCluster) => probes.get(cluster.kubeContext) ?? {};
  const renames: Rename[] = [];
  const leaving: LeavingCluster[] = [];
  const taken = new Set<string>();
  for (const cluster of comparison.leaving) {
    const probe = probeOf(cluster);
    const match = (to: RuntimeCluster): Rename['by'] | undefined => {
      const reached = probeOf(to);
      // A rename re-pins the added cluster's record: never one that names a third cluster
      // (a context re-pointed at another cluster of the fleet stays refused by its identity check).
      if (reached.record)
        return nameKey(reached.record.runtimeCluster) === nameKey(cluster.name) ? 'record' : undefined;
      if (reached.uid && probe.uid && reached.uid === probe.uid) return 'uid';
      if (cluster.kubeContext !== '' && cluster.kubeContext === to.kubeContext) return 'context';
      return undefined;
    };
    const renamed = comparison.added.find((to) => !taken.has(nameKey(to.name)) && match(to) !== undefined);
    if (renamed) {
      taken.add(nameKey(renamed.name));
      renames.push({ from: cluster, to: renamed, by: match(renamed)! });
      continue;
    }
    const staying = probe.uid
      ? head.clusters.find((other) => probeOf(other).uid === probe.uid)
      : head.clusters.find((other) => cluster.kubeContext !== '' && other.kubeContext === cluster.kubeContext);
    leaving.push({
      cluster,
      contextGone: probe.contextGone === true,
      ...(staying
        ? {
            conflict: `its context "${cluster.kubeContext}" reaches the same cluster as runtime cluster "${staying.name}", which stays in the fleet: nothing is deleted there`,
          }
        : {}),
    });
  }
  return { from, leaving, renames, moved: comparison.moved };
}

function hasContext(kubeconfig: Kubeconfig, context: string): boolean {
  return context === ''
    ? kubeconfig.currentContext !== undefined && kubeconfig.currentContext !== ''
    : kubeconfig.contexts.has(context);
}

/** Reads a cluster's identity record and kube-system UID through a context (never writes). */
async function probe(run: FleetRun, cluster: RuntimeCluster): Promise<ClusterProbe> {
  if (!hasContext(run.kubeconfig, cluster.kubeContext)) return { contextGone: true };
  let kube;
  try {
    kube = openCluster(run.kubeconfig, cluster.kubeContext || undefined, { secrets: run.secrets, name: cluster.name });
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
  try {
    const recordName = run.options.identity?.recordName;
    // A record someone else wrote counts as none (../kube/connect/cluster-identity.ts), and is said.
    const record = await readIdentityRecord(kube, recordName, (message) =>
      run.log.line(`${WARNING_MARK}${message}`),
    ).catch(() => null);
    const uid = await readClusterUid(kube);
    return { uid, record };
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  } finally {
    kube.close();
  }
}

/** Each run's membership, found once and shared by its plan and its rollout. */
const resolved = new WeakMap<FleetRun, Promise<Membership | undefined>>();

/**
 * The run's membership changes, or undefined without a base runtime. Probes only when a
 * cluster leaves by name: the leaving clusters, the head's added clusters (rename
 * candidates), and the head's other clusters (to refuse deleting from a cluster that stays).
 */
export function resolveMembership(run: FleetRun): Promise<Membership | undefined> {
  let found = resolved.get(run);
  if (!found) {
    found = findMembership(run);
    resolved.set(run, found);
  }
  return found;
}

async function findMembership(run: FleetRun): Promise<Membership | undefined> {
  const base = run.baseRuntime;
  if (!base) return undefined;
  const head = run.evaluation.runtime;
  const comparison = compareMembership(base.runtime, head, run.selector);
  if (comparison.leaving.length === 0) return { from: base.from, leaving: [], renames: [], moved: comparison.moved };
  const contexts = new Map<string, RuntimeCluster>();
  for (const cluster of [...comparison.leaving, ...head.clusters])
    if (!contexts.has(cluster.kubeContext)) contexts.set(cluster.kubeContext, cluster);
  const probes = new Map<string, ClusterProbe>();
  await Promise.all([...contexts].map(async ([context, cluster]) => probes.set(context, await probe(run, cluster))));
  const membership = decideMembership(comparison, head, probes, base.from);
  for (const rename of membership.renames) {
    run.log.line(
      `cluster ${rename.to.name} was ${rename.from.name} in ${base.from} (the same cluster, by its ${rename.by === 'record' ? 'identity record' : rename.by === 'uid' ? 'kube-system uid' : 'kube context'}): a rename, nothing is deleted`,
    );
  }
  for (const leave of membership.leaving) {
    const reason = leave.contextGone
      ? `; its kube context "${leave.cluster.kubeContext}" is not in the kubeconfig`
      : leave.conflict
        ? `; ${leave.conflict}`
        : '';
    run.log.line(
      `cluster ${leave.cluster.name} (${leave.cluster.group}) leaves the fleet: listed in ${base.from}, not in the runtime${reason}`,
    );
  }
  return membership;
}

/**
 * The head's selected clusters; none (rather than NoClusterMatchesError) when the selectors
 * match only clusters that leave the fleet (`--runtime-cluster prod-3` with the base runtime
 * that listed it: the run removes the bundle from prod-3 alone).
 */
export function selectHeadClusters(run: Pick<FleetRun, 'evaluation' | 'selector' | 'baseRuntime'>): RuntimeCluster[] {
  try {
    return selectClusters(run.evaluation.runtime, run.selector);
  } catch (error) {
    if (
      error instanceof NoClusterMatchesError &&
      run.baseRuntime &&
      compareMembership(run.baseRuntime.runtime, run.evaluation.runtime, run.selector).leaving.length > 0
    )
      return [];
    throw error;
  }
}

/** The run with the renamed clusters re-pinned (their identity records name their base names). */
export function withRenamesRepinned(run: FleetRun, renames: readonly Rename[]): FleetRun {
  if (renames.length === 0) return run;
  const identity = run.options.identity ?? { mode: 'check' as const, repin: [] };
  if (identity.mode === 'off') return run;
  return {
    ...run,
    options: {
      ...run.options,
      identity: { ...identity, repin: [...identity.repin, ...renames.map((rename) => rename.to.name)] },
    },
  };
}

/** The head entries marked with their renames, the leaving entries appended; and where the base came from. */
export function withMembership<T extends { name: string; membership?: ClusterChanges['membership'] }>(
  entries: T[],
  renames: readonly Rename[],
): T[] {
  const renamed = new Map(renames.map((rename) => [nameKey(rename.to.name), rename.from.name]));
  return entries.map((entry) => {
    const from = renamed.get(nameKey(entry.name));
    return from === undefined ? entry : { ...entry, membership: { renamedFrom: from } };
  });
}

/** The ChangeSet's `membership`: where the base runtime was read, or why there was none. */
export function membershipSource(run: FleetRun): MembershipSource | undefined {
  if (run.baseRuntime) return { from: run.baseRuntime.from };
  if (run.baseRuntimeWarning) return { warning: run.baseRuntimeWarning };
  return undefined;
}

/** The command that removes the bundle from a cluster by hand (Timoni's, and ours). */
export function removalCommands(bundle: string, cluster: RuntimeCluster): string[] {
  const context = cluster.kubeContext ? ` --kube-context ${cluster.kubeContext}` : '';
  return [
    `timoni bundle delete --name ${bundle || '<bundle>'}${context}`,
    `timoni-fleet delete -f <bundle files> --cluster ${cluster.name}${context}`,
  ];
}
