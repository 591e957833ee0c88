// The state of the fleet: for every selected cluster and every instance of the bundle, one
// of Banzai Pipeline's states, with what it rests on (the module the cluster stores and the
// one the bundle asks for, the last apply, the readiness of the stored objects):
//
// - `unknown`: the cluster cannot be reached (or its identity is refused, or the bundle
//   cannot be evaluated or built for it, or reading the instance failed): the reason says which;
// - `not installed`: the cluster stores no instance (Timoni's instance Secret) of that name
//   for this bundle;
// - `stale`: the stored module version or digest is not the bundle's, or a dry-run diff of
//   the instance (the plan's own, `diffInstance`) finds objects that an apply would change
//   (drifted); an instance the cluster stores that the bundle no longer lists is stale too;
// - `failed`: in sync, but an object of the stored inventory is not Current (kstatus);
// - `deployed`: in sync and every object Current;
// - `orphaned`: an instance of the bundle on a cluster that is in no runtime cluster (it left
//   the fleet): found through the kubeconfig's contexts that no runtime cluster uses, when
//   the whole runtime is selected (orphaned-clusters.ts); the cluster is named by its
//   context (or by its base runtime name, when the run has a base runtime).
//
// Clusters are read at once (bounded by `concurrency`), instances in bundle order; rows keep
// runtime order. Nothing is written.
import { evaluateForCluster, selectClusters, type RuntimeCluster } from '../bundle/index.js';
import { isChangingAction, type ModuleInfo, type ObjectChange } from '../changeset.js';
import { mapBounded } from '../concurrency.js';
import {
  bundleNameLabel,
  type DecodedInstanceSecret,
  diffInstance,
  findRemovedInstances,
  instanceStatus,
  type InstanceStatus,
  readInstance,
} from '../kube/instance/index.js';
import { formatRef } from '../kube/object.js';
import { InstanceBuilds } from '../module/build.js';
import { ClusterStepError } from './outcome.js';
import {
  countStates,
  FLEET_STATE_FORMAT,
  moduleDiffers,
  readinessOf,
  storedModuleOf,
  type FleetState,
  type InstanceStateRow,
} from './instance-state.js';
import { orphanedRows } from './orphaned-clusters.js';
import { reservedObjectRules, WARNING_MARK, withinDeadline, type FleetRun } from './fleet-run.js';
import {
  buildForCluster,
  connectCluster,
  instanceInput,
  moduleInfo,
  type ClusterInstanceBuild,
  type ClusterSession,
} from './session.js';

/** A few object references, then how many more. */
function listed(items: readonly string[], shown = 3): string {
  const head = items.slice(0, shown).join(', ');
  return items.length > shown ? `${head} and ${items.length - shown} more` : head;
}

function moduleText(module: ModuleInfo): string {
  const digest =
    module.digest && module.digest !== 'unknown'
      ? ` (${module.digest.replace(/^(sha256:[0-9a-f]{12})[0-9a-f]*$/, '$1')})`
      : '';
  return `${module.version}${digest}`;
}

/** What an apply would change, as `Deployment/apps/web configured`; failed dry-runs with their error. */
function driftOf(changes: readonly ObjectChange[]): string[] {
  return changes
    .filter((c) => isChangingAction(c.action) || c.action === 'failed')
    .map(
      (c) =>
        `${formatRef({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name })} ${c.action}${c.error ? ` (${c.error})` : ''}`,
    );
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

type RowBase = Pick<InstanceStateRow, 'cluster' | 'group'>;

function row(
  base: RowBase,
  fields: Partial<InstanceStateRow> & Pick<InstanceStateRow, 'instance' | 'namespace' | 'state'>,
): InstanceStateRow {
  return { ...base, module: null, desired: null, lastApplied: null, readiness: null, reason: '', ...fields };
}

/** One instance of the bundle on a reachable cluster. */
async function instanceRow(
  run: FleetRun,
  session: ClusterSession,
  bundle: string,
  instance: ClusterInstanceBuild,
  base: RowBase,
): Promise<InstanceStateRow> {
  const desired = moduleInfo(instance);
  const fields = { instance: instance.name, namespace: instance.namespace, desired };
  let stored: DecodedInstanceSecret | null;
  try {
    stored = await readInstance(session.kube, instance.name, instance.namespace);
  } catch (error) {
    return row(base, { ...fields, state: 'unknown', reason: `cannot read the instance: ${message(error)}` });
  }
  if (!stored)
    return row(base, {
      ...fields,
      state: 'not installed',
      reason: `no instance ${instance.name} in namespace ${instance.namespace}`,
    });
  const owner = stored.instance.labels?.[bundleNameLabel] ?? '';
  if (owner !== bundle) {
    const whose = owner ? `bundle ${owner}` : 'no bundle';
    return row(base, {
      ...fields,
      state: 'not installed',
      module: storedModuleOf(stored),
      reason: `instance ${instance.name} in namespace ${instance.namespace} belongs to ${whose}`,
    });
  }
  const module = storedModuleOf(stored);
  let status: InstanceStatus;
  try {
    status = await instanceStatus(session.kube, stored);
  } catch (error) {
    return row(base, {
      ...fields,
      state: 'unknown',
      module,
      lastApplied: stored.instance.lastTransitionTime ?? null,
      reason: `cannot read the objects' readiness: ${message(error)}`,
    });
  }
  const known = { ...fields, module, lastApplied: status.lastApplied || null, readiness: readinessOf(status) };
  if (moduleDiffers(module, desired)) {
    return row(base, {
      ...known,
      state: 'stale',
      reason: `module ${moduleText(module)} applied, the bundle asks for ${moduleText(desired)}`,
    });
  }
  let changes: ObjectChange[];
  try {
    // Ownership was checked above; the plan's diff otherwise (prune as an apply would).
    ({ changes } = await diffInstance(session.kube, instanceInput(bundle, instance), {
      force: run.options.force,
      overwriteOwnership: true,
      prune: run.options.prune,
      ...reservedObjectRules(run),
    }));
  } catch (error) {
    return row(base, { ...known, state: 'unknown', reason: `cannot diff the instance: ${message(error)}` });
  }
  const drift = driftOf(changes);
  if (drift.length > 0) return row(base, { ...known, state: 'stale', reason: `drifted: ${listed(drift)}` });
  if (status.pending)
    return row(base, { ...known, state: 'stale', reason: 'an upgrade was started and did not finish' });
  if (known.readiness.notReady.length > 0)
    return row(base, { ...known, state: 'failed', reason: `not ready: ${listed(known.readiness.notReady)}` });
  return row(base, { ...known, state: 'deployed' });
}

/** The instance names of a cluster that could not be reached, when the bundle evaluates without it. */
async function unreachableRows(
  run: FleetRun,
  cluster: RuntimeCluster,
  base: RowBase,
  reason: string,
  bundleName: { value: string },
): Promise<InstanceStateRow[]> {
  try {
    const readObject = () => Promise.reject(new Error(`cluster ${cluster.name} cannot be reached`));
    const evaluated = await evaluateForCluster(run.engine, { ...run.evaluation, readObject }, cluster);
    bundleName.value ||= evaluated.bundle.name;
    if (evaluated.bundle.instances.length > 0) {
      return evaluated.bundle.instances.map((i) =>
        row(base, { instance: i.name, namespace: i.namespace, state: 'unknown', reason }),
      );
    }
  } catch {
    // The bundle needs the cluster (a runtime value query) to name its instances: one row says so.
  }
  return [row(base, { instance: '', namespace: '', state: 'unknown', reason })];
}

async function clusterRows(
  run: FleetRun,
  cluster: RuntimeCluster,
  builds: InstanceBuilds,
  bundleName: { value: string },
): Promise<InstanceStateRow[]> {
  const base: RowBase = { cluster: cluster.name, group: cluster.group };
  // Connected as a plan connects (the cluster identity check included), nothing written.
  const connected = await connectCluster(run, cluster, (text) => run.log.line(text), Date.now());
  if ('failed' in connected) {
    const error = connected.failed.error;
    // The row names the cluster: a connect or identity failure's message says the rest once.
    const reason = !error
      ? `cluster ${cluster.name} failed`
      : error.step === 'connect' || error.step === 'identity'
        ? error.message
        : `${error.step}: ${error.message}`;
    return unreachableRows(run, cluster, base, reason, bundleName);
  }
  const { session } = connected;
  try {
    const build = await buildForCluster(
      run.engine,
      run.evaluation,
      run.resolver,
      session,
      (value) => run.secrets.register(value),
      builds,
    );
    const bundle = build.evaluated.bundle.name;
    bundleName.value ||= bundle;
    const rows: InstanceStateRow[] = [];
    for (const instance of build.instances) rows.push(await instanceRow(run, session, bundle, instance, base));
    rows.push(...(await removedRows(run, session, bundle, build.instances, base)));
    return rows;
  } catch (error) {
    run.onClusterError?.(cluster.name, error);
    const step = error instanceof ClusterStepError ? `${error.step}: ` : '';
    const instance = error instanceof ClusterStepError ? (error.instance ?? '') : '';
    return [row(base, { instance, namespace: '', state: 'unknown', reason: `${step}${message(error)}` })];
  } finally {
    session.kube.close();
  }
}

/** The instances the cluster stores under the bundle's label that the bundle no longer lists: stale, oldest first. */
async function removedRows(
  run: FleetRun,
  session: ClusterSession,
  bundle: string,
  listed: readonly ClusterInstanceBuild[],
  base: RowBase,
): Promise<InstanceStateRow[]> {
  const rows: InstanceStateRow[] = [];
  try {
    const scan = await findRemovedInstances(session.kube, bundle, listed);
    // Secrets that are not records Timoni would have written are no rows (../kube/instance/record-checks.ts).
    for (const ignored of scan.ignored) run.log.line(`${WARNING_MARK}${ignored}`);
    for (const stored of [...scan.removed].reverse()) {
      const status = await instanceStatus(session.kube, stored);
      rows.push(
        row(base, {
          instance: stored.instance.name,
          namespace: stored.instance.namespace,
          state: 'stale',
          module: storedModuleOf(stored),
          lastApplied: status.lastApplied || null,
          readiness: readinessOf(status),
          reason: run.options.pruneRemovedInstances
            ? 'no longer in the bundle: an apply deletes it'
            : 'no longer in the bundle (kept: removed instances are not pruned)',
        }),
      );
    }
  } catch (error) {
    rows.push(
      row(base, {
        instance: '',
        namespace: '',
        state: 'unknown',
        reason: `cannot look for instances the bundle no longer lists: ${message(error)}`,
      }),
    );
  }
  return rows;
}

/** The state of every selected cluster x instance of the bundle. */
export async function fleetState(run: FleetRun): Promise<FleetState> {
  const clusters = selectClusters(run.evaluation.runtime, run.selector);
  const builds = new InstanceBuilds(run.engine);
  const bundleName = { value: '' };
  run.log.line(
    `reading the state of ${clusters.length} cluster(s), ${Math.min(run.options.concurrency, clusters.length)} at a time`,
  );
  const perCluster = await mapBounded(clusters, run.options.concurrency, (cluster) =>
    withinDeadline(clusterRows(run, cluster, builds, bundleName), run.deadlineAt ?? Infinity, () => [
      row(
        { cluster: cluster.name, group: cluster.group },
        {
          instance: '',
          namespace: '',
          state: 'unknown',
          reason: `the run passed its deadline while cluster ${cluster.name} was being read`,
        },
      ),
    ]),
  );
  const instances = [...perCluster.flat(), ...(await orphanedRows(run, bundleName.value))];
  return { format: FLEET_STATE_FORMAT, bundle: bundleName.value, instances, counts: countStates(instances) };
}
