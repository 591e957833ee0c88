// Status and delete across the fleet: for each selected cluster, in runtime order, the
// bundle's instances as Timoni stores them (status), or their removal, newest instance
// first (delete). The bundle's name comes from evaluating it for that cluster.
import { evaluateForCluster, selectClusters, type RuntimeCluster } from '../bundle/index.js';
import { deleteBundleInstances, type DeletedInstance } from '../kube/instance-delete.js';
import { bundleStatus, type InstanceStatus } from '../kube/instance-status.js';
import { logPrefix } from './outcome.js';
import type { FleetRun } from './run.js';
import { openSession, type ClusterSession } from './session.js';

export interface ClusterResult<T> {
  cluster: RuntimeCluster;
  bundle: string;
  result?: T;
  error?: string;
}

async function eachCluster<T>(run: FleetRun, work: (session: ClusterSession, bundle: string) => Promise<T>, stopAtFailure: boolean): Promise<Array<ClusterResult<T>>> {
  const results: Array<ClusterResult<T>> = [];
  for (const cluster of selectClusters(run.evaluation.runtime, run.selector)) {
    let session: ClusterSession | undefined;
    let bundle = '';
    try {
      session = await openSession(run.kubeconfig, cluster, { secrets: run.secrets });
      const evaluated = await evaluateForCluster(run.engine, { ...run.evaluation, readObject: session.readObject }, cluster);
      bundle = evaluated.bundle.name;
      results.push({ cluster, bundle, result: await work(session, bundle) });
    } catch (error) {
      run.onClusterError?.(cluster.name, error);
      results.push({ cluster, bundle, error: error instanceof Error ? error.message : String(error) });
      if (stopAtFailure) break;
    } finally {
      session?.kube.close();
    }
  }
  return results;
}

export function fleetStatus(run: FleetRun): Promise<Array<ClusterResult<InstanceStatus[]>>> {
  return eachCluster(run, (session, bundle) => bundleStatus(session.kube, bundle), false);
}

export function fleetDelete(run: FleetRun): Promise<Array<ClusterResult<DeletedInstance[]>>> {
  return eachCluster(
    run,
    (session, bundle) =>
      deleteBundleInstances(session.kube, bundle, { wait: run.options.wait, timeoutMs: run.options.timeoutMs, log: (line) => run.log.line(`${logPrefix(bundle, session.runtimeCluster.name)} > ${line}`) }),
    true,
  );
}
