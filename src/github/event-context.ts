// What the workflow run is about: the event that triggered it and what timoni-fleet should
// do for it. In `auto` mode a pull request (opened, synchronize, reopened) is diffed; a push
// to the default branch and a merged pull request are applied; workflow_dispatch takes its
// `cluster-group`, `cluster` and `mode` inputs from the event, which the action's own
// inputs override.
import { readFileSync } from 'node:fs';
import type { Environment } from './action-inputs.js';

export interface RunContext {
  eventName: string;
  payload: Record<string, unknown>;
  owner: string;
  repo: string;
  sha: string;
  ref: string;
  runUrl: string;
  apiUrl: string;
}

export function readRunContext(env: Environment): RunContext {
  const eventPath = env.GITHUB_EVENT_PATH;
  const payload = eventPath ? (JSON.parse(readFileSync(eventPath, 'utf8')) as Record<string, unknown>) : {};
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '/').split('/');
  const serverUrl = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    owner,
    repo,
    sha: env.GITHUB_SHA ?? '',
    ref: env.GITHUB_REF ?? '',
    runUrl: `${serverUrl}/${owner}/${repo}/actions/runs/${env.GITHUB_RUN_ID ?? ''}`,
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
  };
}

export type ModeInput = 'auto' | 'diff' | 'apply';

export type RunPlan =
  | { mode: 'diff' | 'apply'; pullRequest?: number; sha: string; clusterGroup: string; cluster: string; reason: string }
  | { mode: 'skip'; reason: string };

export interface PlanInputs {
  mode: ModeInput;
  clusterGroup: string;
  cluster: string;
}

interface PullRequestPayload {
  number?: number;
  merged?: boolean;
  merge_commit_sha?: string | null;
  head?: { sha?: string };
}

const isAll = (value: string) => value === '' || value === '*';

export function planRun(context: RunContext, inputs: PlanInputs): RunPlan {
  const pull = context.payload.pull_request as PullRequestPayload | undefined;
  const action = String(context.payload.action ?? '');
  const selection = { clusterGroup: inputs.clusterGroup, cluster: inputs.cluster };

  if (context.eventName === 'workflow_dispatch') {
    const eventInputs = (context.payload.inputs ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof eventInputs[name] === 'string' ? (eventInputs[name] as string) : '');
    const eventMode = text('mode');
    const mode = inputs.mode !== 'auto' ? inputs.mode : eventMode === 'diff' ? 'diff' : 'apply';
    return {
      mode,
      sha: context.sha,
      clusterGroup: isAll(inputs.clusterGroup) ? text('cluster-group') || '*' : inputs.clusterGroup,
      cluster: isAll(inputs.cluster) ? text('cluster') || '*' : inputs.cluster,
      reason: `workflow_dispatch (${mode})`,
    };
  }
  if (inputs.mode !== 'auto') {
    return { mode: inputs.mode, pullRequest: pull?.number, sha: pull?.head?.sha ?? context.sha, ...selection, reason: `mode: ${inputs.mode}` };
  }
  if (context.eventName === 'pull_request' || context.eventName === 'pull_request_target') {
    if (['opened', 'synchronize', 'reopened'].includes(action)) {
      return { mode: 'diff', pullRequest: pull?.number, sha: pull?.head?.sha ?? context.sha, ...selection, reason: `pull request ${action}` };
    }
    if (action === 'closed' && pull?.merged === true) {
      return { mode: 'apply', pullRequest: pull.number, sha: pull.merge_commit_sha ?? context.sha, ...selection, reason: 'pull request merged' };
    }
    return { mode: 'skip', reason: `nothing to do for pull_request ${action || '(no action)'}${action === 'closed' ? ' without merge' : ''}` };
  }
  if (context.eventName === 'push') {
    const repository = context.payload.repository as { default_branch?: string } | undefined;
    const defaultBranch = repository?.default_branch;
    if (defaultBranch && context.ref === `refs/heads/${defaultBranch}`) {
      return { mode: 'apply', sha: context.sha, ...selection, reason: `push to ${defaultBranch}` };
    }
    return { mode: 'skip', reason: `push to ${context.ref} is not the default branch${defaultBranch ? ` (${defaultBranch})` : ''}` };
  }
  return { mode: 'skip', reason: `event ${context.eventName || '(none)'} has no default mode; set the "mode" input` };
}
