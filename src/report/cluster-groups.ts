// Clusters with the same change, grouped: in a large fleet the PR comment shows one table
// row and one section for all the clusters of a group whose changes are identical ("same
// change on 44 production clusters: production-01, ..."), so that the cluster that is out
// of line stands alone and the comment stays within GitHub's limit.
//
// When: only for fleets of GROUPING_MIN_CLUSTERS clusters or more; smaller fleets are
// rendered cluster by cluster, as they always were. A group has at least two clusters.
//
// Identical means: the same runtime group, the same status, the same error, the same
// instances (name, namespace, module, removed) with the same object changes in the same
// order (kind, name, action, diff, failure, readiness status and message), and the same changes touching
// secret data, as the comment shows them (secret values masked). A cluster's own name is
// set aside: a bundle that reads TIMONI_CLUSTER_NAME (a namespace, a label, a message per
// cluster) makes changes that differ only where each cluster's name stands, and those are
// the same change. The group's section then shows its first cluster's change and says that
// on the others their own name stands in its place. Durations and kube contexts do not
// count (the comment shows neither).

import type { ChangeSet, ClusterChanges } from '../changeset.js';
import { changeId } from './budget.js';

/** Fleets of this many clusters or more have their identical clusters grouped. */
export const GROUPING_MIN_CLUSTERS = 10;

/** One row of a grouped table: a cluster alone, or clusters with the same change. */
export interface ClusterGroup {
  /** Indexes in the ChangeSet, in runtime order; the first is the one shown. */
  members: number[];
  /** True when the members' changes are the same only with each one's own name set aside. */
  byName: boolean;
}

const NAME_PLACEHOLDER = '\u0000cluster\u0000';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text with every whole occurrence of the name (not inside a longer word) replaced by a placeholder. */
function withoutName(text: string, name: string): string {
  if (name === '') return text;
  return text.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(name)}(?![A-Za-z0-9])`, 'g'), NAME_PLACEHOLDER);
}

/** What must be equal for two clusters to share a row, as text (before the name is set aside). */
function comparable(cluster: ClusterChanges, clusterIndex: number, secretChanges: ReadonlySet<string>): string {
  return JSON.stringify([
    cluster.group,
    cluster.status,
    cluster.error,
    cluster.instances.map((instance, instanceIndex) => [
      instance.name,
      instance.namespace,
      instance.module,
      instance.removed ?? false,
      instance.changes.map((change, objectIndex) => [
        // Readiness counts by its status and message; how long it took does not (the comment does not show it).
        { ...change, readiness: change.readiness ? [change.readiness.status, change.readiness.message] : null },
        secretChanges.has(changeId(clusterIndex, instanceIndex, objectIndex)),
      ]),
    ]),
  ]);
}

/**
 * The rows of the comment's table for this ChangeSet, in runtime order of their first
 * cluster; undefined when the fleet is below GROUPING_MIN_CLUSTERS or no two clusters have
 * the same change (then every cluster is its own row, as in a small fleet).
 */
export function groupClusters(changeSet: ChangeSet, secretChanges: ReadonlySet<string>): ClusterGroup[] | undefined {
  if (changeSet.clusters.length < GROUPING_MIN_CLUSTERS) return undefined;
  const byKey = new Map<string, ClusterGroup & { exact: string }>();
  const groups: Array<ClusterGroup & { exact: string }> = [];
  changeSet.clusters.forEach((cluster, clusterIndex) => {
    const exact = comparable(cluster, clusterIndex, secretChanges);
    const key = withoutName(exact, cluster.name);
    const found = byKey.get(key);
    if (found) {
      found.members.push(clusterIndex);
      if (exact !== found.exact) found.byName = true;
      return;
    }
    const group = { members: [clusterIndex], byName: false, exact };
    byKey.set(key, group);
    groups.push(group);
  });
  if (groups.length === changeSet.clusters.length) return undefined;
  return groups.map(({ members, byName }) => ({ members, byName }));
}

/**
 * The ChangeSet the comment renders when grouped: the first cluster of each group, in
 * order. (The headline and the note on clusters not reached still count every cluster.)
 */
export function groupRepresentatives<T extends ChangeSet>(changeSet: T, groups: readonly ClusterGroup[]): T {
  return { ...changeSet, clusters: groups.map((group) => changeSet.clusters[group.members[0] ?? 0] as ClusterChanges) };
}

/** The clusters of each row, by the row's index in the grouped ChangeSet. */
export function groupMembers(changeSet: ChangeSet, groups: readonly ClusterGroup[]): ClusterChanges[][] {
  return groups.map((group) => group.members.map((index) => changeSet.clusters[index] as ClusterChanges));
}
