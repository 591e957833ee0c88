import { describe, expect, it } from 'vitest';
import { githubContext } from '../runner/github-context.js';
import { fakeSha } from './payload-objects.js';
import { pullRequestEvent } from './pull-request.js';
import { pushEvent } from './push.js';
import { workflowDispatchEvent } from './workflow-dispatch.js';

const head = fakeSha('head');
const merge = fakeSha('merge');
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => v as Obj;

describe('pull_request payloads', () => {
  it('describes an opened pull request from the same repository', () => {
    const event = pullRequestEvent({
      action: 'opened',
      repository: 'acme/fleet',
      number: 4,
      headSha: head,
      headRef: 'bump-podinfo',
      baseRef: 'main',
    });
    expect(event.name).toBe('pull_request');
    const pr = obj(event.payload.pull_request);
    expect(event.payload).toMatchObject({
      action: 'opened',
      number: 4,
      repository: { full_name: 'acme/fleet', default_branch: 'main' },
    });
    expect(pr).toMatchObject({
      number: 4,
      state: 'open',
      merged: false,
      merge_commit_sha: null,
      head: { sha: head, ref: 'bump-podinfo', label: 'acme:bump-podinfo' },
      base: { ref: 'main' },
    });
    expect(obj(obj(pr.head).repo).full_name).toBe(obj(obj(pr.base).repo).full_name);
    expect(event.payload.before).toBeUndefined();
  });

  it('tells a fork by head.repo.full_name', () => {
    const event = pullRequestEvent({
      action: 'reopened',
      repository: 'acme/fleet',
      number: 5,
      headSha: head,
      headRepository: 'mallory/fleet',
    });
    const pr = obj(event.payload.pull_request);
    expect(obj(obj(pr.head).repo)).toMatchObject({ full_name: 'mallory/fleet', fork: true });
    expect(obj(obj(pr.base).repo)).toMatchObject({ full_name: 'acme/fleet', fork: false });
    expect(obj(event.payload.sender).login).toBe('mallory');
  });

  it('carries before and after on synchronize', () => {
    const before = fakeSha('old head');
    const event = pullRequestEvent({
      action: 'synchronize',
      repository: 'acme/fleet',
      number: 6,
      headSha: head,
      before,
    });
    expect(event.payload).toMatchObject({ before, after: head });
  });

  it('describes a merged pull request, and refuses a merge without its commit', () => {
    const event = pullRequestEvent({
      action: 'closed',
      repository: 'acme/fleet',
      number: 7,
      headSha: head,
      merged: true,
      mergeCommitSha: merge,
    });
    expect(obj(event.payload.pull_request)).toMatchObject({
      state: 'closed',
      merged: true,
      merge_commit_sha: merge,
      merged_at: expect.any(String),
    });
    expect(() =>
      pullRequestEvent({ action: 'closed', repository: 'acme/fleet', number: 7, headSha: head, merged: true }),
    ).toThrow(/needs mergeCommitSha/);
    expect(() =>
      pullRequestEvent({
        action: 'opened',
        repository: 'acme/fleet',
        number: 7,
        headSha: head,
        merged: true,
        mergeCommitSha: merge,
      }),
    ).toThrow(/only be merged on action 'closed'/);
    expect(() => pullRequestEvent({ action: 'opened', repository: 'acme/fleet', number: 7, headSha: 'abc' })).toThrow(
      /not a 40-hex SHA/,
    );
  });

  it('gives the runner context GitHub derives from it', () => {
    const event = pullRequestEvent({
      action: 'opened',
      repository: 'acme/fleet',
      number: 8,
      headSha: head,
      headRef: 'x',
      mergeCommitSha: merge,
    });
    const ctx = githubContext(event, { apiUrl: 'http://api', workspace: '/w', token: 't', overrides: {} });
    expect(ctx).toMatchObject({
      ref: 'refs/pull/8/merge',
      ref_name: '8/merge',
      sha: merge,
      head_ref: 'x',
      base_ref: 'main',
      repository: 'acme/fleet',
      repository_owner: 'acme',
    });
  });
});

describe('push payloads', () => {
  it('describes a branch push with the default branch', () => {
    const before = fakeSha('before');
    const event = pushEvent({
      repository: { owner: 'acme', name: 'fleet', defaultBranch: 'trunk' },
      ref: 'refs/heads/trunk',
      before,
      after: merge,
    });
    expect(event.name).toBe('push');
    expect(event.payload).toMatchObject({
      ref: 'refs/heads/trunk',
      before,
      after: merge,
      created: false,
      deleted: false,
      repository: { default_branch: 'trunk' },
      head_commit: { id: merge },
    });
    const ctx = githubContext(event, { apiUrl: 'http://api', workspace: '/w', token: 't', overrides: {} });
    expect(ctx).toMatchObject({
      ref: 'refs/heads/trunk',
      ref_name: 'trunk',
      ref_type: 'branch',
      sha: merge,
      head_ref: '',
    });
    expect(() => pushEvent({ repository: 'acme/fleet', ref: 'main', before, after: merge })).toThrow(/full ref/);
  });
});

describe('workflow_dispatch payloads', () => {
  it('carries the inputs as strings and the ref', () => {
    const event = workflowDispatchEvent({
      repository: 'acme/fleet',
      inputs: { 'cluster-group': 'staging', cluster: 'preview-eu-1', mode: 'apply' },
    });
    expect(event.payload).toMatchObject({
      inputs: { 'cluster-group': 'staging', cluster: 'preview-eu-1', mode: 'apply' },
      ref: 'refs/heads/main',
      workflow: '.github/workflows/fleet.yml',
    });
    const ctx = githubContext(event, { apiUrl: 'http://api', workspace: '/w', token: 't', overrides: { sha: merge } });
    expect(ctx).toMatchObject({ event_name: 'workflow_dispatch', ref: 'refs/heads/main', sha: merge });
    expect(githubContext(event, { apiUrl: 'a', workspace: '/w', token: 't', overrides: {} }).sha).toMatch(
      /^[0-9a-f]{40}$/,
    );
  });
});
