// One cluster's part of a run: its connection (the client opened from its kube context, its
// Kubernetes version, a reader for runtime value queries), and what it should run (the
// bundle evaluated for that cluster, every instance built from its module with the
// cluster's Kubernetes version), in the shape the Kubernetes engine applies or diffs.
// A cluster that cannot be reached becomes a failed entry (step `connect`) instead of an
// exception, so that the other clusters are still diffed. A bundle error that no cluster can
// change is found once, before any cluster is connected, and told once (step `bundle`).
import {
  bundleErrorWithoutCluster,
  evaluateForCluster,
  type ClusterBundle,
  type CueFilesError,
  type ClusterEvaluationOptions,
  type QueryObjectReader,
  type RuntimeCluster,
} from '../bundle/index.js';
import type { ClusterChanges, InstanceRevision, ModuleInfo } from '../changeset.js';
import { isEngineStopped, type CueEngine } from '../cue/index.js';
import {
  ClusterIdentityError,
  establishIdentity,
  KubeApiError,
  type KubeCluster,
  type Kubeconfig,
  openCluster,
  type OpenClusterOptions,
  repinsCluster,
} from '../kube/connect/index.js';
import { quote } from '../display-text.js';
import type { BuiltInstanceInput } from '../kube/instance/index.js';
import type { BuiltInstance, InstanceBuilds } from '../module/build.js';
import type { ModuleResolver, ModuleSource } from '../module/source.js';
import { clusterEntry, clusterError, ClusterStepError, tellFailure } from './outcome.js';
import { deadlineError, EVALUATION_ABANDONED, type FleetRun } from './fleet-run.js';

// ---- Connection

export interface ClusterSession {
  runtimeCluster: RuntimeCluster;
  kube: KubeCluster;
  /** `1.36.3` for a server reporting `v1.36.3`. */
  kubeVersion: string;
  readObject: QueryObjectReader;
  /** The cluster's identity as checked (or recorded) at connect time, for its ChangeSet entry. */
  identity?: ClusterChanges['identity'];
}

/** `v1.36.3` or `v1.36.3+k3s1` -> `1.36.3`, as Timoni passes it to modules. */
export function moduleKubeVersion(gitVersion: string): string {
  const match = /^v?(\d+\.\d+\.\d+)/.exec(gitVersion);
  return match?.[1] ?? gitVersion.replace(/^v/, '');
}

export async function openSession(
  kubeconfig: Kubeconfig,
  cluster: RuntimeCluster,
  options: OpenClusterOptions,
): Promise<ClusterSession> {
  const kube = openCluster(kubeconfig, cluster.kubeContext || undefined, { ...options, name: cluster.name });
  try {
    const version = await kube.client.version();
    const readObject: QueryObjectReader = async (_cluster, query) => {
      const object = await kube.get({
        apiVersion: query.apiVersion,
        kind: query.kind,
        namespace: query.namespace,
        name: query.name,
      });
      return object ?? undefined;
    };
    return { runtimeCluster: cluster, kube, kubeVersion: moduleKubeVersion(version.gitVersion), readObject };
  } catch (error) {
    kube.close();
    throw error;
  }
}

export type ConnectOutcome = { session: ClusterSession } | { failed: ClusterChanges };

/**
 * Opens a cluster for a plan or a rollout; the first request of the run is timed. Then its
 * identity is checked (and on an apply, recorded): a cluster recorded under another runtime
 * name fails with step `identity` before anything is evaluated or read from it.
 */
export async function connectCluster(
  run: FleetRun,
  cluster: RuntimeCluster,
  line: (text: string) => void,
  startedAt: number,
  purpose: 'diff' | 'apply' = 'diff',
): Promise<ConnectOutcome> {
  const bundleError = await bundleErrorOnce(run);
  if (bundleError && 'abandoned' in bundleError) {
    const error = deadlineError(run, cluster.name, { step: 'bundle', since: bundleError.since }, EVALUATION_ABANDONED);
    tellFailure(run, cluster.name, line, new Error(error.message));
    return { failed: clusterEntry(cluster, 'failed', [], error, startedAt) };
  }
  // The cluster's entry says why in one line; the errors themselves were told once, above.
  if (bundleError)
    return { failed: clusterEntry(cluster, 'failed', [], { step: 'bundle', message: bundleError.summary }, startedAt) };
  if (run.timings) run.timings.firstClusterRequestMs ??= performance.now();
  let session: ClusterSession;
  try {
    // A request sent again (a restarted API server, a 503) is told in the cluster's own log.
    session = await openSession(run.kubeconfig, cluster, {
      secrets: run.secrets,
      onRetry: (retry) => line(retry.text),
    });
  } catch (error) {
    const reason = connectFailure(cluster, error);
    tellFailure(run, cluster.name, line, error, unreachableText(cluster.name, reason));
    return { failed: clusterEntry(cluster, 'failed', [], { step: 'connect', message: reason }, startedAt) };
  }
  try {
    session.identity = await checkIdentity(run, session, line, purpose);
    return { session };
  } catch (error) {
    session.kube.close();
    // The step is named: a request that timed out says which one, this says where in the run.
    tellFailure(
      run,
      cluster.name,
      line,
      error,
      `identity check: ${error instanceof Error ? error.message : String(error)}`,
    );
    const entry = clusterEntry(
      cluster,
      'failed',
      [],
      clusterError(new ClusterStepError('identity', error), 'identity'),
      startedAt,
    );
    if (!(error instanceof ClusterIdentityError) || !error.uid) return { failed: entry };
    const record = error.record ? { recordedAs: error.record.runtimeCluster, recordedAt: error.record.recordedAt } : {};
    return { failed: { ...entry, identity: { uid: error.uid, ...record } } };
  }
}

/** A cluster that could not be opened, said once: `cluster X: cannot reach the API server at ...`, `cannot reach cluster X: the API server rejected ...`. */
export function unreachableText(cluster: string, reason: string): string {
  return reason.startsWith('cannot reach ')
    ? `cluster ${cluster}: ${reason}`
    : `cannot reach cluster ${cluster}: ${reason}`;
}

/**
 * Why a cluster could not be opened, each fact once (the line already says `cannot reach
 * cluster X`): a 401 says whose credentials were refused.
 */
function connectFailure(cluster: RuntimeCluster, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const own = message.startsWith(`cluster ${cluster.name}: `)
    ? message.slice(`cluster ${cluster.name}: `.length)
    : message;
  if (error instanceof KubeApiError && error.status === 401) {
    const context = cluster.kubeContext
      ? `kube context ${quote(cluster.kubeContext)}`
      : "the kubeconfig's current context";
    return `the API server rejected the credentials of ${context} (401 Unauthorized on ${error.request})`;
  }
  return own;
}

// ---- The bundle, checked once per run before any cluster

/** Each run's bundle check (bundle/clusters.ts bundleErrorWithoutCluster), started by the rollout or the first cluster. */
const bundleChecks = new WeakMap<FleetRun, Promise<BundleCheck>>();

/** The bundle check's finding: the bundle's error, nothing, or that the deadline stopped it (and when it began). */
type BundleCheck = CueFilesError | { abandoned: true; since: number } | undefined;

/**
 * The bundle's error that no cluster can change, found once per run before any cluster is
 * connected, and told once: on the run's log (not a cluster's) and to onClusterError with
 * no cluster name (the action's annotations on the user's lines). Every cluster then fails
 * unreached, with step `bundle` and the error's one-line summary as its message.
 */
export function bundleErrorOnce(run: FleetRun): Promise<BundleCheck> {
  let check = bundleChecks.get(run);
  if (!check) {
    const startedAt = Date.now();
    check = bundleErrorWithoutCluster(run.engine, { ...run.evaluation, selector: run.selector }).then(
      (error) => {
        if (error) {
          tellFailure(run, '', (text) => run.log.line(text), error);
        }
        return error;
      },
      // A check that could not run says nothing of the bundle: each cluster's own evaluation
      // meets the same failure and reports it. One the deadline stopped is kept: every
      // cluster fails at the deadline, at step `bundle` (deadline-watchdog.ts in the action).
      (error: unknown) => (isEngineStopped(error) ? { abandoned: true as const, since: startedAt } : undefined),
    );
    bundleChecks.set(run, check);
  }
  return check;
}

/** Runtime clusters by the kube-system UID they reached, per run (recording runs only). */
const reachedByRun = new WeakMap<FleetRun, Map<string, string>>();

/** The cluster's identity checked, or recorded on an apply; throws when it is refused. */
async function checkIdentity(
  run: FleetRun,
  session: ClusterSession,
  line: (text: string) => void,
  purpose: 'diff' | 'apply',
): Promise<ClusterChanges['identity']> {
  const options = run.options.identity ?? { mode: 'check' as const, repin: [] };
  const { name, kubeContext } = session.runtimeCluster;
  // Two runtime clusters of one run reaching one cluster would apply two runtimes' values to
  // it: refused when recording, before anything is written.
  const claim = (uid: string): void => {
    let reached = reachedByRun.get(run);
    if (!reached) reachedByRun.set(run, (reached = new Map()));
    const other = reached.get(uid);
    if (other !== undefined && other !== name) {
      throw new ClusterIdentityError(
        `cluster ${name}: context "${kubeContext}" reaches the same cluster (kube-system uid ${uid}) as runtime cluster "${other}" of this run: one cluster cannot be two runtime clusters`,
        uid,
      );
    }
    reached.set(uid, name);
  };
  const established = await establishIdentity(
    session.kube,
    { runtimeCluster: name, kubeContext },
    {
      mode: options.mode,
      ...(options.recordName ? { recordName: options.recordName } : {}),
      repin: repinsCluster(options.repin, name),
      ...(options.repinAdvice ? { repinAdvice: options.repinAdvice(name) } : {}),
      apply: purpose === 'apply',
      ...(options.mode === 'record' ? { onUid: claim } : {}),
    },
  );
  if (!established) return undefined;
  if (established.note) line(established.note);
  const { uid } = established;
  if (!uid) return undefined;
  const current = established.current;
  if (established.change)
    line(
      `cluster identity ${established.change}: "${name}" is kube-system uid ${uid}${established.record && established.change === 'repinned' ? ` (was "${established.record.runtimeCluster}")` : ''}`,
    );
  return {
    uid,
    ...(current ? { recordedAs: current.runtimeCluster, recordedAt: current.recordedAt } : {}),
    ...(established.change ? { change: established.change } : {}),
  };
}

/** A cluster's ChangeSet entry with the identity its session established. */
export function withIdentity(session: ClusterSession, entry: ClusterChanges): ClusterChanges {
  return session.identity ? { ...entry, identity: session.identity } : entry;
}

// ---- Builds

export interface ClusterInstanceBuild {
  name: string;
  namespace: string;
  module: ModuleSource;
  built: BuiltInstance;
  /** A rollback to a revision (revision-rollback.ts): the revision built, and the live one. */
  revision?: InstanceRevision;
}

export interface ClusterBuild {
  evaluated: ClusterBundle;
  instances: ClusterInstanceBuild[];
}

/** The bundle evaluated for a cluster, and each instance's build under way, in bundle order. */
export interface StartedClusterBuild {
  evaluated: ClusterBundle;
  /** Each rejects with the instance's ClusterStepError('build'); awaited in order by `allBuilt`. */
  instances: Promise<ClusterInstanceBuild>[];
}

/** The bundle evaluated for the cluster (step `evaluate`), its runtime's secret values registered. */
export async function evaluateOnCluster(
  engine: CueEngine,
  evaluation: Omit<ClusterEvaluationOptions, 'selector' | 'readObject'>,
  session: ClusterSession,
  registerSecret: (value: string) => void,
): Promise<ClusterBundle> {
  let evaluated: ClusterBundle;
  try {
    evaluated = await evaluateForCluster(
      engine,
      { ...evaluation, readObject: session.readObject },
      session.runtimeCluster,
    );
  } catch (error) {
    throw new ClusterStepError('evaluate', error);
  }
  // Runtime values from the environment or cluster Secrets are masked before anything prints.
  for (const value of evaluated.secretValues) registerSecret(value);
  return evaluated;
}

/**
 * Evaluates the bundle for the cluster and starts every instance's build at once: the
 * engine takes them one at a time (InstanceBuilds), and a caller may use each as soon as
 * it is there (a plan diffs the first instance while the next ones build).
 */
export async function startClusterBuilds(
  engine: CueEngine,
  evaluation: Omit<ClusterEvaluationOptions, 'selector' | 'readObject'>,
  resolver: ModuleResolver,
  session: ClusterSession,
  registerSecret: (value: string) => void,
  builds: InstanceBuilds,
): Promise<StartedClusterBuild> {
  const evaluated = await evaluateOnCluster(engine, evaluation, session, registerSecret);
  const instances = evaluated.bundle.instances.map(async (instance): Promise<ClusterInstanceBuild> => {
    try {
      const module = await resolver.resolve(instance.module);
      const built = await builds.build(module, {
        name: instance.name,
        namespace: instance.namespace,
        values: instance.valuesCue,
        kubeVersion: session.kubeVersion,
        ...(instance.locateValues ? { locateValues: instance.locateValues } : {}),
      });
      return { name: instance.name, namespace: instance.namespace, module, built };
    } catch (error) {
      throw new ClusterStepError('build', error, instance.name);
    }
  });
  // Whoever awaits them does so in order; a later failure waits for its turn, unreported meanwhile.
  for (const pending of instances) pending.catch(() => undefined);
  return { evaluated, instances };
}

/** Every instance built, in bundle order; the first failure in that order is thrown. */
export async function allBuilt(instances: readonly Promise<ClusterInstanceBuild>[]): Promise<ClusterInstanceBuild[]> {
  const built: ClusterInstanceBuild[] = [];
  for (const pending of instances) built.push(await pending);
  return built;
}

export async function buildForCluster(...args: Parameters<typeof startClusterBuilds>): Promise<ClusterBuild> {
  const started = await startClusterBuilds(...args);
  return { evaluated: started.evaluated, instances: await allBuilt(started.instances) };
}

/** The shape the Kubernetes engine applies or diffs: one built instance of the bundle. */
export function instanceInput(bundle: string, instance: ClusterInstanceBuild): BuiltInstanceInput {
  return {
    bundle,
    name: instance.name,
    namespace: instance.namespace,
    module: {
      url: instance.module.url,
      version: instance.module.version,
      digest: instance.module.digest,
      name: instance.module.name,
      ...(instance.module.repository ? { repository: instance.module.repository } : {}),
      ...(instance.module.annotations ? { annotations: instance.module.annotations } : {}),
    },
    sets: instance.built.sets,
    valuesSource: instance.built.values,
    images: instance.built.images,
  };
}

export function moduleInfo(instance: ClusterInstanceBuild): ModuleInfo {
  return { url: instance.module.url, version: instance.module.version, digest: instance.module.digest };
}
