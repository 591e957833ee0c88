// The product's comment upsert against the GitHub stand-in: one marked comment per bundle,
// found across pages and updated in place; fork tokens reported, not fatal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApi } from '../../src/github/api.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import {
  GITHUB_ACTIONS_BOT as BOT,
  pullRequestForCommit,
  tokenIdentity,
  upsertMarkedComment,
} from '../../src/github/comments.js';
import { startGitHubStandIn, type GitHubStandIn } from '../harness/github/standin/server.js';

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn();
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 7, headSha: 'a'.repeat(40) });
  github.state.addPullRequest({
    owner: 'acme',
    repo: 'fleet',
    number: 8,
    headSha: 'b'.repeat(40),
    merged: true,
    mergeCommitSha: 'c'.repeat(40),
  });
  for (let i = 0; i < 130; i += 1)
    github.state.addComment({ owner: 'acme', repo: 'fleet', issueNumber: 7, body: `chatter ${i}` });
});
afterAll(async () => {
  await github.stop();
});

const target = { owner: 'acme', repo: 'fleet', issueNumber: 7 };
const marker = '<!-- timoni-fleet:bundle=apps -->';

describe('upsertMarkedComment', () => {
  it('creates the comment once, then finds it past the first page and updates it', async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: github.token });
    const first = await upsertMarkedComment(client, target, marker, `${marker}\nfirst`, BOT);
    expect(first.kind).toBe('created');
    const second = await upsertMarkedComment(client, target, marker, `${marker}\nsecond`, BOT);
    expect(second).toMatchObject({ kind: 'updated', id: first.kind === 'created' ? first.id : -1 });
    const listed = github.state.requests.filter((r) => r.method === 'GET' && r.path.includes('/issues/7/comments'));
    expect(listed.some((r) => r.path.includes('page=2'))).toBe(true);
    const created = github.state.requests.filter((r) => r.method === 'POST');
    expect(created).toHaveLength(1);
  });

  it('replaces, by its second line, the comment of a bundle whose name is unknown this time, keeping its marker', async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: github.token });
    const files = '<!-- timoni-fleet:files=shop.cue -->';
    const issue = { ...target, issueNumber: 8 };
    const shop = '<!-- timoni-fleet:bundle=shop -->';
    // Another author's comment with the same two lines is never taken.
    github.state.addComment({
      owner: 'acme',
      repo: 'fleet',
      issueNumber: 8,
      body: `${shop}\n${files}\nforged`,
      user: { login: 'someone', id: 4242, type: 'User' },
    });
    const diffed = await upsertMarkedComment(client, issue, shop, `${shop}\n${files}\nold diff`, BOT);
    expect(diffed.kind).toBe('created');
    const stopped = await upsertMarkedComment(client, issue, files, `${files}\ncould not be diffed`, BOT, files);
    expect(stopped).toMatchObject({ kind: 'updated', id: diffed.kind === 'created' ? diffed.id : -1 });
    const body = github.state.comment(diffed.kind === 'created' ? diffed.id : -1)?.body;
    expect(body).toBe(`${shop}\n${files}\ncould not be diffed`);
    // Without sameAs, a comment of the files marker is made beside it.
    const beside = await upsertMarkedComment(client, issue, files, `${files}\nbeside`, BOT);
    expect(beside.kind).toBe('created');
  });

  it('keeps one comment per bundle', async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: github.token });
    const other = await upsertMarkedComment(
      client,
      target,
      '<!-- timoni-fleet:bundle=infra -->',
      '<!-- timoni-fleet:bundle=infra -->\ninfra',
      BOT,
    );
    expect(other.kind).toBe('created');
  });

  it('reports a read-only token instead of failing', async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: github.readOnlyToken });
    const outcome = await upsertMarkedComment(
      client,
      target,
      '<!-- timoni-fleet:bundle=fork -->',
      '<!-- timoni-fleet:bundle=fork -->\nx',
      BOT,
    );
    expect(outcome.kind).toBe('not-permitted');
    expect(outcome.kind === 'not-permitted' && outcome.reason).toMatch(/403: Resource not accessible by integration/);
  });

  it('refuses a body over the limit before sending it', async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: github.token });
    const before = github.state.requests.length;
    await expect(upsertMarkedComment(client, target, marker, marker + 'x'.repeat(COMMENT_LIMIT), BOT)).rejects.toThrow(
      /at most 65536/,
    );
    expect(github.state.requests.length).toBe(before);
  });

  it("fails with GitHub's message on a bad token", async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: 'ghs_not_a_real_token' });
    await expect(upsertMarkedComment(client, target, marker, `${marker}\nx`, BOT)).rejects.toThrow(
      /answered 401: Bad credentials/,
    );
  });
});

describe('comment ownership', () => {
  const owned = { owner: 'acme', repo: 'fleet', issueNumber: 9 };
  const shop = '<!-- timoni-fleet:bundle=shop -->';
  it('the token of a workflow acts as github-actions[bot]; a personal token as its user', async () => {
    expect(await tokenIdentity(new GitHubApi({ apiUrl: github.url, token: github.token }))).toBe(BOT);
    const personal = await startGitHubStandIn({
      tokens: [{ token: 'ghp_maintainer', kind: 'user', account: { login: 'octo-maintainer', id: 77, type: 'User' } }],
    });
    try {
      expect(await tokenIdentity(new GitHubApi({ apiUrl: personal.url, token: 'ghp_maintainer' }))).toBe(
        'octo-maintainer',
      );
    } finally {
      await personal.stop();
    }
  });

  it('never takes a comment of another author, one that only quotes the marker, or another bundle whose diff holds it', async () => {
    github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 9, headSha: 'd'.repeat(40) });
    const maintainer = { login: 'octo-maintainer', id: 77, type: 'User' as const };
    const quoting = github.state.addComment({
      owner: 'acme',
      repo: 'fleet',
      issueNumber: 9,
      body: `why does ${shop} show up?`,
      user: maintainer,
    });
    const preSeeded = github.state.addComment({
      owner: 'acme',
      repo: 'fleet',
      issueNumber: 9,
      body: `${shop}\nfill me in`,
      user: { login: 'pr-author', id: 78, type: 'User' },
    });
    const client = new GitHubApi({ apiUrl: github.url, token: github.token });
    const infra = await upsertMarkedComment(
      client,
      owned,
      '<!-- timoni-fleet:bundle=infra -->',
      `<!-- timoni-fleet:bundle=infra -->\n+ note: ${shop}`,
      BOT,
    );
    expect(infra.kind).toBe('created');
    const outcome = await upsertMarkedComment(client, owned, shop, `${shop}\nthe diff`, BOT);
    expect(outcome.kind).toBe('created');
    expect(github.state.comment(quoting.id)?.body).toBe(`why does ${shop} show up?`);
    expect(github.state.comment(preSeeded.id)?.body).toBe(`${shop}\nfill me in`);
    expect(github.state.comment(infra.kind === 'created' ? infra.id : -1)?.body).toContain('bundle=infra');
    const again = await upsertMarkedComment(client, owned, shop, `${shop}\nthe diff, again`, BOT);
    expect(again).toMatchObject({ kind: 'updated', id: outcome.kind === 'created' ? outcome.id : -1 });
  });
});

describe('pullRequestForCommit', () => {
  it('finds the merged pull request of a merge commit', async () => {
    const client = new GitHubApi({ apiUrl: github.url, token: github.token });
    expect(await pullRequestForCommit(client, 'acme', 'fleet', 'c'.repeat(40))).toBe(8);
  });
});
