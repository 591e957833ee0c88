// The status of one cluster as the reports word it.

import type { ClusterChanges } from '../changeset.js';
import { clusterHasChanges } from './cluster-counts.js';
import { code } from './markdown.js';

/** True when the report should open the cluster's section by default. */
export function sectionOpen(cluster: ClusterChanges): boolean {
  return cluster.status === 'failed' || clusterHasChanges(cluster);
}

/** The status of a cluster as Markdown for a table cell or a heading (already escaped). */
export function statusLabel(cluster: ClusterChanges): string {
  switch (cluster.status) {
    case 'unchanged':
      return '✅ no changes';
    case 'changed':
      return '🟡 changes';
    case 'applied':
      return clusterHasChanges(cluster) ? '✅ applied' : '✅ applied (no changes)';
    case 'failed':
      return cluster.error ? `❌ failed at ${code(cluster.error.step)}` : '❌ failed';
    case 'skipped':
      return '⏭️ not reached';
  }
}

/** The clusters not reached because an earlier one failed, in runtime order. */
export function unreachedClusters(clusters: readonly ClusterChanges[]): ClusterChanges[] {
  return clusters.filter((cluster) => cluster.status === 'skipped');
}

/** The first failed cluster, the one that stopped the rollout. */
export function firstFailure(clusters: readonly ClusterChanges[]): ClusterChanges | undefined {
  return clusters.find((cluster) => cluster.status === 'failed');
}
