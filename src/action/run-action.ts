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
// issue (status-report.ts); no state fails the step. A diff or an apply also reads the runtime as
// it was at the event's base commit (base-runtime.ts), for the clusters that leave the fleet.
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
import { isCancelled } from '../changeset.js';
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
import { startDeadlineWatchdog } from './deadline-watchdog.js';
import { ActionLog } from './log.js';
import { publishDrift } from './drift.js';
import { driftPlan, planRun, refuseUntrustedTarget, statusPlan, type FleetModeInput, type RunPlan } from './event-plan.js';
import { publishStatus } from './status-report.js';
import { publishResults } from './publish.js';
import { loadReviewCheck } from './review-check.js';
import { runReport } from './report.js';
import { formatMask, InputError, setOutput, type Environment } from './runner.js';

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
    throw new InputError('kubeconfig', 'is empty (is the secret set, and given to this job?); to use the runner\'s own KUBECONFIG or ~/.kube/config instead, set use-runner-kubeconfig: true');
  }
  const paths = (env.KUBECONFIG ?? join(homedir(), '.kube', 'config')).split(':').filter(Boolean);
  return paths.map((path) => {
    if (!existsSync(path)) throw new InputError('use-runner-kubeconfig', `the runner's kubeconfig ${path} does not exist`);
    return { text: readFileSync(path, 'utf8'), path };
  });
}

/**
 * The environment offered to runtime attributes (runtime-environment.ts), checked against
 * every secret registered so far (the inputs' tokens and credentials, the kubeconfigs and
 * their keys): a variable whose value holds one, or a URL with a password, is withheld under
 * runtime-from-env (the log names it, never its value) and refused when runtime-env lists it.
 */
function offeredEnvironment(config: ActionConfig, env: Environment, secrets: SecretRegistry, log: ActionLog): Record<string, string> | undefined {
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
    if (error instanceof RuntimeEnvironmentError) throw new InputError('runtime-env', error.message.replace(/^runtime-env: /, ''));
    throw error;
  }
  if (withheld.length > 0) {
    log.line(`runtime-from-env: withheld ${withheld.join(', ')}: a value that holds a secret of the run or a URL with a password is never given to runtime attributes`);
  }
  return environment;
}

const SECRET_QUERY_REFUSAL =
  'reads a Secret, which is refused on pull requests: the bundle and runtime are the pull request author\'s code, and masking cannot hide a value that CUE transforms (reversed, split, spaced out). Set the input secret-queries-on-pull-request: true to allow it (see the Security section of the README)';

function runPlan(context: RunContext, config: ActionConfig, mode: FleetModeInput): RunPlan {
  return planRun(context, {
    mode,
    clusterGroup: config.runtimeGroup,
    cluster: config.runtimeCluster,
    applyRefs: config.applyRefs,
    trustedCheckout: config.trustedCheckout,
  });
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

async function readWorkspace(io: ActionIO, config: ActionConfig): Promise<Workspace> {
  const workspace = io.env.GITHUB_WORKSPACE ?? io.cwd;
  const cwd = resolve(workspace, config.workingDirectory);
  // Every bundle, runtime, cue.mod and local module file must resolve inside the workspace.
  const boundary = new FileBoundary([workspace]);
  const engine = await loadCueEngine({ memoryLimitMiB: config.cueMemoryLimitMiB });
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

function startWatchdog(config: ActionConfig): { stop(): void } {
  return startDeadlineWatchdog(config.deadlineMs, (ms) => `the run passed its deadline (${Math.round(ms / 1000)} s) while the CUE engine was evaluating and did not give control back; stopped. Raise the "deadline" input, or look for a loop in the bundle's or module's CUE.`);
}

/** `mode: report` and `mode: matrix`: the runtime is read, no kubeconfig, no cluster. */
async function runWithoutClusters(io: ActionIO, config: ActionConfig, context: RunContext, secrets: SecretRegistry, log: ActionLog, mode: 'report' | 'matrix'): Promise<number> {
  const watchdog = startWatchdog(config);
  try {
    const { workspace, boundary, runtime } = await readWorkspace(io, config);
    const selection = selectionShards(runtime, { group: config.runtimeGroup, cluster: config.runtimeCluster }, config.shardBy);
    setOutput(io.env, 'matrix', matrixOutput(selection.shards));
    if (mode === 'matrix') {
      log.line(`timoni-fleet: matrix of ${selection.shards.length} shard(s): ${selection.shards.map((s) => `${s.name} (${s.clusters.map((c) => c.name).join(', ')})`).join('; ')}`);
      return 0;
    }
    const { published, failed } = await runReport({ env: io.env, config, context, runtime, workspace, boundary, secrets: secrets.secrets(), log, signal: AbortSignal.timeout(config.deadlineMs) });
    for (const cluster of failed) log.annotate({ level: 'error', title: `cluster ${cluster.name} failed`, message: `${cluster.step}: ${cluster.message}` });
    return failed.length > 0 || published.fails ? 1 : 0;
  } catch (error) {
    io.write(secrets.redact(errorAnnotations(error, mode === 'report' ? 'timoni-fleet report' : undefined)));
    return 1;
  } finally {
    watchdog.stop();
  }
}

export async function runAction(io: ActionIO): Promise<number> {
  const secrets = new SecretRegistry((value) => io.write(formatMask(value)));
  const log = new ActionLog(io.write, (text) => secrets.redact(text));

  let config: ActionConfig;
  let context: RunContext;
  let plan: RunPlan;
  let kubeconfig: Kubeconfig | undefined;
  let environment: Record<string, string> | undefined;
  try {
    config = readActionConfig(io.env, (value) => secrets.register(value));
    context = readRunContext(io.env);
    if (config.mode === 'report' || config.mode === 'matrix') {
      refuseUntrustedTarget(context, config.trustedCheckout);
      plan = { mode: 'skip', reason: `mode: ${config.mode}` };
    } else {
      const selection = { clusterGroup: config.runtimeGroup, cluster: config.runtimeCluster, trustedCheckout: config.trustedCheckout };
      plan = config.mode === 'status' ? statusPlan(context, selection) : config.mode === 'drift' ? driftPlan(context, { clusterGroup: config.runtimeGroup, cluster: config.runtimeCluster, trustedCheckout: config.trustedCheckout }) : runPlan(context, config, config.mode);
      // Credentials are registered (and `::add-mask::` printed) before any text from the
      // event or the user's files reaches the log.
      if (plan.mode !== 'skip') {
        kubeconfig = loadKubeconfig(kubeconfigSources(config, io.env), secrets);
        // After every input's secret is registered: none of them is offered.
        environment = offeredEnvironment(config, io.env, secrets, log);
      }
    }
  } catch (error) {
    io.write(secrets.redact(errorAnnotations(error, 'timoni-fleet input')));
    return 1;
  }
  if (config.mode === 'report' || config.mode === 'matrix') return runWithoutClusters(io, config, context, secrets, log, config.mode);
  if (plan.mode === 'skip' || !kubeconfig) {
    log.line(`nothing to do: ${plan.mode === 'skip' ? plan.reason : 'no kubeconfig'}`);
    setOutput(io.env, 'has-changes', 'false');
    return 0;
  }
  log.line(`timoni-fleet: ${plan.mode} (${plan.reason}), clusters: group ${plan.clusterGroup}, cluster ${plan.cluster}`);

  // The clusters' work ends a reserve before the deadline, so that the comment, the job
  // summary and the outputs can still say which clusters were not diffed or applied and why.
  const reserveMs = publishingReserveMs(config.deadlineMs);
  const deadlineAt = Date.now() + config.deadlineMs - reserveMs;
  // Requests still running then (a registry pull) are aborted a moment later, so that the
  // clusters they held are reported as stopped by the deadline, not by an aborted request.
  const workDeadline = AbortSignal.timeout(config.deadlineMs - reserveMs + Math.min(1000, reserveMs / 2));
  const deadline = AbortSignal.timeout(config.deadlineMs);
  const watchdog = startWatchdog(config);
  // An apply stops cleanly on the first SIGINT or SIGTERM; any other mode stops at once.
  const releaseCancellation = plan.mode === 'apply' ? io.cancellation?.hold() : undefined;
  const cancel = plan.mode === 'apply' ? io.cancellation?.signal : undefined;
  const publishing = cancel ? AbortSignal.any([deadline, abortedAfterCancel(cancel, CANCEL_PUBLISH_MS)]) : deadline;
  log.line(`deadline ${formatLimit(config.deadlineMs)}: the clusters' work stops ${formatLimit(reserveMs)} before it, kept to publish the report`);
  try {
    const { workspace, cwd, boundary, engine, moduleFiles, runtime: wholeRuntime } = await readWorkspace(io, config);
    const bundleFiles = readSourceFiles(config.bundleFiles, cwd, boundary);
    // runtime-cluster may list several clusters (a numbered shard of a fan-out).
    const { runtime, selector, shards } = selectionShards(wholeRuntime, { group: plan.clusterGroup, cluster: plan.cluster }, config.shardBy);
    setOutput(io.env, 'matrix', matrixOutput(shards));
    const resolver = new ModuleResolver(
      engine,
      cwd,
      { hostCredentials: config.registryCreds, secrets: (value: string) => secrets.register(value), signal: workDeadline },
      boundary,
    );
    const onPullRequest = PULL_REQUEST_EVENTS.has(context.eventName);
    // Fleet membership: the runtime before the event's change (base-runtime.ts); a diff or an apply only.
    const membership =
      plan.mode === 'diff' || plan.mode === 'apply'
        ? await readBaseRuntime({ context, runtimeFiles: config.runtimeFiles, cwd, workspace, engine, moduleFiles, githubToken: config.githubToken, signal: workDeadline, log: (line) => log.line(line), redact: (text) => secrets.redact(text) })
        : {};
    const run: FleetRun = {
      ...membership,
      engine,
      evaluation: {
        bundleFiles,
        moduleFiles,
        runtime,
        ...(environment ? { environment } : {}),
        ...(onPullRequest && !config.secretQueriesOnPullRequest ? { secretQueryRefusal: SECRET_QUERY_REFUSAL } : {}),
      },
      selector,
      kubeconfig,
      secrets,
      resolver,
      options: {
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
        identity: { mode: config.clusterIdentity, recordName: config.clusterIdentityRecord, repin: config.repinClusters },
      },
      log,
      deadlineAt,
      ...(cancel ? { cancel } : {}),
      timings: {},
      onClusterError: (_cluster, error) => io.write(secrets.redact(errorAnnotations(error))),
      // A diff records each cluster's desired state for the comment's review record; a rollout compares with it (review-check.ts).
      recordDesired: plan.mode === 'diff',
      // A drift run reports the clusters that hold the bundle but left the runtime (fleet/orphaned-clusters.ts).
      ...(plan.mode === 'drift' ? { lookForOrphans: true } : {}),
    };
    const review = plan.mode === 'apply' ? await loadReviewCheck({ policy: config.reviewed, context, plan, githubToken: config.githubToken, ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}), signal: deadline, log }) : undefined;
    if (review) {
      run.beforeApply = review.beforeApply;
      run.beforeLeave = review.beforeLeave;
      run.beforeRename = review.beforeRename;
    }
    // mode: status reads the state of every cluster x instance and publishes it (status-report.ts).
    if (plan.mode === 'status') {
      const state = await fleetState(run);
      const status = await publishStatus({
        env: io.env,
        state: context.sha ? { ...state, commit: context.sha } : state,
        context,
        sha: plan.sha,
        secrets: secrets.secrets(),
        githubToken: config.githubToken,
        issue: config.statusIssue,
        ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}),
        bundleFiles: config.bundleFiles,
        signal: deadline,
        log,
      });
      return status.fails ? 1 : 0;
    }
    // Only an apply rolls out; diff and drift plan.
    const fleetChangeSet = plan.mode === 'apply' ? await rollOutFleet(run) : await planFleet(run);
    const changeSet = context.sha ? { ...fleetChangeSet, commit: context.sha } : fleetChangeSet;
    io.write(`::debug::timoni-fleet timings: first cluster request ${Math.round(run.timings?.firstClusterRequestMs ?? -1)} ms after start, ${plan.mode} done ${Math.round(performance.now())} ms after start\n`);
    // mode: drift keeps the bundle's drift issue (drift.ts) instead of a pull request comment.
    const drift =
      plan.mode === 'drift'
        ? await publishDrift({
            env: io.env,
            changeSet,
            context,
            plan,
            secrets: secrets.secrets(),
            githubToken: config.githubToken,
            issue: config.driftIssue,
            labels: config.driftLabels,
            ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}),
            bundleFiles: config.bundleFiles,
            signal: deadline,
            log,
          })
        : undefined;
    const published = await publishResults({
      env: io.env,
      changeSet,
      context,
      plan: plan.mode === 'drift' ? { ...plan, mode: 'diff' } : plan,
      ...(drift?.note ? { notes: [drift.note] } : {}),
      secrets: secrets.secrets(),
      githubToken: config.githubToken,
      comment: config.comment && plan.mode !== 'drift',
      ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}),
      bundleFiles: config.bundleFiles,
      signal: publishing,
      log,
      changesFile: { path: config.changesFile, workspace, boundary },
      ...(review ? { review: { notes: review.summary(), warnings: review.warnings, ...(review.record(changeSet.bundle) ? { record: review.record(changeSet.bundle) } : {}) } } : {}),
    });
    const failed = changeSet.clusters.filter((c) => c.status === 'failed');
    // A bundle error was annotated once, at its line, before any cluster: not again per cluster.
    for (const cluster of failed.filter((c) => c.error?.step !== 'bundle')) {
      log.annotate({ level: 'error', title: `cluster ${cluster.name} ${isCancelled(cluster) ? 'cancelled' : 'failed'}`, message: `${cluster.error?.step ?? 'run'}: ${cluster.error?.message ?? 'failed'}` });
    }
    const cancelled = io.cancellation?.cancelled;
    if (cancel && cancelled) {
      log.annotate({ level: 'error', title: 'timoni-fleet cancelled', message: cancellationLine(changeSet.clusters) ?? `${cancelled.message} after the rollout had ended; the report above is the rollout's whole` });
      return CANCELLED_EXIT_CODE;
    }
    // A diff whose comment could not be posted fails too (publishResults says why).
    // Drift found is not a failure (drift.ts); an issue that could not be written is.
    return failed.length > 0 || published.fails || drift?.fails === true ? 1 : 0;
  } catch (error) {
    io.write(secrets.redact(errorAnnotations(error)));
    return 1;
  } finally {
    releaseCancellation?.();
    watchdog.stop();
  }
}
