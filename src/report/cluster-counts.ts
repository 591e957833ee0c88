// Object counts per action for one cluster, as shown in the report tables.

import type { ClusterChanges, ObjectAction } from '../changeset.js';

export type ActionCounts = Record<ObjectAction, number>;

/** How many objects of the cluster have each action. */
export function countActions(cluster: ClusterChanges): ActionCounts {
  const counts: ActionCounts = { created: 0, configured: 0, unchanged: 0, deleted: 0, recreated: 0, skipped: 0, failed: 0 };
  for (const instance of cluster.instances) for (const change of instance.changes) counts[change.action] += 1;
  return counts;
}

/** True when the cluster has an object that is created, configured, deleted or recreated. */
export function clusterHasChanges(cluster: ClusterChanges): boolean {
  const counts = countActions(cluster);
  return counts.created + counts.configured + counts.deleted + counts.recreated > 0;
}

/** `2 created, 1 configured`, the non-zero changing actions, then failed objects; `no changes` when none. */
export function describeCounts(counts: ActionCounts): string {
  const parts = (['created', 'configured', 'deleted', 'recreated'] as const)
    .filter((action) => counts[action] > 0)
    .map((action) => `${counts[action]} ${action}`);
  const changes = parts.length > 0 ? parts.join(', ') : 'no changes';
  return counts.failed > 0 ? `${changes}, ${counts.failed} failed` : changes;
}
