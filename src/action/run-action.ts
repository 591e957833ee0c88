// One run of the action: read the inputs, decide from the event whether to diff or apply,
// evaluate the bundle for every selected cluster, diff or roll out, then publish outputs,
// the job summary and the pull request comment. Returns the process exit code: 1 when
// any cluster failed, the inputs are wrong, or a diff's pull request comment could not be
// posted; a diff with changes is not a failure. `mode: report` merges the ChangeSet files of
// a fan-out's matrix jobs and publishes them (report.ts); `mode: matrix` only sets the
// `matrix` output; neither reads a kubeconfig or reaches a cluster. Every mode that reads the
// runtime sets the `matrix` output: the selected clusters split into shards (`shard-by`).
// `mode: drift` diffs every selected cluster and keeps the bundle's drift issue (drift.ts);
// drift found is not a failure. `mode: status` reads the state of every selected cluster x
// instance and publishes it as a job summary table, the `status` output and, when asked, an
// issue (status-report.ts); the states read do not fail the step, a cluster it could not
// read does (as a cluster that could not be diffed fails a drift). A diff or an apply also reads the runtime as
// it was at the event's base commit (base-runtime.ts), for the clusters that leave the fleet.
// `mode: rollback` (a dispatch's) rolls out each instance's revision from its history
// (../fleet/revision-rollback.ts) and publishes as an apply does; under `reviewed: require`
// only a revision applied by a reviewed run (or a rollback to one) is put back (review-check.ts).
//
// On a pull request everything under the workspace is the pull request author's: the run
// reads files only inside the workspace, offers runtime attributes no credential of the job,
// refuses runtime queries of cluster Secrets unless the workflow opts in, masks every secret
// it meets (with `::add-mask::` before anything the author wrote is printed), and escapes
// every log line (see the README's Security section).
//
// A cancelled run (GitHub sends SIGINT, then SIGTERM about 7.5 s later, then SIGKILL) is
// taken by an apply as its deadline is (../fleet/fleet-run.ts): the first signal starts nothing
// new, the cluster in flight writes the records of what it applied, and the run publishes
// its report (log, job summary, PR comment, outputs, changes file) within CANCEL_PUBLISH_MS
// of the signal, then exits 130; a second signal, or one during any other mode, stops the
// process at once (../cancellation.ts).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRuntime, readCueModuleFiles, readSourceFiles, type Runtime } from '../bundle/index.js';
import { runtimeEnvironment, RuntimeEnvironmentError } from '../bundle/runtime-environment.js';
import { loadCueEngine, type CueEngine } from '../cue/index.js';
import { abortedAfterCancel, CANCELLED_EXIT_CODE, type Cancellation } from '../cancellation.js';
import { isCancelled, type ChangeSet } from '../changeset.js';
import { formatLimit } from '../duration.js';
import { FileBoundary } from '../file-boundary.js';
import { planFleet } from '../fleet/plan.js';
import { fleetState } from '../fleet/fleet-state.js';
import { cancellationLine, rollOutFleet } from '../fleet/rollout.js';
import { defaultFleetOptions, type FleetRun } from '../fleet/fleet-run.js';
import { matrixOutput, selectionShards } from '../fleet/shards.js';
import { readRunContext, type RunContext } from '../github/event.js';
import { loadKubeconfig, type Kubeconfig, type KubeconfigSource } from '../kube/connect/index.js';
import { ModuleResolver } from '../module/source.js';
import { SecretRegistry } from '../secrets.js';
import { errorAnnotations } from '../error-annotations.js';
import { readActionConfig, type ActionConfig } from './config.js';
import { readBaseRuntime } from './base-runtime.js';
import { startDeadlineWatchdog, type Watchdog } from './deadline-watchdog.js';
import { ActionLog } from './log.js';
import { publishDrift } from './drift.js';
import {
  driftPlan,
  planRun,
  refuseUntrustedTarget,
  rollbackPlan,
  statusPlan,
  type FleetModeInput,
  type RunPlan,
} from './event-plan.js';
import { publishStatus } from './status-report.js';
import { publishResults, type PublishTarget } from './publish.js';
import { publishSetupFailure, type SetupProgress } from './setup-failure.js';
import { loadReviewCheck, revisionReviewRule, type ReviewCheck } from './review-check.js';
import { runReport } from './report.js';
import { InputError, setOutput, type Environment } from './runner.js';
import { formatMask } from '../workflow-commands.js';

export interface ActionIO {
  env: Environment;
  cwd: string;
  write(text: string): void;
  /** The process's SIGINT / SIGTERM (main.ts); absent when the action is run in-process by a test. */
  cancellation?: Cancellation;
}

/**
 * How long after a cancellation the report may still take: the cluster in flight is given
 * CANCEL_GRACE_MS (../fleet/fleet-run.ts), publishing the rest, all before GitHub's SIGTERM at 7.5 s.
 */
export const CANCEL_PUBLISH_MS = 6_500;

const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target']);

/**
 * The kubeconfigs to use: the `kubeconfig` input, or, only when the workflow asks for it
 * with `use-runner-kubeconfig`, KUBECONFIG / ~/.kube/config. An empty input is an error
 * otherwise: on a self-hosted runner it would diff a fork's pull request with the runner's
 * own credentials.
 */
function kubeconfigSources(config: ActionConfig, env: Environment): KubeconfigSource[] {
  if (config.kubeconfigs.length > 0) return config.kubeconfigs.map((text) => ({ text }));
  if (!config.useRunnerKubeconfig) {
    throw new InputError(
      'kubeconfig',
      "is empty (is the secret set, and given to this job?); to use the runner's own KUBECONFIG or ~/.kube/config instead, set use-runner-kubeconfig: true",
    );
  }
  const paths = (env.KUBECONFIG ?? join(homedir(), '.kube', 'config')).split(':').filter(Boolean);
  return paths.map((path) => {
    if (!existsSync(path))
      throw new InputError('use-runner-kubeconfig', `the runner's kubeconfig ${path} does not exist`);
    return { text: readFileSync(path, 'utf8'), path };
  });
}

/**
 * The environment offered to runtime attributes (runtime-environment.ts), checked against
 * every secret registered so far (the inputs' tokens and credentials, the kubeconfigs and
 * their keys): a variable whose value holds one or a credential, encoded or not, is
 * withheld under runtime-from-env (the log names it, never its value) and refused when
 * runtime-env lists it.
 */
function offeredEnvironment(
  config: ActionConfig,
  env: Environment,
  secrets: SecretRegistry,
  log: ActionLog,
): Record<string, string> | undefined {
  const withheld: string[] = [];
  let environment: Record<string, string> | undefined;
  try {
    environment = runtimeEnvironment(env, {
      all: config.runtimeFromEnv,
      allowed: config.runtimeEnv,
      secretIn: (value) => secrets.secretIn(value),
      onWithheld: (name, why) => withheld.push(`${name} (${why})`),
    });
  } catch (error) {
    if (error instanceof RuntimeEnvironmentError)
      throw new InputError('runtime-env', error.message.replace(/^runtime-env: /, ''));
    throw error;
  }
  if (withheld.length > 0) {
    log.line(
      `runtime-from-env: withheld ${withheld.join(', ')}: a value that holds a secret of the run or a credential, as it stands or encoded, is never given to runtime attributes`,
    );
  }
  return environment;
}

const SECRET_QUERY_REFUSAL =
  "reads a Secret, which is refused on pull requests: the bundle and runtime are the pull request author's code, and masking cannot hide a value that CUE transforms (reversed, split, spaced out). Set the input secret-queries-on-pull-request: true to allow it (see the Security section of the README)";

function runPlan(context: RunContext, config: ActionConfig, mode: FleetModeInput | 'rollback'): RunPlan {
  const inputs = {
    mode: mode === 'rollback' ? ('auto' as const) : mode,
    clusterGroup: config.runtimeGroup,
    cluster: config.runtimeCluster,
    applyRefs: config.applyRefs,
    trustedCheckout: config.trustedCheckout,
    rollback: { instance: config.rollbackInstance, revision: config.revision },
  };
  return mode === 'rollback' ? rollbackPlan(context, inputs) : planRun(context, inputs);
}

/** What every mode reads first: the workspace and its boundary, the CUE engine, cue.mod and the runtime. */
interface Workspace {
  workspace: string;
  cwd: string;
  boundary: FileBoundary;
  engine: CueEngine;
  moduleFiles: Record<string, string>;
  runtime: Runtime;
}

/** `onEngine` hears of the engine before anything is evaluated (the watchdog stops it at the reserve). */
async function readWorkspace(
  io: ActionIO,
  config: ActionConfig,
  onEngine: (engine: CueEngine) => void = () => undefined,
): Promise<Workspace> {
  const workspace = io.env.GITHUB_WORKSPACE ?? io.cwd;
  const cwd = resolve(workspace, config.workingDirectory);
  // Every bundle, runtime, cue.mod and local module file must resolve inside the workspace.
  const boundary = new FileBoundary([workspace]);
  const engine = await loadCueEngine({ memoryLimitMiB: config.cueMemoryLimitMiB });
  onEngine(engine);
  const moduleFiles = readCueModuleFiles(cwd, boundary);
  const runtime = loadRuntime(engine, readSourceFiles(config.runtimeFiles, cwd, boundary), moduleFiles, '');
  return { workspace, cwd, boundary, engine, moduleFiles, runtime };
}

/**
 * The end of a run's deadline kept for publishing (the comment, the job summary, the
 * outputs): a quarter of the deadline, at most a minute. The clusters' work (registry pulls,
 * diffs, applies) stops that much earlier, as if the deadline were there.
 */
export function publishingReserveMs(deadlineMs: number): number {
  return Math.min(60_000, Math.floor(deadlineMs / 4));
}

function startWatchdog(config: ActionConfig): Watchdog {
  return startDeadlineWatchdog(
    config.deadlineMs,
    (ms) =>
      `the run passed its deadline (${Math.round(ms / 1000)} s) while the CUE engine was evaluating and did not give control back; stopped. Raise the "deadline" input, or look for a loop in the bundle's or module's CUE.`,
  );
}

/** `mode: report` and `mode: matrix`: the runtime is read, no kubeconfig, no cluster. */
async function runWithoutClusters(
  io: ActionIO,
  config: ActionConfig,
  context: RunContext,
  secrets: SecretRegistry,
  log: ActionLog,
  mode: 'report' | 'matrix',
): Promise<number> {
  const watchdog = startWatchdog(config);
  try {
    const { workspace, boundary, runtime } = await readWorkspace(io, config);
    const selection = selectionShards(
      runtime,
      { group: config.runtimeGroup, cluster: config.runtimeCluster },
      config.shardBy,
    );
    setOutput(io.env, 'matrix', matrixOutput(selection.shards));
    if (mode === 'matrix') {
      log.line(
        `timoni-fleet: matrix of ${selection.shards.length} shard(s): ${selection.shards.map((s) => `${s.name} (${s.clusters.map((c) => c.name).join(', ')})`).join('; ')}`,
      );
      return 0;
    }
    const { published, failed } = await runReport({
      env: io.env,
      config,
      context,
      runtime,
      workspace,
      boundary,
      secrets: secrets.secrets(),
      log,
      signal: AbortSignal.timeout(config.deadlineMs),
    });
    for (const cluster of failed)
      log.annotate({
        level: 'error',
        title: `cluster ${cluster.name} failed`,
        message: `${cluster.step}: ${cluster.message}`,
      });
    return failed.length > 0 || published.fails ? 1 : 0;
  } catch (error) {
    io.write(secrets.redact(errorAnnotations(error, mode === 'report' ? 'timoni-fleet report' : undefined)));
    return 1;
  } finally {
    watchdog.stop();
  }
}

/** What a run knows before it reaches any cluster: its inputs, the event, the plan, and for a plan with clusters the kubeconfig and the environment offered to runtime attributes. */
interface RunStart {
  config: ActionConfig;
  context: RunContext;
  plan: RunPlan;
  kubeconfig?: Kubeconfig;
  environment?: Record<string, string>;
}

/** Reads the inputs and the event and decides the plan; throws an InputError for what the user must change. */
function startRun(io: ActionIO, secrets: SecretRegistry, log: ActionLog): RunStart {
  const config = readActionConfig(io.env, (value) => secrets.register(value));
  const context = readRunContext(io.env);
  if (config.mode === 'report' || config.mode === 'matrix') {
    refuseUntrustedTarget(context, config.trustedCheckout);
    return { config, context, plan: { mode: 'skip', reason: `mode: ${config.mode}` } };
  }
  const selection = {
    clusterGroup: config.runtimeGroup,
    cluster: config.runtimeCluster,
    trustedCheckout: config.trustedCheckout,
  };
  const plan =
    config.mode === 'status'
      ? statusPlan(context, selection)
      : config.mode === 'drift'
        ? driftPlan(context, selection)
        : runPlan(context, config, config.mode);
  if (plan.mode === 'skip') return { config, context, plan };
  // Credentials are registered (and `::add-mask::` printed) before any text from the
  // event or the user's files reaches the log.
  const kubeconfig = loadKubeconfig(kubeconfigSources(config, io.env), secrets);
  // After every input's secret is registered: none of them is offered.
  const environment = offeredEnvironment(config, io.env, secrets, log);
  return { config, context, plan, kubeconfig, ...(environment ? { environment } : {}) };
}

export async function runAction(io: ActionIO): Promise<number> {
  const secrets = new SecretRegistry((value) => io.write(formatMask(value)));
  const log = new ActionLog(io.write, (text) => secrets.redact(text));
  let start: RunStart;
  try {
    start = startRun(io, secrets, log);
  } catch (error) {
    io.write(secrets.redact(errorAnnotations(error, 'timoni-fleet input')));
    return 1;
  }
  const { config, context, plan, kubeconfig } = start;
  if (config.mode === 'report' || config.mode === 'matrix')
    return runWithoutClusters(io, config, context, secrets, log, config.mode);
  if (plan.mode === 'skip' || !kubeconfig) {
    log.line(`nothing to do: ${plan.mode === 'skip' ? plan.reason : 'no kubeconfig'}`);
    setOutput(io.env, 'has-changes', 'false');
    return 0;
  }
  log.line(
    `timoni-fleet: ${plan.mode} (${plan.reason}), clusters: group ${plan.clusterGroup}, cluster ${plan.cluster}`,
  );
  return runOnClusters(io, { ...start, plan, kubeconfig }, secrets, log);
}

type ClusterPlan = Exclude<RunPlan, { mode: 'skip' }>;

/** How long the run's parts may take: the clusters' work, the requests in flight, the publishing; and an apply's cancellation. */
interface RunLimits {
  /** When the clusters' work stops: a reserve before the deadline, kept to publish the report. */
  deadlineAt: number;
  /** Aborts requests still running a moment after deadlineAt (a registry pull). */
  workDeadline: AbortSignal;
  /** The run's whole deadline. */
  deadline: AbortSignal;
  /** The deadline, or shortly after a cancellation of an apply (CANCEL_PUBLISH_MS). */
  publishing: AbortSignal;
  /** An apply's cancellation (the first SIGINT or SIGTERM); absent for other modes, which stop at once. */
  cancel?: AbortSignal;
  /** The deadline as the reports name it: `deadline 20s, 5s of it kept to publish the report`. */
  text: string;
  release(): void;
}

function runLimits(io: ActionIO, config: ActionConfig, plan: ClusterPlan, log: ActionLog): RunLimits {
  // The clusters' work ends a reserve before the deadline, so that the comment, the job
  // summary and the outputs can still say which clusters were not diffed or applied and why.
  const reserveMs = publishingReserveMs(config.deadlineMs);
  const deadlineAt = Date.now() + config.deadlineMs - reserveMs;
  // Requests still running then (a registry pull) are aborted a moment later, so that the
  // clusters they held are reported as stopped by the deadline, not by an aborted request.
  const workDeadline = AbortSignal.timeout(config.deadlineMs - reserveMs + Math.min(1000, reserveMs / 2));
  const deadline = AbortSignal.timeout(config.deadlineMs);
  // An apply (or a rollback) stops cleanly on the first SIGINT or SIGTERM; any other mode stops at once.
  const writes = plan.mode === 'apply' || plan.mode === 'rollback';
  const release = writes ? io.cancellation?.hold() : undefined;
  const cancel = writes ? io.cancellation?.signal : undefined;
  const publishing = cancel ? AbortSignal.any([deadline, abortedAfterCancel(cancel, CANCEL_PUBLISH_MS)]) : deadline;
  log.line(
    `deadline ${formatLimit(config.deadlineMs)}: the clusters' work stops ${formatLimit(reserveMs)} before it, kept to publish the report`,
  );
  return {
    deadlineAt,
    workDeadline,
    deadline,
    publishing,
    ...(cancel ? { cancel } : {}),
    text: `deadline ${formatLimit(config.deadlineMs)}, ${formatLimit(reserveMs)} of it kept to publish the report`,
    release: () => release?.(),
  };
}

/** A plan that reaches clusters: the fleet run made, the clusters diffed, applied or read, and the report published. */
async function runOnClusters(
  io: ActionIO,
  start: RunStart & { plan: ClusterPlan; kubeconfig: Kubeconfig },
  secrets: SecretRegistry,
  log: ActionLog,
): Promise<number> {
  const { config, context, plan } = start;
  const limits = runLimits(io, config, plan, log);
  const watchdog = startWatchdog(config);
  log.runTitle = `timoni-fleet ${plan.mode}`;
  // Where the report goes, made when it is published: the secrets to mask are those known by then (values the run read included).
  const target = (signal: AbortSignal): PublishTarget => ({
    env: io.env,
    context,
    secrets: secrets.secrets(),
    githubToken: config.githubToken,
    ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}),
    bundleFiles: config.bundleFiles,
    signal,
    log,
  });
  // What the run is doing until it reaches the clusters, for the report of a failure before them.
  const progress: SetupProgress = { step: 'runtime', since: Date.now() };
  let run: FleetRun | undefined;
  try {
    // The native engine is stopped at the reserve, busy or not (deadline-watchdog.ts): an
    // evaluation still running then is abandoned and reported, not waited for.
    const workspace = await readWorkspace(io, config, (engine) => {
      if (engine.stopper) watchdog.stopEngineAt(limits.deadlineAt, engine.stopper);
    });
    run = await fleetRun(io, start, workspace, limits, secrets, log, progress);
    if (plan.mode === 'status') return await readAndPublishState(run, plan, config, () => target(limits.deadline), log);
    const review = plan.mode === 'apply' ? await attachReviewCheck(run, start, plan, limits, log) : undefined;
    // An apply or a rollback rolls out; diff and drift plan.
    const fleetChangeSet =
      plan.mode === 'apply' || plan.mode === 'rollback' ? await rollOutFleet(run) : await planFleet(run);
    const changeSet = context.sha ? { ...fleetChangeSet, commit: context.sha } : fleetChangeSet;
    io.write(
      `::debug::timoni-fleet timings: first cluster request ${Math.round(run.timings?.firstClusterRequestMs ?? -1)} ms after start, ${plan.mode} done ${Math.round(performance.now())} ms after start\n`,
    );
    const published = await publishChangeSet(changeSet, plan, config, target(limits.publishing), workspace, review);
    return exitCode(io, changeSet, published, log, limits.cancel);
  } catch (error) {
    if (run !== undefined || plan.mode === 'drift' || plan.mode === 'status') {
      io.write(secrets.redact(errorAnnotations(error)));
      return 1;
    }
    await publishSetupFailure((text) => io.write(text), {
      error,
      plan,
      progress,
      deadlineText: limits.text,
      publishing: limits.publishing,
      comment: config.comment,
      secrets,
      log,
      target,
    });
    return 1;
  } finally {
    limits.release();
    watchdog.stop();
  }
}

/** An apply's review check (review-check.ts): the pull request's review record read, each cluster compared before it is applied. */
async function attachReviewCheck(
  run: FleetRun,
  start: RunStart,
  plan: Extract<ClusterPlan, { mode: 'diff' | 'apply' }>,
  limits: RunLimits,
  log: ActionLog,
): Promise<ReviewCheck | undefined> {
  const { config, context } = start;
  const review = await loadReviewCheck({
    policy: config.reviewed,
    context,
    plan,
    githubToken: config.githubToken,
    ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}),
    signal: limits.deadline,
    log,
  });
  if (review) {
    run.beforeApply = review.beforeApply;
    run.beforeLeave = review.beforeLeave;
    run.beforeRename = review.beforeRename;
  }
  return review;
}

/** The fleet run of a plan: the bundle and runtime read, the module resolver, the base runtime for fleet membership, the options. */
async function fleetRun(
  io: ActionIO,
  start: RunStart & { plan: ClusterPlan; kubeconfig: Kubeconfig },
  ws: Workspace,
  limits: RunLimits,
  secrets: SecretRegistry,
  log: ActionLog,
  progress: SetupProgress = { step: 'runtime', since: Date.now() },
): Promise<FleetRun> {
  const { config, context, plan, environment } = start;
  const at = (step: SetupProgress['step']) => Object.assign(progress, { step, since: Date.now() });
  at('bundle');
  const bundleFiles = readSourceFiles(config.bundleFiles, ws.cwd, ws.boundary);
  // runtime-cluster may list several clusters (a numbered shard of a fan-out).
  at('runtime');
  const { runtime, selector, shards } = selectionShards(
    ws.runtime,
    { group: plan.clusterGroup, cluster: plan.cluster },
    config.shardBy,
  );
  setOutput(io.env, 'matrix', matrixOutput(shards));
  const resolver = moduleResolver(config, ws, limits, secrets);
  const onPullRequest = PULL_REQUEST_EVENTS.has(context.eventName);
  // Fleet membership: the runtime before the event's change (base-runtime.ts); a diff or an apply only.
  at('base runtime');
  const membership =
    plan.mode === 'diff' || plan.mode === 'apply' ? await baseRuntime(start, ws, limits, secrets, log) : {};
  return {
    ...membership,
    engine: ws.engine,
    evaluation: {
      bundleFiles,
      moduleFiles: ws.moduleFiles,
      runtime,
      ...(environment ? { environment } : {}),
      ...(onPullRequest && !config.secretQueriesOnPullRequest ? { secretQueryRefusal: SECRET_QUERY_REFUSAL } : {}),
    },
    selector,
    kubeconfig: start.kubeconfig,
    secrets,
    resolver,
    options: fleetOptions(config),
    // Each instance's history records the commit and the run that applied it.
    provenance: { ...(context.sha ? { commit: context.sha } : {}), runUrl: context.runUrl },
    log,
    deadlineAt: limits.deadlineAt,
    deadlineText: limits.text,
    ...(limits.cancel ? { cancel: limits.cancel } : {}),
    timings: {},
    // A CUE error is annotated on the user's own lines; any other failure is told once by the fleet's failure line (log.ts).
    onClusterError: (_cluster, error) => log.annotateErrorLines(error),
    // A diff records each cluster's desired state for the comment's review record; a rollout compares with it (review-check.ts).
    recordDesired: plan.mode === 'diff',
    // A drift run reports the clusters that hold the bundle but left the runtime (fleet/orphaned-clusters.ts).
    ...(plan.mode === 'drift' ? { lookForOrphans: true } : {}),
    // A rollback builds each instance from a revision of its history (fleet/revision-rollback.ts).
    // Under `reviewed: require` only a revision applied by a reviewed run is put back (review-check.ts).
    ...(plan.mode === 'rollback' ? { rollbackTo: { ...plan.target, ...revisionReviewRule(config.reviewed) } } : {}),
  };
}

/** The module resolver of a run: registry credentials bound to their hosts, secrets registered, stopped by the work's deadline. */
function moduleResolver(
  config: ActionConfig,
  ws: Workspace,
  limits: RunLimits,
  secrets: SecretRegistry,
): ModuleResolver {
  const options = {
    hostCredentials: config.registryCreds,
    secrets: (value: string) => secrets.register(value),
    signal: limits.workDeadline,
  };
  return new ModuleResolver(ws.engine, ws.cwd, options, ws.boundary);
}

/** The runtime at the event's base commit, for the clusters that leave the fleet (base-runtime.ts). */
function baseRuntime(
  start: RunStart,
  ws: Workspace,
  limits: RunLimits,
  secrets: SecretRegistry,
  log: ActionLog,
): ReturnType<typeof readBaseRuntime> {
  const { config, context } = start;
  return readBaseRuntime({
    context,
    runtimeFiles: config.runtimeFiles,
    cwd: ws.cwd,
    workspace: ws.workspace,
    engine: ws.engine,
    githubToken: config.githubToken,
    signal: limits.workDeadline,
    log: (line) => log.line(line),
    redact: (text) => secrets.redact(text),
  });
}

function fleetOptions(config: ActionConfig): FleetRun['options'] {
  return {
    ...defaultFleetOptions,
    force: config.force,
    overwriteOwnership: config.overwriteOwnership,
    wait: config.wait,
    timeoutMs: config.timeoutMs,
    prune: config.prune,
    pruneRemovedInstances: config.pruneRemovedInstances,
    pruneRemovedClusters: config.pruneRemovedClusters,
    concurrency: config.concurrency,
    strategy: config.strategy,
    maxParallel: config.maxParallel,
    soakMs: config.soakMs,
    onFailure: config.onFailure,
    history: config.history,
    identity: {
      mode: config.clusterIdentity,
      recordName: config.clusterIdentityRecord,
      repin: config.repinClusters,
      repinAdvice: (cluster) => `run an apply with repin-clusters: ${cluster}`,
    },
  };
}

/**
 * `mode: status`: the state of every cluster x instance read and published (status-report.ts).
 * A cluster whose state could not be read (unreachable, refused, the bundle not evaluated for it)
 * fails the step, as a cluster that could not be diffed fails a drift run: each reason is
 * annotated once, the states themselves (stale, not installed, failed) are the report.
 */
async function readAndPublishState(
  run: FleetRun,
  plan: Extract<ClusterPlan, { mode: 'status' }>,
  config: ActionConfig,
  publishTarget: () => PublishTarget,
  log: ActionLog,
): Promise<number> {
  const state = await fleetState(run);
  const target = publishTarget();
  const status = await publishStatus({
    ...target,
    state: target.context.sha ? { ...state, commit: target.context.sha } : state,
    sha: plan.sha,
    issue: config.statusIssue,
  });
  const unknown = state.instances.filter((row) => row.state === 'unknown');
  // One annotation per reason not told yet, naming its clusters (a bundle error fails them all alike).
  const clustersByReason = new Map<string, Set<string>>();
  for (const row of unknown)
    clustersByReason.set(row.reason, (clustersByReason.get(row.reason) ?? new Set()).add(row.cluster));
  for (const [reason, clusters] of clustersByReason) {
    if (!log.hasTold(reason))
      log.annotate({ level: 'error', title: `state unknown: cluster ${[...clusters].join(', ')}`, message: reason });
  }
  return status.fails || unknown.length > 0 ? 1 : 0;
}

/** A diff's, drift's or apply's ChangeSet published: the drift issue (drift.ts) for a drift, else the pull request comment; the job summary and the outputs. */
async function publishChangeSet(
  changeSet: ChangeSet,
  plan: Exclude<ClusterPlan, { mode: 'status' }>,
  config: ActionConfig,
  target: PublishTarget,
  ws: Workspace,
  review: ReviewCheck | undefined,
): Promise<{ fails: boolean }> {
  const drift =
    plan.mode === 'drift'
      ? await publishDrift({ ...target, changeSet, plan, issue: config.driftIssue, labels: config.driftLabels })
      : undefined;
  const record = review?.record(changeSet.bundle);
  const published = await publishResults({
    ...target,
    changeSet,
    // A drift is published as a diff, a rollback as an apply (its ChangeSet says it is a rollback).
    plan:
      plan.mode === 'drift' ? { ...plan, mode: 'diff' } : plan.mode === 'rollback' ? { ...plan, mode: 'apply' } : plan,
    ...(drift?.note ? { notes: [drift.note] } : {}),
    comment: config.comment && plan.mode !== 'drift',
    changesFile: { path: config.changesFile, workspace: ws.workspace, boundary: ws.boundary },
    ...(review
      ? { review: { notes: review.summary(), warnings: review.warnings, ...(record ? { record } : {}) } }
      : {}),
  });
  // A diff whose comment could not be posted fails (publishResults says why); drift found is not a failure, an issue that could not be written is.
  return { fails: published.fails || drift?.fails === true };
}

/** The run's exit code: 130 for a cancelled apply, 1 when a cluster failed or publishing failed; each failed cluster annotated once. */
function exitCode(
  io: ActionIO,
  changeSet: ChangeSet,
  published: { fails: boolean },
  log: ActionLog,
  cancel: AbortSignal | undefined,
): number {
  const failed = changeSet.clusters.filter((c) => c.status === 'failed');
  // A failure told while the clusters ran (log.ts) is not told again; a bundle error was annotated at its lines.
  for (const cluster of failed.filter((c) => c.error?.step !== 'bundle' && !log.hasTold(c.error?.message ?? ''))) {
    log.annotate({
      level: 'error',
      title: `cluster ${cluster.name} ${isCancelled(cluster) ? 'cancelled' : 'failed'}`,
      message: `${cluster.error?.step ?? 'run'}: ${cluster.error?.message ?? 'failed'}`,
    });
  }
  const cancelled = io.cancellation?.cancelled;
  if (cancel && cancelled) {
    log.annotate({
      level: 'error',
      title: 'timoni-fleet cancelled',
      message:
        cancellationLine(changeSet.clusters) ??
        `${cancelled.message} after the rollout had ended; the report above is the rollout's whole`,
    });
    return CANCELLED_EXIT_CODE;
  }
  return failed.length > 0 || published.fails ? 1 : 0;
}
