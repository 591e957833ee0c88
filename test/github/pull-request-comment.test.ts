// The product's comment upsert against the GitHub stand-in: one marked comment per bundle,
// found across pages and updated in place; fork tokens reported, not fatal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubClient } from '../../src/github/rest-client.js';
import { COMMENT_BODY_LIMIT, pullRequestForCommit, upsertMarkedComment } from '../../src/github/pull-request-comment.js';
import { startGitHubStandIn, type GitHubStandIn } from './standin/server.js';

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn();
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 7, headSha: 'a'.repeat(40) });
  github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 8, headSha: 'b'.repeat(40), merged: true, mergeCommitSha: 'c'.repeat(40) });
  for (let i = 0; i < 130; i += 1) github.state.addComment({ owner: 'acme', repo: 'fleet', issueNumber: 7, body: `chatter ${i}` });
});
afterAll(async () => {
  await github.stop();
});

const target = { owner: 'acme', repo: 'fleet', issueNumber: 7 };
const marker = '<!-- timoni-fleet:bundle=apps -->';

describe('upsertMarkedComment', () => {
  it('creates the comment once, then finds it past the first page and updates it', async () => {
    const client = new GitHubClient({ apiUrl: github.url, token: github.token });
    const first = await upsertMarkedComment(client, target, marker, `${marker}\nfirst`);
    expect(first.kind).toBe('created');
    const second = await upsertMarkedComment(client, target, marker, `${marker}\nsecond`);
    expect(second).toMatchObject({ kind: 'updated', id: first.kind === 'created' ? first.id : -1 });
    const listed = github.state.requests.filter((r) => r.method === 'GET' && r.path.includes('/issues/7/comments'));
    expect(listed.some((r) => r.path.includes('page=2'))).toBe(true);
    const created = github.state.requests.filter((r) => r.method === 'POST');
    expect(created).toHaveLength(1);
  });

  it('keeps one comment per bundle', async () => {
    const client = new GitHubClient({ apiUrl: github.url, token: github.token });
    const other = await upsertMarkedComment(client, target, '<!-- timoni-fleet:bundle=infra -->', '<!-- timoni-fleet:bundle=infra -->\ninfra');
    expect(other.kind).toBe('created');
  });

  it('reports a read-only token instead of failing', async () => {
    const client = new GitHubClient({ apiUrl: github.url, token: github.readOnlyToken });
    const outcome = await upsertMarkedComment(client, target, '<!-- timoni-fleet:bundle=fork -->', '<!-- timoni-fleet:bundle=fork -->\nx');
    expect(outcome.kind).toBe('not-permitted');
    expect(outcome.kind === 'not-permitted' && outcome.reason).toMatch(/403: Resource not accessible by integration/);
  });

  it('refuses a body over the limit before sending it', async () => {
    const client = new GitHubClient({ apiUrl: github.url, token: github.token });
    const before = github.state.requests.length;
    await expect(upsertMarkedComment(client, target, marker, marker + 'x'.repeat(COMMENT_BODY_LIMIT))).rejects.toThrow(/at most 65536/);
    expect(github.state.requests.length).toBe(before);
  });

  it('fails with GitHub\'s message on a bad token', async () => {
    const client = new GitHubClient({ apiUrl: github.url, token: 'ghs_not_a_real_token' });
    await expect(upsertMarkedComment(client, target, marker, `${marker}\nx`)).rejects.toThrow(/answered 401: Bad credentials/);
  });
});

describe('pullRequestForCommit', () => {
  it('finds the merged pull request of a merge commit', async () => {
    const client = new GitHubClient({ apiUrl: github.url, token: github.token });
    expect(await pullRequestForCommit(client, 'acme', 'fleet', 'c'.repeat(40))).toBe(8);
  });
});
