// Turns one cluster's work into its entry of the ChangeSet: status, error with the step
// it failed in, instances with their module and object changes.
import type { RuntimeCluster } from '../bundle/index.js';
import { ClusterStepError } from './cluster-build.js';
import type { ClusterChanges, ClusterError, InstanceChanges } from '../changeset.js';

export function clusterEntry(cluster: RuntimeCluster, status: ClusterChanges['status'], instances: InstanceChanges[], error: ClusterError | null, startedAt: number): ClusterChanges {
  return {
    name: cluster.name,
    group: cluster.group,
    kubeContext: cluster.kubeContext,
    status,
    error,
    instances,
    durationMs: Date.now() - startedAt,
  };
}

export function clusterError(error: unknown, fallbackStep: string): ClusterError {
  if (error instanceof ClusterStepError) {
    return { step: error.step, message: error.message, ...(error.instance ? { instance: error.instance } : {}), ...(error.object ? { object: error.object } : {}) };
  }
  return { step: fallbackStep, message: error instanceof Error ? error.message : String(error) };
}

export function skippedEntry(cluster: RuntimeCluster): ClusterChanges {
  return { name: cluster.name, group: cluster.group, kubeContext: cluster.kubeContext, status: 'skipped', error: null, instances: [] };
}
