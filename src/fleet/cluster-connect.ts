// Opening a cluster for a plan or a rollout: the first request is timed, and a cluster that
// cannot be reached becomes a failed entry (step `connect`) instead of an exception, so
// that the other clusters are still diffed.
import type { RuntimeCluster } from '../bundle/index.js';
import type { ClusterChanges } from '../changeset.js';
import { clusterEntry, clusterError } from './cluster-outcome.js';
import { openSession, type ClusterSession } from './cluster-session.js';
import type { FleetRun } from './fleet-run.js';

export type ConnectOutcome = { session: ClusterSession } | { failed: ClusterChanges };

export async function connectCluster(run: FleetRun, cluster: RuntimeCluster, line: (text: string) => void, startedAt: number): Promise<ConnectOutcome> {
  if (run.timings) run.timings.firstClusterRequestMs ??= performance.now();
  try {
    return { session: await openSession(run.kubeconfig, cluster, { secrets: run.secrets }) };
  } catch (error) {
    line(`✗ cannot reach cluster ${cluster.name}: ${error instanceof Error ? error.message : String(error)}`);
    run.onClusterError?.(cluster.name, error);
    return { failed: clusterEntry(cluster, 'failed', [], clusterError(error, 'connect'), startedAt) };
  }
}
