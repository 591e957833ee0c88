// Status and delete across the fleet: for each selected cluster, in runtime order, the
// bundle's instances as Timoni stores them (status), or their removal, newest instance
// first (delete). The bundle's name comes from evaluating it for that cluster.
//
// Each cluster is connected as a plan connects it (session.ts `connectCluster`), so its
// identity is checked before anything is read from it or deleted: a context that reaches
// the cluster recorded under another runtime name fails that cluster (step `identity`,
// the message naming both names) before the bundle is evaluated (its runtime value queries
// read the cluster) and before any instance is listed. Neither command writes the record:
// only an apply records a cluster or re-pins it. A re-pinned runtime cluster
// (`--repin-cluster`) is read or deleted from as that name, its record left as it is.
import { evaluateForCluster, selectClusters, type ClusterBundle, type RuntimeCluster } from '../bundle/index.js';
import {
  bundleStatus,
  deleteBundleInstances,
  type DeletedInstance,
  type InstanceStatus,
} from '../kube/instance/index.js';
import { logPrefix } from './outcome.js';
import { WARNING_MARK, type FleetRun } from './fleet-run.js';
import { connectCluster, type ClusterSession } from './session.js';

export interface ClusterResult<T> {
  cluster: RuntimeCluster;
  bundle: string;
  result?: T;
  error?: string;
  /** The step the cluster failed at: `connect`, `identity` (refused), or absent (evaluating, reading or deleting). */
  step?: string;
}

/**
 * The bundle's name for a cluster that was not reached (or was refused), for its error line:
 * the bundle evaluated with no access to the cluster; '' when it needs the cluster (a
 * runtime value query) to evaluate. Only the name is used: nothing of it is printed else.
 */
async function bundleNameWithoutCluster(run: FleetRun, cluster: RuntimeCluster): Promise<string> {
  const readObject = () => Promise.reject(new Error(`cluster ${cluster.name} was not reached`));
  try {
    return (await evaluateForCluster(run.engine, { ...run.evaluation, readObject }, cluster)).bundle.name;
  } catch {
    return '';
  }
}

/** Each selected cluster in runtime order, connected (identity checked) and the bundle evaluated for it, given to `work`. */
export async function eachCluster<T>(
  run: FleetRun,
  work: (session: ClusterSession, bundle: string, evaluated: ClusterBundle) => Promise<T>,
  stopAtFailure: boolean,
): Promise<Array<ClusterResult<T>>> {
  const results: Array<ClusterResult<T>> = [];
  for (const cluster of selectClusters(run.evaluation.runtime, run.selector)) {
    // Connected and its identity checked, nothing written (the purpose of a diff); a refusal is logged there.
    const connected = await connectCluster(run, cluster, (text) => run.log.line(text), Date.now());
    if ('failed' in connected) {
      const error = connected.failed.error;
      results.push({
        cluster,
        bundle: await bundleNameWithoutCluster(run, cluster),
        error: error?.message ?? `cluster ${cluster.name} failed`,
        ...(error ? { step: error.step } : {}),
      });
      if (stopAtFailure) break;
      continue;
    }
    const { session } = connected;
    let bundle = '';
    try {
      const evaluated = await evaluateForCluster(
        run.engine,
        { ...run.evaluation, readObject: session.readObject },
        cluster,
      );
      bundle = evaluated.bundle.name;
      results.push({ cluster, bundle, result: await work(session, bundle, evaluated) });
    } catch (error) {
      run.onClusterError?.(cluster.name, error);
      results.push({ cluster, bundle, error: error instanceof Error ? error.message : String(error) });
      if (stopAtFailure) break;
    } finally {
      session.kube.close();
    }
  }
  return results;
}

export function fleetStatus(run: FleetRun): Promise<Array<ClusterResult<InstanceStatus[]>>> {
  return eachCluster(
    run,
    (session, bundle) => bundleStatus(session.kube, bundle, (message) => run.log.line(`${WARNING_MARK}${message}`)),
    false,
  );
}

export function fleetDelete(run: FleetRun): Promise<Array<ClusterResult<DeletedInstance[]>>> {
  return eachCluster(
    run,
    (session, bundle) =>
      deleteBundleInstances(session.kube, bundle, {
        wait: run.options.wait,
        timeoutMs: run.options.timeoutMs,
        log: (line) => run.log.line(`${logPrefix(bundle, session.runtimeCluster.name)} > ${line}`),
        // A Secret that is not a record Timoni would have written is not deleted, and said (../kube/instance/record-checks.ts).
        onIgnored: (message) => run.log.line(`${WARNING_MARK}${message}`),
      }),
    true,
  );
}
