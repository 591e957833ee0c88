import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  driftPlan,
  type PlanInputs,
  planRun,
  reportPlan,
  rollbackPlan,
  statusPlan,
} from '../../src/action/event-plan.js';
import { InputError } from '../../src/action/runner.js';
import { readRunContext } from '../../src/github/event.js';

function contextFor(eventName: string, payload: Record<string, unknown>, ref = 'refs/heads/main') {
  const dir = mkdtempSync(join(tmpdir(), 'event-'));
  const path = join(dir, 'event.json');
  writeFileSync(path, JSON.stringify(payload));
  return readRunContext({
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: path,
    GITHUB_REPOSITORY: 'acme/fleet',
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_REF: ref,
    GITHUB_RUN_ID: '42',
  });
}

const auto: PlanInputs = { mode: 'auto', clusterGroup: '*', cluster: '*' };

/** A pull_request closed + merged event into the given base branch, in a repository whose default branch is main. */
function mergedInto(base: string, ref = 'refs/pull/5/merge') {
  return contextFor(
    'pull_request',
    {
      action: 'closed',
      repository: { default_branch: 'main' },
      pull_request: {
        number: 5,
        merged: true,
        merge_commit_sha: 'm'.repeat(40),
        head: { sha: 'a'.repeat(40) },
        base: { ref: base },
      },
    },
    ref,
  );
}

describe('planRun', () => {
  it.each(['opened', 'synchronize', 'reopened'])('diffs a pull request %s at its head commit', (action) => {
    const plan = planRun(
      contextFor('pull_request', { action, pull_request: { number: 5, head: { sha: 'a'.repeat(40) } } }),
      auto,
    );
    expect(plan).toMatchObject({ mode: 'diff', pullRequest: 5, sha: 'a'.repeat(40) });
  });

  it('applies a merged pull request and skips a closed one', () => {
    expect(planRun(mergedInto('main'), auto)).toMatchObject({ mode: 'apply', pullRequest: 5, sha: 'm'.repeat(40) });
    expect(
      planRun(contextFor('pull_request', { action: 'closed', pull_request: { number: 5, merged: false } }), auto),
    ).toMatchObject({ mode: 'skip' });
  });

  it('refuses a pull request merged into a branch other than the default one, unless apply-refs allows its base', () => {
    for (const mode of ['auto', 'apply'] as const) {
      expect(() => planRun(mergedInto('release-x'), { ...auto, mode }), mode).toThrow(InputError);
      expect(() => planRun(mergedInto('release-x'), { ...auto, mode }), mode).toThrow(
        'input "mode": a pull request merged into "release-x" applies only from the default branch (main), not from refs/heads/release-x; list the refs that may be applied in the "apply-refs" input to allow it',
      );
      expect(planRun(mergedInto('release-x'), { ...auto, mode, applyRefs: ['release-*'] }), mode).toMatchObject({
        mode: 'apply',
        pullRequest: 5,
      });
      expect(
        planRun(mergedInto('release-x'), { ...auto, mode, applyRefs: ['refs/heads/release-x'] }),
        mode,
      ).toMatchObject({ mode: 'apply' });
      expect(() => planRun(mergedInto('release-x'), { ...auto, mode, applyRefs: ['main', 'hotfix-*'] }), mode).toThrow(
        InputError,
      );
    }
    // The run's own ref (refs/pull/5/merge) is not what is checked: the base is.
    expect(() => planRun(mergedInto('release-x', 'refs/heads/main'), auto)).toThrow(/merged into "release-x"/);
    expect(planRun(mergedInto('main', 'refs/pull/5/merge'), auto)).toMatchObject({ mode: 'apply' });
    // A base that cannot be told, or a default branch the event does not name, fails closed.
    const nameless = contextFor('pull_request', {
      action: 'closed',
      repository: { default_branch: 'main' },
      pull_request: { number: 5, merged: true, merge_commit_sha: 'm'.repeat(40) },
    });
    expect(() => planRun(nameless, auto)).toThrow(/merged into an unnamed base .* not from \(no ref\)/);
    const noDefault = contextFor('pull_request', {
      action: 'closed',
      pull_request: { number: 5, merged: true, merge_commit_sha: 'm'.repeat(40), base: { ref: 'main' } },
    });
    expect(() => planRun(noDefault, auto)).toThrow(/the default branch \(unknown/);
    // pull_request_target with a trusted checkout: the same rule.
    const target = contextFor('pull_request_target', {
      action: 'closed',
      repository: { default_branch: 'main' },
      pull_request: { number: 5, merged: true, merge_commit_sha: 'm'.repeat(40), base: { ref: 'release-x' } },
    });
    expect(() => planRun(target, { ...auto, trustedCheckout: true })).toThrow(/merged into "release-x"/);
    // A closed pull request that was not merged still does nothing, whatever its base.
    const closed = contextFor('pull_request', {
      action: 'closed',
      repository: { default_branch: 'main' },
      pull_request: { number: 5, merged: false, base: { ref: 'release-x' } },
    });
    expect(planRun(closed, auto)).toMatchObject({ mode: 'skip' });
  });

  it('applies a push to the default branch only', () => {
    const payload = { ref: 'refs/heads/main', repository: { default_branch: 'main' } };
    expect(planRun(contextFor('push', payload), auto)).toMatchObject({ mode: 'apply', sha: 'f'.repeat(40) });
    expect(planRun(contextFor('push', payload, 'refs/heads/feature'), auto)).toMatchObject({
      mode: 'skip',
      reason: expect.stringContaining('not the default branch'),
    });
  });

  it('takes workflow_dispatch inputs, which the action inputs override', () => {
    const repository = { default_branch: 'main' };
    const context = contextFor('workflow_dispatch', {
      repository,
      inputs: { 'cluster-group': 'production', mode: 'diff' },
    });
    expect(planRun(context, auto)).toMatchObject({ mode: 'diff', clusterGroup: 'production', cluster: '*' });
    expect(planRun(context, { mode: 'apply', clusterGroup: 'staging', cluster: '*' })).toMatchObject({
      mode: 'apply',
      clusterGroup: 'staging',
    });
    expect(
      planRun(contextFor('workflow_dispatch', { repository, inputs: { 'cluster-group': 'production' } }), auto),
    ).toMatchObject({ mode: 'apply' });
  });

  it('refuses a dispatch mode it does not know, and a dispatch apply from another branch unless apply-refs allows it', () => {
    const repository = { default_branch: 'main' };
    expect(() => planRun(contextFor('workflow_dispatch', { repository, inputs: { mode: 'yolo' } }), auto)).toThrow(
      /must be one of auto, diff, apply, rollback, not "yolo"/,
    );
    const feature = contextFor('workflow_dispatch', { repository, inputs: {} }, 'refs/heads/feature-x');
    expect(() => planRun(feature, auto)).toThrow(
      /applies only from the default branch \(main\), not from refs\/heads\/feature-x; .*apply-refs/,
    );
    expect(planRun(feature, { ...auto, applyRefs: ['feature-*'] })).toMatchObject({ mode: 'apply' });
    expect(planRun(feature, { ...auto, applyRefs: ['refs/heads/feature-x'] })).toMatchObject({ mode: 'apply' });
    expect(() => planRun(feature, { ...auto, applyRefs: ['release-*'] })).toThrow(InputError);
    expect(
      planRun(contextFor('workflow_dispatch', { repository, inputs: { mode: 'diff' } }, 'refs/heads/feature-x'), auto),
    ).toMatchObject({ mode: 'diff' });
  });

  it('fails closed: apply on an unmerged pull request, and pull_request_target without trusted-checkout', () => {
    const opened = contextFor('pull_request', {
      action: 'opened',
      pull_request: { number: 5, head: { sha: 'a'.repeat(40) } },
    });
    expect(() => planRun(opened, { ...auto, mode: 'apply' })).toThrow(/would apply the pull request's unmerged code/);
    expect(planRun(mergedInto('main'), { ...auto, mode: 'apply' })).toMatchObject({ mode: 'apply' });
    const target = contextFor('pull_request_target', {
      action: 'opened',
      pull_request: { number: 5, head: { sha: 'a'.repeat(40) } },
    });
    expect(() => planRun(target, auto)).toThrow(/pull_request_target .* trusted-checkout: true/);
    expect(planRun(target, { ...auto, trustedCheckout: true })).toMatchObject({ mode: 'diff' });
  });

  it('tells why it does nothing for other events', () => {
    expect(planRun(contextFor('schedule', {}), auto)).toMatchObject({
      mode: 'skip',
      reason: expect.stringContaining('set the "mode" input'),
    });
  });
});

describe('reportPlan', () => {
  const all = { clusterGroup: '*', cluster: '*' };

  it('reports a pull request diff on the pull request and its head commit, as a single job would', () => {
    const context = contextFor('pull_request', {
      action: 'opened',
      pull_request: { number: 5, head: { sha: 'a'.repeat(40) } },
    });
    expect(reportPlan(context, 'diff', all)).toEqual({ ...planRun(context, auto), reason: 'mode: report (diff)' });
  });

  it('reports a merged pull request rollout on its merge commit, and a push without pull request', () => {
    const merged = contextFor('pull_request', {
      action: 'closed',
      pull_request: { number: 5, merged: true, merge_commit_sha: 'm'.repeat(40), head: { sha: 'a'.repeat(40) } },
    });
    expect(reportPlan(merged, 'apply', all)).toMatchObject({ mode: 'apply', pullRequest: 5, sha: 'm'.repeat(40) });
    const push = contextFor('push', { ref: 'refs/heads/main', repository: { default_branch: 'main' } });
    expect(reportPlan(push, 'apply', all)).toEqual({
      mode: 'apply',
      sha: 'f'.repeat(40),
      ...all,
      reason: 'mode: report (apply)',
    });
  });

  it('refuses pull_request_target without trusted-checkout, as every mode does', () => {
    const context = contextFor('pull_request_target', { action: 'opened', pull_request: { number: 5 } });
    expect(() => reportPlan(context, 'diff', all)).toThrow(InputError);
    expect(reportPlan(context, 'diff', all, true)).toMatchObject({ pullRequest: 5 });
  });
});

describe('statusPlan', () => {
  it("reads on any event, with a dispatch's cluster-group and cluster, and refuses an untrusted pull_request_target", () => {
    const dispatch = statusPlan(
      contextFor('workflow_dispatch', { inputs: { 'cluster-group': 'production', cluster: '' } }, 'refs/heads/feature'),
      { clusterGroup: '*', cluster: '*' },
    );
    expect(dispatch).toMatchObject({ mode: 'status', clusterGroup: 'production', cluster: '*' });
    const schedule = statusPlan(contextFor('schedule', {}), { clusterGroup: 'staging', cluster: '*' });
    expect(schedule).toMatchObject({ mode: 'status', clusterGroup: 'staging', reason: 'status on schedule' });
    expect(() =>
      statusPlan(contextFor('pull_request_target', { action: 'opened', pull_request: { number: 1 } }), {
        clusterGroup: '*',
        cluster: '*',
      }),
    ).toThrow(InputError);
  });
});

describe('drift plan', () => {
  it("diffs on schedule and dispatch (taking the dispatch's cluster inputs), never on a pull request", () => {
    expect(driftPlan(contextFor('schedule', {}), { clusterGroup: '*', cluster: '*' })).toMatchObject({
      mode: 'drift',
      clusterGroup: '*',
      cluster: '*',
      reason: 'drift check on schedule',
    });
    const dispatch = driftPlan(contextFor('workflow_dispatch', { inputs: { cluster: 'production-eu' } }), {
      clusterGroup: '*',
      cluster: '*',
    });
    expect(dispatch).toMatchObject({ mode: 'drift', cluster: 'production-eu' });
    expect(() =>
      driftPlan(contextFor('pull_request', { action: 'opened', pull_request: { number: 1 } }), {
        clusterGroup: '*',
        cluster: '*',
      }),
    ).toThrow(/"drift" compares the merged bundle/);
  });
});

describe('rollback plan', () => {
  const repository = { default_branch: 'main' };

  it("takes a dispatch's mode rollback under auto, with its instance, revision and cluster inputs", () => {
    const context = contextFor('workflow_dispatch', {
      repository,
      inputs: { mode: 'rollback', 'cluster-group': 'staging', instance: 'frontend', revision: '2' },
    });
    expect(planRun(context, auto)).toMatchObject({
      mode: 'rollback',
      clusterGroup: 'staging',
      cluster: '*',
      target: { instance: 'frontend', revision: 2 },
    });
    // Empty inputs: every instance, each one's previous revision.
    const bare = contextFor('workflow_dispatch', { repository, inputs: { mode: 'rollback' } });
    expect(planRun(bare, auto)).toMatchObject({ mode: 'rollback', target: { instance: '' } });
    expect((planRun(bare, auto) as { target: object }).target).not.toHaveProperty('revision');
    // The action's own inputs win over the dispatch's.
    expect(rollbackPlan(context, { ...auto, rollback: { instance: 'backend', revision: 5 } })).toMatchObject({
      target: { instance: 'backend', revision: 5 },
    });
  });

  it("checks a dispatch's revision and instance as the inputs are checked", () => {
    const withInputs = (inputs: Record<string, string>) =>
      contextFor('workflow_dispatch', { repository, inputs: { mode: 'rollback', ...inputs } });
    expect(() => planRun(withInputs({ revision: 'latest' }), auto)).toThrow(
      /the workflow_dispatch input "revision" must be a revision number .*not "latest"/,
    );
    expect(() => planRun(withInputs({ revision: '0' }), auto)).toThrow(/must be a revision number/);
    expect(() => planRun(withInputs({ instance: 'Front End' }), auto)).toThrow(
      /the workflow_dispatch input "instance" must be an instance name/,
    );
  });

  it('refuses pull requests, and a ref other than the default branch unless apply-refs allows it', () => {
    const pull = contextFor('pull_request', {
      action: 'synchronize',
      repository,
      pull_request: { number: 3, head: { sha: 'a'.repeat(40) } },
    });
    expect(() => rollbackPlan(pull, auto)).toThrow(/"rollback" writes to the clusters; on a pull_request event/);
    const feature = contextFor(
      'workflow_dispatch',
      { repository, inputs: { mode: 'rollback' } },
      'refs/heads/feature-x',
    );
    expect(() => planRun(feature, auto)).toThrow(
      /mode: rollback on workflow_dispatch applies only from the default branch/,
    );
    expect(planRun(feature, { ...auto, applyRefs: ['feature-*'] })).toMatchObject({ mode: 'rollback' });
  });
});
