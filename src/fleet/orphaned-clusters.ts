// Clusters that hold the bundle but are no longer in the runtime (`mode: status`, `status
// -o`): the kubeconfig's contexts that no runtime cluster uses are looked at, and each one
// whose cluster stores instances of the bundle (Timoni's instance Secrets with the bundle's
// label) gives one `orphaned` row per instance. Cheap: one list request per unused context,
// only when the whole runtime is selected (a status of one group or cluster looks at no
// other context) and the bundle's name is known. A context that reaches a cluster of the
// runtime under another name (its identity record names a runtime cluster) is not an
// orphan; a context that cannot be reached or read is left out (it may be another
// project's): the log says so. Nothing is written.
import type { RuntimeCluster } from '../bundle/index.js';
import { openCluster } from '../kube/index.js';
import { readIdentityRecord } from '../kube/cluster-identity.js';
import { instanceStatus } from '../kube/instance-status.js';
import { listInstances } from '../kube/inventory-store.js';
import type { InstanceStateRow } from './fleet-state.js';
import { readinessOf, storedModuleOf } from './fleet-state.js';
import { removalCommands } from './membership.js';
import type { FleetRun } from './run.js';

const everything = (wanted: string | undefined) => wanted === undefined || wanted === '' || wanted === '*';

/** The `orphaned` rows of the kubeconfig's contexts that no runtime cluster uses. */
export async function orphanedRows(run: FleetRun, bundle: string): Promise<InstanceStateRow[]> {
  if (!bundle || !everything(run.selector.cluster) || !everything(run.selector.group)) return [];
  const runtime = run.evaluation.runtime;
  const used = new Set(runtime.clusters.map((cluster) => cluster.kubeContext || run.kubeconfig.currentContext || ''));
  const names = new Set(runtime.clusters.map((cluster) => cluster.name.toLowerCase()));
  const unused = [...run.kubeconfig.contexts.keys()].filter((context) => !used.has(context));
  const rows: InstanceStateRow[] = [];
  for (const context of unused) {
    const base: RuntimeCluster | undefined = run.baseRuntime?.runtime.clusters.find((cluster) => cluster.kubeContext === context);
    const name = base?.name ?? context;
    const kube = openCluster(run.kubeconfig, context, { secrets: run.secrets, name });
    try {
      const stored = await listInstances(kube, '', bundle);
      if (stored.length === 0) continue;
      const record = await readIdentityRecord(kube, run.options.identity?.recordName).catch(() => null);
      if (record && names.has(record.runtimeCluster.toLowerCase())) continue;
      const [timoni] = removalCommands(bundle, { name, group: '', kubeContext: context });
      for (const instance of stored) {
        const status = await instanceStatus(kube, instance).catch(() => undefined);
        rows.push({
          cluster: name,
          group: base?.group ?? '',
          instance: instance.instance.name,
          namespace: instance.instance.namespace,
          state: 'orphaned',
          module: storedModuleOf(instance),
          desired: null,
          lastApplied: status?.lastApplied || instance.instance.lastTransitionTime || null,
          readiness: status ? readinessOf(status) : null,
          reason: `the cluster of kube context "${context}" holds the bundle but is in no runtime cluster (it left the fleet); remove it with: ${timoni}`,
        });
      }
    } catch (error) {
      run.log.line(`kube context "${context}" (in no runtime cluster) not checked for instances of bundle ${bundle}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      kube.close();
    }
  }
  return rows;
}
