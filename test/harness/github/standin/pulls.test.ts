import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, list, object } from './client.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

const sha = (c: string): string => c.repeat(40);

describe('repositories and pull requests', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    gh.state.addRepository({ owner: 'acme', name: 'fleet', defaultBranch: 'trunk' });
    gh.state.addPullRequest({
      owner: 'acme',
      repo: 'fleet',
      number: 1,
      headSha: sha('1'),
      headRef: 'feat',
      merged: true,
      mergeCommitSha: sha('m'),
    });
    gh.state.addPullRequest({
      owner: 'acme',
      repo: 'fleet',
      number: 2,
      headSha: sha('2'),
      headRef: 'wip',
      headRepoFullName: 'forker/fleet',
    });
    gh.state.addCommit('acme', 'fleet', sha('d'));
  });
  afterAll(async () => gh.stop());

  it('serves the repository with its default branch, by name (any case) and by id', async () => {
    const repo = object(await call(gh.url, 'GET', '/repos/ACME/Fleet', { token: gh.token }));
    expect(repo).toMatchObject({
      name: 'fleet',
      full_name: 'acme/fleet',
      default_branch: 'trunk',
      private: false,
      owner: { login: 'acme' },
    });
    const byId = object(await call(gh.url, 'GET', `/repositories/${String(repo.id)}`, { token: gh.token }));
    expect(byId.full_name).toBe('acme/fleet');
  });

  it('serves a merged pull request', async () => {
    const pr = object(await call(gh.url, 'GET', '/repos/acme/fleet/pulls/1', { token: gh.token }));
    expect(pr).toMatchObject({
      number: 1,
      state: 'closed',
      merged: true,
      merge_commit_sha: sha('m'),
      head: { ref: 'feat', sha: sha('1'), repo: { full_name: 'acme/fleet' } },
      base: { ref: 'trunk', repo: { full_name: 'acme/fleet', default_branch: 'trunk' } },
    });
    expect(pr.merged_at).toEqual(expect.stringMatching(/Z$/));
  });

  it('tells a fork pull request by its head repository', async () => {
    const pr = object(await call(gh.url, 'GET', '/repos/acme/fleet/pulls/2', { token: gh.token }));
    expect(pr).toMatchObject({
      state: 'open',
      merged: false,
      merge_commit_sha: null,
      head: { label: 'forker:wip', repo: { full_name: 'forker/fleet', fork: true } },
    });
    expect((await call(gh.url, 'GET', '/repos/acme/fleet/pulls/9', { token: gh.token })).status).toBe(404);
  });

  it('lists the pull requests associated with a commit', async () => {
    const byMerge = list(await call(gh.url, 'GET', `/repos/acme/fleet/commits/${sha('m')}/pulls`, { token: gh.token }));
    expect(byMerge.map((p) => p.number)).toEqual([1]);
    const byOpenHead = list(
      await call(gh.url, 'GET', `/repos/acme/fleet/commits/${sha('2')}/pulls`, { token: gh.token }),
    );
    expect(byOpenHead.map((p) => p.number)).toEqual([2]);
    expect(list(await call(gh.url, 'GET', `/repos/acme/fleet/commits/${sha('d')}/pulls`, { token: gh.token }))).toEqual(
      [],
    );
    const unknown = await call(gh.url, 'GET', `/repos/acme/fleet/commits/${sha('f')}/pulls`, { token: gh.token });
    expect(unknown.status).toBe(422);
    expect(object(unknown).message).toBe(`No commit found for SHA: ${sha('f')}`);
  });

  it('refuses inconsistent seeds with a message naming the pull request', () => {
    expect(() =>
      gh.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 5, headSha: sha('5'), merged: true }),
    ).toThrow(/#5 needs mergeCommitSha/);
    expect(() => gh.state.addPullRequest({ owner: 'nobody', repo: 'x', number: 1, headSha: sha('5') })).toThrow(
      /nobody\/x is not seeded/,
    );
    expect(() => gh.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 1, headSha: sha('5') })).toThrow(
      /already seeded/,
    );
  });
});
