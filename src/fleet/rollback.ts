// `on-failure: rollback`: a cluster that failed during a rollout is put back as it was
// before the run. While the cluster is applied (rollout.ts), a RestorePoint keeps, for each
// instance whose apply was started, Timoni's instance Secret as it was before (raw and
// decoded, ../kube/instance/instance-restore.ts), or none for a first install. When the
// cluster fails (an apply error, a readiness time-out, a failed test Job, the cluster's time
// limit), every instance the run changed there is put back, in reverse bundle order:
//   - installed by this run: deleted as `bundle delete` deletes one (its objects, newest
//     apply order last, then its Secret);
//   - upgraded: the previous module pulled again by digest (the record's repository, version
//     and digest), built with the previous values (the record's) for this cluster, applied
//     with prune (objects the new version added go, objects it removed come back; immutable
//     fields recreated with `force` as the apply would), its readiness waited for (`wait`,
//     `timeout`), then Timoni's Secret written back byte for byte as it was.
// The cluster stays failed (and the exit code the failure's); its entry carries the outcome
// (`rolled back`, or `rollback failed` with the first error: instance, object, the server's
// answer) and each instance its `rollback`. With waves, the other clusters of the failed
// wave that this run changed are rolled back too (their entry says which cluster failed).
// A cancelled run is not rolled back: it must end within the grace GitHub leaves it.
import type { RuntimeCluster } from '../bundle/index.js';
import type { ClusterChanges, ClusterRollback, InstanceChanges, InstanceRollback, ModuleInfo } from '../changeset.js';
import {
  applyInstance,
  bundleNameLabel,
  deleteStoredInstance,
  InstanceStepError,
  readInstance,
  snapshotInstance,
  snapshotRecordText,
  writeBackInstance,
  type InstanceSnapshot,
} from '../kube/instance/index.js';
import type { InstanceBuilds } from '../module/build.js';
import { FAILURE_MARK, reservedObjectRules, type FleetRun } from './fleet-run.js';
import { ClusterStepError, logPrefix, withReadiness } from './outcome.js';
import { connectCluster, instanceInput, type ClusterSession } from './session.js';
import { recordRestored } from './instance-history.js';

/** One instance whose apply this run started: its state before, and the module the run applied. */
export interface TouchedInstance {
  snapshot: InstanceSnapshot;
  module: ModuleInfo;
}

/** What a rollout keeps of one cluster so that it can be put back, filled while the cluster is applied. */
export class RestorePoint {
  bundle = '';
  /** The instances whose apply was started, in bundle order. */
  readonly touched: TouchedInstance[] = [];
  /** The cluster's work, settled (or given up on at the rollback's deadline) before a rollback starts. */
  work: Promise<unknown> = Promise.resolve();
  constructor(readonly cluster: RuntimeCluster) {}
}

/** The rollback's outcome on one cluster. */
export interface ClusterRollbackResult {
  rollback: ClusterRollback;
  instances: Map<string, InstanceRollback>;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function failed(
  step: string,
  message: string,
  changes: InstanceRollback['changes'] = [],
  object?: string,
): InstanceRollback {
  return { action: 'failed', changes, error: { step, message, ...(object ? { object } : {}) } };
}

/** How the rollback of one instance was told: one line. */
function rollbackLine(bundle: string, cluster: string, name: string, result: InstanceRollback): string {
  const prefix = logPrefix(bundle, cluster, name);
  // An object already gone is reported `deleted` with no diff: nothing was done to it.
  const changed = result.changes.filter(
    (c) => c.action !== 'unchanged' && c.action !== 'skipped' && !(c.action === 'deleted' && !c.diff),
  ).length;
  switch (result.action) {
    case 'restored':
      return `${prefix} > rolled back: module ${result.module?.url ?? ''} version ${result.module?.version ?? ''} restored (${changed} object(s) changed), instance record written back as before the run`;
    case 'deleted':
      return `${prefix} > rolled back: installed by this run, deleted (${changed} object(s) deleted)`;
    case 'failed':
      return `${FAILURE_MARK}${prefix} > rollback failed: ${result.error?.message ?? 'unknown error'}`;
  }
}

/** An instance this run installed: deleted, objects then Secret. */
async function deleteInstalled(
  run: FleetRun,
  session: ClusterSession,
  touched: TouchedInstance,
  deadline: number,
): Promise<InstanceRollback> {
  const { name, namespace } = touched.snapshot;
  const stored = await readInstance(session.kube, name, namespace);
  if (!stored) return { action: 'deleted', changes: [] };
  const deleted = await deleteStoredInstance(
    session.kube,
    stored,
    { wait: run.options.wait, timeoutMs: run.options.timeoutMs },
    deadline,
  );
  return { action: 'deleted', changes: deleted.changes };
}

/** An instance this run upgraded: the previous revision built, applied with prune, its record written back. */
async function restorePrevious(
  run: FleetRun,
  session: ClusterSession,
  point: RestorePoint,
  builds: InstanceBuilds,
  touched: TouchedInstance,
  deadline: number,
  line: (text: string) => void,
): Promise<InstanceRollback> {
  const { snapshot } = touched;
  const record = snapshot.stored!.instance;
  const module = record.module;
  if (!module.repository.startsWith('oci://') || !module.digest || module.digest === 'unknown') {
    return failed(
      'module',
      `the previous module ${module.repository} is local (no digest): its previous files cannot be fetched again`,
    );
  }
  let source;
  try {
    source = await run.resolver.resolve({ url: module.repository, version: module.version, digest: module.digest });
  } catch (error) {
    return failed('module', `pulling the previous module ${module.repository}@${module.digest}: ${messageOf(error)}`);
  }
  let built;
  try {
    built = await builds.build(source, {
      name: snapshot.name,
      namespace: snapshot.namespace,
      values: record.values,
      kubeVersion: session.kubeVersion,
    });
  } catch {
    // The previous values may hold secrets that this run never registered: the build's own words are not repeated.
    return failed(
      'build',
      `the previous module ${module.repository} version ${module.version} did not build with the previous values (not printed: they may hold secrets)`,
    );
  }
  const bundle = record.labels?.[bundleNameLabel] ?? point.bundle;
  const input = instanceInput(bundle, { name: snapshot.name, namespace: snapshot.namespace, module: source, built });
  const applied = await applyInstance(session.kube, input, {
    force: run.options.force,
    overwriteOwnership: run.options.overwriteOwnership,
    wait: run.options.wait,
    timeoutMs: run.options.timeoutMs,
    deadline,
    prune: true,
    // The previous build is refused as any build is when it holds a record's look-alike.
    ...reservedObjectRules(run),
  });
  const changes = withReadiness(applied.changes, applied.readiness);
  try {
    await writeBackInstance(session.kube, snapshot);
  } catch (error) {
    return failed(
      'inventory',
      `writing the instance record back: ${messageOf(error)}`,
      changes,
      `Secret/${snapshot.namespace}/timoni.${snapshot.name}`,
    );
  }
  // The history lists the record put back as its newest revision again (a rollback to it).
  const text = snapshotRecordText(snapshot);
  if (text !== null) await recordRestored(run, session.kube, record, text, line);
  return {
    action: 'restored',
    module: { url: module.repository, version: module.version, digest: module.digest },
    changes,
  };
}

async function rollBackInstance(
  run: FleetRun,
  session: ClusterSession,
  point: RestorePoint,
  builds: InstanceBuilds,
  touched: TouchedInstance,
  deadline: number,
  line: (text: string) => void,
): Promise<InstanceRollback> {
  try {
    return touched.snapshot.stored
      ? await restorePrevious(run, session, point, builds, touched, deadline, line)
      : await deleteInstalled(run, session, touched, deadline);
  } catch (error) {
    if (error instanceof InstanceStepError) return failed(error.step, error.message, error.changes, error.object);
    return failed('rollback', messageOf(error));
  }
}

/**
 * Puts back every instance this run changed on the cluster, newest first; `wave` names the
 * cluster whose failure rolls back this one, when it is another one of its wave.
 */
export async function rollBackCluster(
  run: FleetRun,
  point: RestorePoint,
  builds: InstanceBuilds,
  line: (text: string) => void,
  wave?: string,
): Promise<ClusterRollbackResult> {
  const name = point.cluster.name;
  const instances = new Map<string, InstanceRollback>();
  const deadline = Math.min(Date.now() + run.options.timeoutMs, run.deadlineAt ?? Infinity);
  const because = wave ? `cluster ${wave} of its wave failed` : 'it failed';
  line(
    `rolling back cluster ${name} (${because}): ${point.touched.length} instance(s) changed by this run, newest first`,
  );
  // The cluster's work in flight (a cluster given up on at its time limit) ends first.
  await Promise.race([
    point.work.catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref()),
  ]);
  const outcome = (error?: ClusterRollback['error']): ClusterRollbackResult => ({
    rollback: {
      outcome: error ? 'rollback failed' : 'rolled back',
      ...(error ? { error } : {}),
      ...(wave ? { wave: { failed: wave } } : {}),
    },
    instances,
  });
  if (Date.now() >= deadline) {
    const message = `cluster ${name}: the run's deadline passed before the rollback could start; nothing was put back`;
    line(`${FAILURE_MARK}${message}`);
    return outcome({ message });
  }
  // Connected again as the apply connects (session.ts): its identity checked before anything is written back.
  const connected = await connectCluster(run, point.cluster, line, Date.now(), 'apply');
  if ('failed' in connected) {
    // connectCluster told why (cannot reach it, identity refused).
    return outcome({
      message: `cluster ${name}: rollback failed: ${connected.failed.error?.message ?? 'not reached'}`,
    });
  }
  const { session } = connected;
  let firstError: ClusterRollback['error'];
  try {
    for (const touched of [...point.touched].reverse()) {
      const result = await rollBackInstance(run, session, point, builds, touched, deadline, line);
      instances.set(touched.snapshot.name, result);
      line(rollbackLine(point.bundle, name, touched.snapshot.name, result));
      if (result.action === 'failed' && !firstError) {
        firstError = {
          message: result.error?.message ?? 'unknown error',
          instance: touched.snapshot.name,
          ...(result.error?.object ? { object: result.error.object } : {}),
        };
      }
    }
  } finally {
    session.kube.close();
  }
  line(firstError ? `${FAILURE_MARK}cluster ${name}: rollback failed` : `cluster ${name}: rolled back`);
  return outcome(firstError);
}

/** The cluster's entry with the rollback's outcome: on the cluster, and on each instance it put back. */
export function withRollback(
  entry: ClusterChanges,
  point: RestorePoint,
  result: ClusterRollbackResult,
): ClusterChanges {
  const listed = new Set(entry.instances.map((instance) => instance.name));
  const instances: InstanceChanges[] = entry.instances.map((instance) => {
    const rollback = result.instances.get(instance.name);
    return rollback ? { ...instance, rollback } : instance;
  });
  // A cluster given up on at its time limit has no instance entries: the ones put back are listed.
  for (const touched of point.touched) {
    const rollback = result.instances.get(touched.snapshot.name);
    if (listed.has(touched.snapshot.name) || !rollback) continue;
    instances.push({
      name: touched.snapshot.name,
      namespace: touched.snapshot.namespace,
      module: touched.module,
      changes: [],
      rollback,
    });
  }
  return { ...entry, instances, rollback: result.rollback };
}

/** True when the rollout should put the cluster back: rollback asked, the run not cancelled, and the run changed something there. */
export function needsRollback(run: FleetRun, point: RestorePoint | undefined): point is RestorePoint {
  return run.options.onFailure === 'rollback' && !run.cancel?.aborted && !!point && point.touched.length > 0;
}

/** Each instance's state before the run (Timoni's record, or none), read before the first apply. */
export async function snapshotsBefore(
  kube: Parameters<typeof snapshotInstance>[0],
  instances: readonly { name: string; namespace: string }[],
): Promise<Map<string, InstanceSnapshot>> {
  const before = new Map<string, InstanceSnapshot>();
  try {
    for (const instance of instances)
      before.set(instance.name, await snapshotInstance(kube, instance.name, instance.namespace));
  } catch (error) {
    throw new ClusterStepError(
      'rollback',
      `reading the instances' records before the apply: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return before;
}

/**
 * `on-failure: rollback` with waves: every cluster of the failed wave that this run changed,
 * failed or applied, put back (one log group each, after the wave's own groups); the first
 * failed cluster's name is given to the others.
 */
export async function rollBackWave(
  run: FleetRun,
  results: ClusterChanges[],
  points: ReadonlyMap<string, RestorePoint>,
  builds: InstanceBuilds,
): Promise<ClusterChanges[]> {
  const failedName = results.find((entry) => entry.status === 'failed')?.name;
  const rolledBack: ClusterChanges[] = [];
  for (const entry of results) {
    const point = points.get(entry.name);
    if (entry.status === 'skipped' || !needsRollback(run, point)) {
      rolledBack.push(entry);
      continue;
    }
    run.log.startGroup(`cluster ${entry.name} (${entry.group}): rollback`);
    const wave = entry.status === 'failed' ? undefined : failedName;
    const result = await rollBackCluster(run, point, builds, (text) => run.log.line(text), wave);
    run.log.endGroup();
    rolledBack.push(withRollback(entry, point, result));
  }
  return rolledBack;
}
