// Everything a plan or a rollout needs: the CUE engine, the bundle inputs, the clusters'
// kubeconfig, the module resolver, the options named as in `timoni bundle apply`, and
// where to log progress.
import type { ClusterEvaluationOptions, ClusterSelector, Runtime } from '../bundle/index.js';
import type { CueEngine } from '../cue/index.js';
import type { Kubeconfig, SecretRegistry } from '../kube/index.js';
import type { ModuleResolver } from '../module/module-resolver.js';
import type { FleetLog } from './fleet-log.js';

export interface FleetOptions {
  force: boolean;
  overwriteOwnership: boolean;
  wait: boolean;
  timeoutMs: number;
  prune: boolean;
  /**
   * With `prune`: delete (and show in a diff) the instances that the cluster stores under
   * this bundle's label but that the bundle no longer lists. False keeps them.
   */
  pruneRemovedInstances: boolean;
  /** Clusters diffed at once. */
  concurrency: number;
}

export const defaultFleetOptions: FleetOptions = {
  force: false,
  overwriteOwnership: false,
  wait: true,
  timeoutMs: 5 * 60_000,
  prune: true,
  pruneRemovedInstances: true,
  concurrency: 4,
};

export interface FleetRun {
  engine: CueEngine;
  evaluation: Omit<ClusterEvaluationOptions, 'selector' | 'readObject'> & { runtime: Runtime };
  selector: ClusterSelector;
  kubeconfig: Kubeconfig;
  secrets: SecretRegistry;
  resolver: ModuleResolver;
  options: FleetOptions;
  log: FleetLog;
  /**
   * The whole run's deadline (epoch milliseconds): no cluster starts after it, a cluster's
   * work is not waited for past it, and each cluster's own time limit ends by it.
   */
  deadlineAt?: number;
  /** Filled in as the run goes: milliseconds since the process started (performance.now()). */
  timings?: { firstClusterRequestMs?: number };
  /** Told of every error that fails a cluster (the action turns CUE errors into annotations). */
  onClusterError?: (cluster: string, error: unknown) => void;
}
