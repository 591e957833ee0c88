// The action's inputs, read and checked once: what to evaluate, where the clusters are,
// and how to diff or apply. Secret inputs (registry credentials, the token) are
// registered for masking before anything else reads them; kubeconfig credentials are
// registered by the kubeconfig loader. The options a run shares with the CLI (their
// defaults, checks and error texts) are the contract's (../fleet/run-options.ts): here they
// are only read from the inputs (readOption); the action's own inputs are read below them.
import { getBooleanInput, getChoiceInput, getInput, getListInput, InputError, type Environment } from './runner.js';
import type { ModeInput } from './event-plan.js';
import {
  hostCredentials,
  runOptions,
  RunOptionError,
  type BooleanOption,
  type ListOption,
  type OnFailure,
  type RolloutStrategy,
  type TextOption,
} from '../fleet/run-options.js';
import { parseShardBy, ShardByError, type ShardBy } from '../fleet/shards.js';
import { REVIEWED_POLICIES, type ReviewedPolicy } from './review-check.js';
import type { IdentityMode } from '../kube/connect/index.js';

export interface ActionConfig {
  bundleFiles: string[];
  runtimeFiles: string[];
  kubeconfigs: string[];
  mode: ModeInput;
  runtimeGroup: string;
  runtimeCluster: string;
  runtimeFromEnv: boolean;
  /** Variables offered to runtime attributes by name (the allow-list form). */
  runtimeEnv: string[];
  /** Runtime queries of cluster Secrets are allowed on pull requests. */
  secretQueriesOnPullRequest: boolean;
  /** Refs besides the default branch that may be applied (exact refs or globs with *). */
  applyRefs: string[];
  /** The workflow says its pull_request_target job checks out trusted code. */
  trustedCheckout: boolean;
  /** An empty kubeconfig input falls back to KUBECONFIG / ~/.kube/config. */
  useRunnerKubeconfig: boolean;
  /** The whole run's time limit. */
  deadlineMs: number;
  /** Ceiling on the CUE engine's memory, in MiB. */
  cueMemoryLimitMiB: number;
  githubToken: string;
  comment: boolean;
  /** The login of the bot that writes the comment when the token is a GitHub App's (`comment-author`). */
  commentAuthor: string;
  wait: boolean;
  timeoutMs: number;
  prune: boolean;
  /** With prune: delete the instances of the bundle that it no longer lists. */
  pruneRemovedInstances: boolean;
  /** With prune and a base runtime: delete the bundle from the clusters that leave the runtime (`prune-removed-clusters`). */
  pruneRemovedClusters: boolean;
  force: boolean;
  overwriteOwnership: boolean;
  /** Registry credentials by registry host (`host=user:password` entries). */
  registryCreds: Record<string, string>;
  concurrency: number;
  /** How a rollout goes through the clusters (`strategy`): one after the other, or group by group in waves. */
  strategy: RolloutStrategy;
  /** With `strategy: waves`, clusters of one wave applied at once (`max-parallel`). */
  maxParallel: number;
  /** The soak gate between waves or clusters (`soak`), in milliseconds; undefined: none. */
  soakMs: number | undefined;
  /** A failed cluster during a rollout: `stop`, or `rollback` to put it back as it was (`on-failure`). */
  onFailure: OnFailure;
  /** Revisions of each instance kept in the cluster (`history`); 0: none written. */
  history: number;
  /** `mode: rollback`: the instance put back (`instance`; '': every instance) and the revision (`revision`; undefined: each one's previous). */
  rollbackInstance: string;
  revision: number | undefined;
  workingDirectory: string;
  /** Where to write the ChangeSet file, relative to the workspace (`changes-file`); empty: under RUNNER_TEMP. */
  changesFile: string;
  /** Report mode: glob patterns of the ChangeSet files to merge, relative to the workspace (`changes`). */
  changesPatterns: string[];
  /** How the `matrix` output (and report mode) splits the selected clusters into shards (`shard-by`). */
  shardBy: ShardBy;
  /** Apply what was reviewed (`reviewed`): refuse, warn about, or not compare a cluster that differs from the PR's diff. */
  reviewed: ReviewedPolicy;
  /** The cluster identity check (`cluster-identity`): check records, also record them on apply, or off. */
  clusterIdentity: IdentityMode;
  /** The identity record's ConfigMap name in kube-system (`cluster-identity-record`). */
  clusterIdentityRecord: string;
  /** Runtime clusters an apply re-pins on purpose (`repin-clusters`). */
  repinClusters: string[];
  /** `mode: drift` keeps one issue per bundle (`drift-issue`). */
  driftIssue: boolean;
  /** Labels of a new drift issue (`drift-labels`). */
  driftLabels: string[];
  /** `mode: status` keeps its table in one issue per bundle (`status-issue`). */
  statusIssue: boolean;
}

/**
 * The kubeconfigs given in the `kubeconfig` input: YAML (several documents merge), or one
 * or more base64-encoded kubeconfigs separated by whitespace.
 */
function kubeconfigInputs(env: Environment): string[] {
  const raw = getInput(env, 'kubeconfig');
  if (raw === '') return [];
  if (/^[A-Za-z0-9+/=\s]+$/.test(raw)) return raw.split(/\s+/).filter(Boolean);
  return [raw];
}

/** A contract option's wrong value as the action says it: `input "<name>": <reason>`. */
function asInputError<T>(option: { input: string }, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof RunOptionError) throw new InputError(option.input, error.reason);
    throw error;
  }
}

/** An option of the contract from its input: empty is the action's default. */
function readOption(env: Environment, option: BooleanOption): boolean;
function readOption<T, C>(env: Environment, option: TextOption<T, C>): T;
function readOption<T>(env: Environment, option: ListOption<T>): T;
function readOption<T, C>(env: Environment, option: BooleanOption | TextOption<T, C> | ListOption<T>): T | boolean {
  if (option.kind === 'boolean') return getBooleanInput(env, option.input, option.action.value);
  if (option.kind === 'list') {
    const items = getListInput(env, option.input);
    return items.length === 0 ? option.action.value : asInputError(option, () => option.parse(items));
  }
  const text = getInput(env, option.input);
  return text === '' ? option.action.value : asInputError(option, () => option.parse(text));
}

export function readActionConfig(env: Environment, mask: (secret: string) => void): ActionConfig {
  // The credentials inside the kubeconfigs are registered when they are loaded; masking the
  // whole text would hide every structural line (`apiVersion: v1`) in every report.
  const kubeconfigs = kubeconfigInputs(env);
  const githubToken = getInput(env, 'github-token');
  if (githubToken) mask(githubToken);
  // `registry-creds`: credentials bound to registry hosts, each value masked before it is checked.
  const registryCreds = asInputError(runOptions.registryCreds, () =>
    hostCredentials(getInput(env, runOptions.registryCreds.input), mask),
  );

  const bundleFiles = readOption(env, runOptions.bundle);
  if (bundleFiles.length === 0)
    throw new InputError(runOptions.bundle.input, 'is required: name one or more bundle files');
  const timeoutMs = readOption(env, runOptions.timeout);
  const deadlineMs = readOption(env, runOptions.deadline);
  const cueMemoryLimitMiB = readOption(env, runOptions.cueMemoryLimit);
  const runtimeEnv = readOption(env, runOptions.runtimeEnv);
  const concurrency = readOption(env, runOptions.concurrency);
  const strategy: RolloutStrategy = readOption(env, runOptions.strategy);
  const maxParallel = readOption(env, runOptions.maxParallel);
  const soakMs = readOption(env, runOptions.soak);
  const history = readOption(env, runOptions.history);
  let shardBy: ShardBy;
  try {
    shardBy = parseShardBy(getInput(env, 'shard-by'));
  } catch (error) {
    throw new InputError('shard-by', error instanceof ShardByError ? error.message : String(error));
  }

  return {
    bundleFiles,
    runtimeFiles: readOption(env, runOptions.runtime),
    kubeconfigs,
    mode: getChoiceInput(
      env,
      'mode',
      ['auto', 'diff', 'apply', 'report', 'matrix', 'drift', 'status', 'rollback'] as const,
      'auto',
    ),
    runtimeGroup: readOption(env, runOptions.runtimeGroup),
    runtimeCluster: readOption(env, runOptions.runtimeCluster),
    runtimeFromEnv: readOption(env, runOptions.runtimeFromEnv),
    runtimeEnv,
    secretQueriesOnPullRequest: getBooleanInput(env, 'secret-queries-on-pull-request', false),
    applyRefs: getListInput(env, 'apply-refs'),
    trustedCheckout: getBooleanInput(env, 'trusted-checkout', false),
    useRunnerKubeconfig: getBooleanInput(env, 'use-runner-kubeconfig', false),
    deadlineMs,
    cueMemoryLimitMiB,
    githubToken,
    comment: getBooleanInput(env, 'comment', true),
    commentAuthor: getInput(env, 'comment-author'),
    wait: readOption(env, runOptions.wait),
    timeoutMs,
    prune: readOption(env, runOptions.prune),
    pruneRemovedInstances: readOption(env, runOptions.pruneRemovedInstances),
    pruneRemovedClusters: readOption(env, runOptions.pruneRemovedClusters),
    force: readOption(env, runOptions.force),
    overwriteOwnership: readOption(env, runOptions.overwriteOwnership),
    registryCreds,
    concurrency,
    strategy,
    maxParallel,
    soakMs,
    onFailure: readOption(env, runOptions.onFailure),
    history,
    rollbackInstance: readOption(env, runOptions.rollbackInstance),
    revision: readOption(env, runOptions.revision),
    workingDirectory: getInput(env, 'working-directory') || '.',
    changesFile: readOption(env, runOptions.changesFile),
    changesPatterns: getInput(env, 'changes')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean),
    shardBy,
    reviewed: getChoiceInput(env, 'reviewed', REVIEWED_POLICIES, 'warn'),
    clusterIdentity: readOption(env, runOptions.clusterIdentity),
    clusterIdentityRecord: readOption(env, runOptions.clusterIdentityRecord),
    repinClusters: readOption(env, runOptions.repinClusters),
    driftIssue: getBooleanInput(env, 'drift-issue', true),
    driftLabels: getListInput(env, 'drift-labels'),
    statusIssue: getBooleanInput(env, 'status-issue', false),
  };
}
