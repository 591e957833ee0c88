// What timoni-fleet does for the event of a run. In `auto` mode a pull request (opened,
// synchronize, reopened) is diffed; a push to the default branch and a merged pull request
// are applied; workflow_dispatch takes its `cluster-group`, `cluster` and `mode` inputs from
// the event, which the action's own inputs override. What would apply unreviewed code is
// refused with an InputError naming the input that allows it: an apply from a ref other than
// the default branch (a dispatch's or push's ref, a merged pull request's base) unless
// `apply-refs` lists it. `report` and `matrix` reach no cluster: a report merges the
// ChangeSet files of a fan-out's matrix jobs and publishes them for the event as a single
// job would (reportPlan), `matrix` only sets the `matrix` output.
// `drift` diffs the clusters for the drift issue (driftPlan; not on pull requests).
// `rollback` puts each instance back to a revision of its history (rollbackPlan): a
// workflow_dispatch's (its `mode` input `rollback`, or the action's), from the default branch
// (or `apply-refs`) as an apply, never on a pull request.
import type { RevisionTarget } from '../fleet/fleet-run.js';
import { runOptions, RunOptionError } from '../fleet/run-options.js';
import type { RunContext } from '../github/event.js';
import { InputError } from './runner.js';

/** The modes that decide from the event, or diff, or apply. */
export type FleetModeInput = 'auto' | 'diff' | 'apply';

export type ModeInput = FleetModeInput | 'report' | 'matrix' | 'drift' | 'status' | 'rollback';

export type RunPlan =
  | { mode: 'diff' | 'apply'; pullRequest?: number; sha: string; clusterGroup: string; cluster: string; reason: string }
  /** `mode: drift`: diff every selected cluster and keep the bundle's drift issue (drift.ts). */
  | { mode: 'drift'; sha: string; clusterGroup: string; cluster: string; reason: string }
  /** `mode: status`: read the state of every selected cluster x instance, nothing written (status-report.ts). */
  | { mode: 'status'; sha: string; clusterGroup: string; cluster: string; reason: string }
  /** `mode: rollback`: each instance put back to a revision of its history (../fleet/revision-rollback.ts). */
  | { mode: 'rollback'; sha: string; clusterGroup: string; cluster: string; reason: string; target: RevisionTarget }
  | { mode: 'skip'; reason: string };

export interface PlanInputs {
  mode: FleetModeInput;
  clusterGroup: string;
  cluster: string;
  /** Refs besides the default branch that may be applied (`apply-refs`: exact refs or globs with *). */
  applyRefs?: readonly string[];
  /** The pull_request_target workflow checks out trusted code (`trusted-checkout`). */
  trustedCheckout?: boolean;
  /** `mode: rollback`: the action's `instance` and `revision` inputs (a dispatch's inputs fill in those left empty). */
  rollback?: { instance: string; revision?: number | undefined };
}

const MODES: readonly FleetModeInput[] = ['auto', 'diff', 'apply'];
/** The modes a workflow_dispatch's own `mode` input may ask for. */
const DISPATCH_MODES: readonly string[] = [...MODES, 'rollback'];

/** A ref matches an `apply-refs` entry exactly, or as a glob where * matches any text. */
function refAllowed(ref: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    const full = pattern.startsWith('refs/') ? pattern : `refs/heads/${pattern}`;
    const regex = new RegExp(
      `^${full
        .split('*')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return regex.test(ref);
  });
}

/**
 * Applying is only for the default branch (what was reviewed and merged), or for refs the
 * workflow allows with `apply-refs`: a dispatch started on an unmerged branch must not
 * roll it out, nor a pull request merged into another branch. `ref` is the ref applied
 * from: the run's, or a merged pull request's base.
 */
function checkApplyRef(context: RunContext, inputs: PlanInputs, how: string, ref = context.ref): void {
  const repository = context.payload.repository as { default_branch?: string } | undefined;
  const defaultBranch = repository?.default_branch;
  if (defaultBranch && ref === `refs/heads/${defaultBranch}`) return;
  if (ref && refAllowed(ref, inputs.applyRefs ?? [])) return;
  const branch = defaultBranch
    ? `the default branch (${defaultBranch})`
    : 'the default branch (unknown: the event names no repository default_branch)';
  throw new InputError(
    'mode',
    `${how} applies only from ${branch}, not from ${ref || '(no ref)'}; list the refs that may be applied in the "apply-refs" input to allow it`,
  );
}

interface PullRequestPayload {
  number?: number;
  merged?: boolean;
  merge_commit_sha?: string | null;
  head?: { sha?: string };
  base?: { ref?: string };
}

/** A merged pull request applies what was merged into its base branch: the base must be one that may be applied. */
function checkMergedBase(context: RunContext, inputs: PlanInputs, pull: PullRequestPayload): void {
  const base = typeof pull.base?.ref === 'string' ? pull.base.ref : '';
  checkApplyRef(
    context,
    inputs,
    `a pull request merged into ${base ? JSON.stringify(base) : 'an unnamed base (the event has no pull_request.base.ref)'}`,
    base ? `refs/heads/${base}` : '',
  );
}

const isAll = (value: string) => value === '' || value === '*';

/** pull_request_target evaluates nothing unless the workflow says it checked out trusted code. */
export function refuseUntrustedTarget(context: RunContext, trustedCheckout: boolean | undefined): void {
  if (context.eventName === 'pull_request_target' && !trustedCheckout) {
    throw new InputError(
      'trusted-checkout',
      "pull_request_target runs with the repository's secrets and a write token, on code from a pull request that may come from a fork; timoni-fleet refuses to evaluate it unless the workflow checks out trusted code (the base branch, not the pull request head) and says so with trusted-checkout: true. Use the pull_request event for diffs of pull requests",
    );
  }
}

/**
 * The plan a report publishes under: the mode of the merged ChangeSets, and the pull request
 * and commit of the event as planRun gives them to a single job (a merged pull request's
 * rollout reports on its merge commit). Nothing is refused but pull_request_target without
 * trusted-checkout: a report applies nothing.
 */
export function reportPlan(
  context: RunContext,
  mode: 'diff' | 'apply',
  selection: { clusterGroup: string; cluster: string },
  trustedCheckout?: boolean,
): Extract<RunPlan, { mode: 'diff' | 'apply' }> {
  refuseUntrustedTarget(context, trustedCheckout);
  const pull = context.payload.pull_request as PullRequestPayload | undefined;
  const onPullRequest = context.eventName === 'pull_request' || context.eventName === 'pull_request_target';
  const merged = String(context.payload.action ?? '') === 'closed' && pull?.merged === true;
  const sha = mode === 'apply' && merged ? (pull?.merge_commit_sha ?? context.sha) : (pull?.head?.sha ?? context.sha);
  return {
    mode,
    ...(onPullRequest && pull?.number !== undefined ? { pullRequest: pull.number } : {}),
    sha,
    ...selection,
    reason: `mode: report (${mode})`,
  };
}

export function planRun(context: RunContext, inputs: PlanInputs): RunPlan {
  const pull = context.payload.pull_request as PullRequestPayload | undefined;
  const action = String(context.payload.action ?? '');
  const selection = { clusterGroup: inputs.clusterGroup, cluster: inputs.cluster };

  refuseUntrustedTarget(context, inputs.trustedCheckout);
  if (context.eventName === 'workflow_dispatch') {
    const eventInputs = (context.payload.inputs ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof eventInputs[name] === 'string' ? (eventInputs[name] as string) : '');
    const eventMode = text('mode');
    if (eventMode !== '' && !DISPATCH_MODES.includes(eventMode)) {
      throw new InputError(
        'mode',
        `the workflow_dispatch input "mode" must be one of ${DISPATCH_MODES.join(', ')}, not ${JSON.stringify(eventMode)}`,
      );
    }
    if (inputs.mode === 'auto' && eventMode === 'rollback') return rollbackPlan(context, inputs);
    const mode = inputs.mode !== 'auto' ? inputs.mode : eventMode === 'diff' ? 'diff' : 'apply';
    if (mode === 'apply') checkApplyRef(context, inputs, 'workflow_dispatch');
    return {
      mode,
      sha: context.sha,
      clusterGroup: isAll(inputs.clusterGroup) ? text('cluster-group') || '*' : inputs.clusterGroup,
      cluster: isAll(inputs.cluster) ? text('cluster') || '*' : inputs.cluster,
      reason: `workflow_dispatch (${mode})`,
    };
  }
  if (inputs.mode === 'apply') {
    if (context.eventName === 'pull_request' || context.eventName === 'pull_request_target') {
      if (!(action === 'closed' && pull?.merged === true)) {
        throw new InputError(
          'mode',
          `"apply" on a ${context.eventName} event would apply the pull request's unmerged code; apply on push to the default branch, or on the merged pull request (action closed, merged)`,
        );
      }
      checkMergedBase(context, inputs, pull);
    } else {
      checkApplyRef(context, inputs, `mode: apply on ${context.eventName || 'this event'}`);
    }
  }
  if (inputs.mode !== 'auto') {
    return {
      mode: inputs.mode,
      pullRequest: pull?.number,
      sha: pull?.head?.sha ?? context.sha,
      ...selection,
      reason: `mode: ${inputs.mode}`,
    };
  }
  if (context.eventName === 'pull_request' || context.eventName === 'pull_request_target') {
    if (['opened', 'synchronize', 'reopened'].includes(action)) {
      return {
        mode: 'diff',
        pullRequest: pull?.number,
        sha: pull?.head?.sha ?? context.sha,
        ...selection,
        reason: `pull request ${action}`,
      };
    }
    if (action === 'closed' && pull?.merged === true) {
      checkMergedBase(context, inputs, pull);
      return {
        mode: 'apply',
        pullRequest: pull.number,
        sha: pull.merge_commit_sha ?? context.sha,
        ...selection,
        reason: 'pull request merged',
      };
    }
    return {
      mode: 'skip',
      reason: `nothing to do for pull_request ${action || '(no action)'}${action === 'closed' ? ' without merge' : ''}`,
    };
  }
  if (context.eventName === 'push') {
    const repository = context.payload.repository as { default_branch?: string } | undefined;
    const defaultBranch = repository?.default_branch;
    if (defaultBranch && context.ref === `refs/heads/${defaultBranch}`) {
      return { mode: 'apply', sha: context.sha, ...selection, reason: `push to ${defaultBranch}` };
    }
    return {
      mode: 'skip',
      reason: `push to ${context.ref} is not the default branch${defaultBranch ? ` (${defaultBranch})` : ''}`,
    };
  }
  return { mode: 'skip', reason: `event ${context.eventName || '(none)'} has no default mode; set the "mode" input` };
}

/**
 * `mode: drift` (a schedule's, or a dispatch's): the checked-out bundle against the live
 * clusters. Refused on pull requests, where the bundle is the pull request's code: what
 * differs there is the pull request's change, which `diff` shows, not drift. A dispatch's
 * `cluster-group` and `cluster` inputs select as for the other modes.
 */
export function driftPlan(
  context: RunContext,
  inputs: Pick<PlanInputs, 'clusterGroup' | 'cluster' | 'trustedCheckout'>,
): Extract<RunPlan, { mode: 'drift' }> {
  refuseUntrustedTarget(context, inputs.trustedCheckout);
  if (context.eventName === 'pull_request' || context.eventName === 'pull_request_target') {
    throw new InputError(
      'mode',
      `"drift" compares the merged bundle with the clusters; on a ${context.eventName} event the bundle is the pull request's code, whose changes mode "diff" shows. Run drift on schedule or workflow_dispatch`,
    );
  }
  const eventInputs =
    context.eventName === 'workflow_dispatch' ? ((context.payload.inputs ?? {}) as Record<string, unknown>) : {};
  const text = (name: string) => (typeof eventInputs[name] === 'string' ? (eventInputs[name] as string) : '');
  return {
    mode: 'drift',
    sha: context.sha,
    clusterGroup: isAll(inputs.clusterGroup) ? text('cluster-group') || '*' : inputs.clusterGroup,
    cluster: isAll(inputs.cluster) ? text('cluster') || '*' : inputs.cluster,
    reason: `drift check on ${context.eventName || 'this event'}`,
  };
}

/**
 * `mode: status` on any event: it writes nothing to the clusters. A dispatch's
 * `cluster-group` and `cluster` inputs select as for the other modes.
 */
export function statusPlan(
  context: RunContext,
  inputs: Pick<PlanInputs, 'clusterGroup' | 'cluster' | 'trustedCheckout'>,
): Extract<RunPlan, { mode: 'status' }> {
  refuseUntrustedTarget(context, inputs.trustedCheckout);
  const eventInputs =
    context.eventName === 'workflow_dispatch' ? ((context.payload.inputs ?? {}) as Record<string, unknown>) : {};
  const text = (name: string) => (typeof eventInputs[name] === 'string' ? (eventInputs[name] as string) : '');
  const pull = context.payload.pull_request as PullRequestPayload | undefined;
  return {
    mode: 'status',
    sha: pull?.head?.sha ?? context.sha,
    clusterGroup: isAll(inputs.clusterGroup) ? text('cluster-group') || '*' : inputs.clusterGroup,
    cluster: isAll(inputs.cluster) ? text('cluster') || '*' : inputs.cluster,
    reason: `status on ${context.eventName || 'this event'}`,
  };
}

/** A dispatch's own input read with the contract's check (`the workflow_dispatch input "revision" must be ...`). */
function dispatchValue<T>(name: string, text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof RunOptionError)) throw error;
    throw new InputError(name, `the workflow_dispatch input "${name}" ${error.reason}`);
  }
}

/**
 * `mode: rollback`: each instance of the selected clusters put back to a revision of its
 * history, in runtime order (../fleet/revision-rollback.ts). It writes to the clusters as an
 * apply does, from the bundle and runtime of the checkout: refused on pull requests, and from
 * a ref other than the default branch unless `apply-refs` lists it. A dispatch's
 * `cluster-group`, `cluster`, `instance` and `revision` inputs fill in the action's inputs
 * left empty (`revision` empty: each instance's previous revision).
 */
export function rollbackPlan(context: RunContext, inputs: PlanInputs): Extract<RunPlan, { mode: 'rollback' }> {
  refuseUntrustedTarget(context, inputs.trustedCheckout);
  if (context.eventName === 'pull_request' || context.eventName === 'pull_request_target') {
    throw new InputError(
      'mode',
      `"rollback" writes to the clusters; on a ${context.eventName} event the bundle is the pull request's unmerged code. Run it on workflow_dispatch`,
    );
  }
  checkApplyRef(context, inputs, `mode: rollback on ${context.eventName || 'this event'}`);
  const eventInputs =
    context.eventName === 'workflow_dispatch' ? ((context.payload.inputs ?? {}) as Record<string, unknown>) : {};
  const text = (name: string) => (typeof eventInputs[name] === 'string' ? (eventInputs[name] as string).trim() : '');
  const given = inputs.rollback ?? { instance: '' };
  const instance =
    given.instance ||
    (text('instance') ? dispatchValue('instance', text('instance'), runOptions.rollbackInstance.parse) : '');
  const revision =
    given.revision ??
    (text('revision') ? dispatchValue('revision', text('revision'), runOptions.revision.parse) : undefined);
  const target: RevisionTarget = { instance, ...(revision !== undefined ? { revision } : {}) };
  return {
    mode: 'rollback',
    sha: context.sha,
    clusterGroup: isAll(inputs.clusterGroup) ? text('cluster-group') || '*' : inputs.clusterGroup,
    cluster: isAll(inputs.cluster) ? text('cluster') || '*' : inputs.cluster,
    reason: `rollback on ${context.eventName || 'this event'} (${instance ? `instance ${instance}` : 'every instance'}, ${revision !== undefined ? `revision ${revision}` : 'previous revision'})`,
    target,
  };
}
