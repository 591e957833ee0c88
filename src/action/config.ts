// The action's inputs, read and checked once: what to evaluate, where the clusters are,
// and how to diff or apply. Secret inputs (registry credentials, the token) are
// registered for masking before anything else reads them; kubeconfig credentials are
// registered by the kubeconfig loader.
import { getBooleanInput, getChoiceInput, getInput, getListInput, InputError, type Environment } from './runner.js';
import { parseDuration } from '../duration.js';
import type { ModeInput } from './event-plan.js';
import { parseVariableNames, RuntimeEnvironmentError } from '../bundle/runtime-environment.js';
import { ROLLOUT_STRATEGIES, type RolloutStrategy } from '../fleet/fleet-run.js';
import { parseShardBy, ShardByError, type ShardBy } from '../fleet/shards.js';
import { REVIEWED_POLICIES, type ReviewedPolicy } from './review-check.js';
import { DEFAULT_IDENTITY_RECORD, IDENTITY_MODES, parseRepinList, type IdentityMode } from '../kube/connect/index.js';
import { quote } from '../display-text.js';

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

const HOST_ENTRY = /^([A-Za-z0-9.-]+(?::\d+)?)=(.*)$/s;

/**
 * `registry-creds`: one `host=user:password` (or `host=token`) entry per line. Credentials
 * are bound to the registry host they name: a pull request that points a module at another
 * registry never gets them. Every value is registered for masking before it is checked, and
 * errors name the entry by its position, never by its text.
 */
export function registryCredentials(text: string, mask: (secret: string) => void): Record<string, string> {
  const entries: Record<string, string> = {};
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  lines.forEach((line, index) => {
    mask(line);
    const match = HOST_ENTRY.exec(line);
    if (!match || match[2] === '') {
      throw new InputError('registry-creds', `entry ${index + 1} is not of the form host=user:password (one entry per line, e.g. ghcr.io=user:token); credentials are bound to the registry host they are for`);
    }
    const [, host = '', credential = ''] = match;
    mask(credential);
    const colon = credential.indexOf(':');
    if (colon >= 0) mask(credential.slice(colon + 1));
    entries[host.toLowerCase()] = credential;
  });
  return entries;
}

/** `cluster-identity-record`: a ConfigMap name (DNS subdomain), default timoni-fleet-identity. */
function identityRecordName(text: string): string {
  if (text === '') return DEFAULT_IDENTITY_RECORD;
  if (text.length > 253 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text)) throw new InputError('cluster-identity-record', `must be a ConfigMap name (lower-case letters, digits, - and .), not ${quote(text)}`);
  return text;
}

export function readActionConfig(env: Environment, mask: (secret: string) => void): ActionConfig {
  // The credentials inside the kubeconfigs are registered when they are loaded; masking the
  // whole text would hide every structural line (`apiVersion: v1`) in every report.
  const kubeconfigs = kubeconfigInputs(env);
  const githubToken = getInput(env, 'github-token');
  if (githubToken) mask(githubToken);
  const registryCreds = registryCredentials(getInput(env, 'registry-creds'), mask);

  const bundleFiles = getListInput(env, 'bundle');
  if (bundleFiles.length === 0) throw new InputError('bundle', 'is required: name one or more bundle files');
  const timeoutText = getInput(env, 'timeout') || '5m';
  const timeoutMs = parseDuration(timeoutText);
  if (timeoutMs === undefined) throw new InputError('timeout', `must be a duration such as 5m or 90s, not ${quote(timeoutText)}`);
  const deadlineText = getInput(env, 'deadline') || '60m';
  const deadlineMs = parseDuration(deadlineText);
  if (deadlineMs === undefined || deadlineMs <= 0) throw new InputError('deadline', `must be a duration such as 60m or 1h30m, not ${quote(deadlineText)}`);
  const memoryText = getInput(env, 'cue-memory-limit') || '2048';
  const cueMemoryLimitMiB = Number(memoryText);
  if (!Number.isInteger(cueMemoryLimitMiB) || cueMemoryLimitMiB < 64 || cueMemoryLimitMiB > 4096) {
    throw new InputError('cue-memory-limit', `must be a whole number of MiB from 64 to 4096, not ${quote(memoryText)}`);
  }
  let runtimeEnv: string[];
  try {
    runtimeEnv = parseVariableNames(getInput(env, 'runtime-env'), 'runtime-env');
  } catch (error) {
    throw new InputError('runtime-env', error instanceof RuntimeEnvironmentError ? error.message.replace(/^runtime-env: /, '') : String(error));
  }
  const concurrencyText = getInput(env, 'concurrency') || '4';
  const concurrency = Number(concurrencyText);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new InputError('concurrency', `must be a whole number of clusters, 1 or more, not ${quote(concurrencyText)}`);
  const strategy = getChoiceInput(env, 'strategy', ROLLOUT_STRATEGIES, 'sequential');
  const maxParallelText = getInput(env, 'max-parallel') || '4';
  const maxParallel = Number(maxParallelText);
  if (!Number.isInteger(maxParallel) || maxParallel < 1) throw new InputError('max-parallel', `must be a whole number of clusters, 1 or more, not ${quote(maxParallelText)}`);
  let shardBy: ShardBy;
  try {
    shardBy = parseShardBy(getInput(env, 'shard-by'));
  } catch (error) {
    throw new InputError('shard-by', error instanceof ShardByError ? error.message : String(error));
  }

  return {
    bundleFiles,
    runtimeFiles: getListInput(env, 'runtime'),
    kubeconfigs,
    mode: getChoiceInput(env, 'mode', ['auto', 'diff', 'apply', 'report', 'matrix', 'drift', 'status'] as const, 'auto'),
    runtimeGroup: getInput(env, 'runtime-group') || '*',
    runtimeCluster: getInput(env, 'runtime-cluster') || '*',
    runtimeFromEnv: getBooleanInput(env, 'runtime-from-env', false),
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
    wait: getBooleanInput(env, 'wait', true),
    timeoutMs,
    prune: getBooleanInput(env, 'prune', true),
    pruneRemovedInstances: getBooleanInput(env, 'prune-removed-instances', true),
    pruneRemovedClusters: getBooleanInput(env, 'prune-removed-clusters', true),
    force: getBooleanInput(env, 'force', false),
    overwriteOwnership: getBooleanInput(env, 'overwrite-ownership', false),
    registryCreds,
    concurrency,
    strategy,
    maxParallel,
    workingDirectory: getInput(env, 'working-directory') || '.',
    changesFile: getInput(env, 'changes-file'),
    changesPatterns: getInput(env, 'changes').split(/\r?\n/).map((line) => line.trim()).filter(Boolean),
    shardBy,
    reviewed: getChoiceInput(env, 'reviewed', REVIEWED_POLICIES, 'warn'),
    clusterIdentity: getChoiceInput(env, 'cluster-identity', IDENTITY_MODES, 'record'),
    clusterIdentityRecord: identityRecordName(getInput(env, 'cluster-identity-record')),
    repinClusters: parseRepinList(getListInput(env, 'repin-clusters')),
    driftIssue: getBooleanInput(env, 'drift-issue', true),
    driftLabels: getListInput(env, 'drift-labels'),
    statusIssue: getBooleanInput(env, 'status-issue', false),
  };
}
