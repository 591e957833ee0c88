// The product's marked issue against the GitHub stand-in: one open issue per marker, found
// by marker and author across pages (pull requests skipped), updated in place, closed with a
// comment; a person's issue that quotes the marker is never taken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApi, GitHubApiError } from '../../src/github/api.js';
import { GITHUB_ACTIONS_BOT as BOT } from '../../src/github/comments.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import { closeIssueWithComment, findMarkedIssue, upsertMarkedIssue } from '../../src/github/issues.js';
import { startGitHubStandIn, type GitHubStandIn } from '../harness/github/standin/server.js';
import { GITHUB_ACTIONS_BOT } from '../harness/github/standin/users.js';

const marker = '<!-- timoni-fleet:drift:bundle=apps -->';
const target = { owner: 'acme', repo: 'fleet' };
let github: GitHubStandIn;
let client: GitHubApi;

beforeAll(async () => {
  github = await startGitHubStandIn({
    tokens: [{ token: 'person-token', account: { login: 'octocat', id: 583231, type: 'User' }, kind: 'user' }],
  });
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  // A pull request whose body starts with the marker: the issues list returns it, and it must be skipped.
  github.state.addPullRequest({
    owner: 'acme',
    repo: 'fleet',
    number: 1,
    headSha: 'a'.repeat(40),
    body: `${marker}\nquoted in a pull request`,
  });
  // A person's issue quoting the marker.
  github.state.addIssue({ owner: 'acme', repo: 'fleet', number: 2, body: `${marker}\nquoted by a person` });
  client = new GitHubApi({ apiUrl: github.url, token: github.token, retries: 0 });
  // 120 of the bot's own issues without the marker: the marked one is past the first page.
  for (let i = 0; i < 120; i += 1)
    github.state.addIssue({
      owner: 'acme',
      repo: 'fleet',
      number: 3 + i,
      title: `chatter ${i}`,
      body: `chatter ${i}`,
      user: GITHUB_ACTIONS_BOT,
    });
});
afterAll(async () => {
  await github.stop();
});

describe('upsertMarkedIssue', () => {
  it('creates the issue once with its labels, then finds it past the first page and updates it', async () => {
    const first = await upsertMarkedIssue(
      client,
      target,
      marker,
      { title: 'Drift detected in bundle apps', body: `${marker}\nfirst`, labels: ['drift'] },
      BOT,
    );
    expect(first.kind).toBe('created');
    expect(first.url).toBe(`https://github.com/acme/fleet/issues/${first.number}`);
    const second = await upsertMarkedIssue(
      client,
      target,
      marker,
      { title: 'Drift detected in bundle apps', body: `${marker}\nsecond` },
      BOT,
    );
    expect(second).toEqual({ kind: 'updated', number: first.number, url: first.url });
    const issue = github.state.issueList('acme', 'fleet').find((i) => i.number === first.number);
    expect(issue).toMatchObject({ body: `${marker}\nsecond`, labels: ['drift'], state: 'open' });
    const lists = github.state.requestsTo('GET', /\/issues$/);
    expect(
      lists.every((r) => r.path.includes('state=open') && r.path.includes('creator=github-actions%5Bbot%5D')),
    ).toBe(true);
    expect(lists.some((r) => r.path.includes('page=2'))).toBe(true);
    expect(github.state.issue(github.state.repository('acme', 'fleet')!, 2)?.body).toBe(
      `${marker}\nquoted by a person`,
    );
  });

  it('keeps one issue per marker, and refuses a body without its marker or over the limit', async () => {
    const other = await upsertMarkedIssue(
      client,
      target,
      '<!-- timoni-fleet:drift:bundle=infra -->',
      { title: 'infra', body: '<!-- timoni-fleet:drift:bundle=infra -->\ninfra' },
      BOT,
    );
    expect(other.kind).toBe('created');
    await expect(upsertMarkedIssue(client, target, marker, { title: 't', body: 'no marker' }, BOT)).rejects.toThrow(
      /must start with its marker/,
    );
    await expect(
      upsertMarkedIssue(client, target, marker, { title: 't', body: `${marker}${'x'.repeat(COMMENT_LIMIT)}` }, BOT),
    ).rejects.toThrow(/at most 65536/);
  });

  it("does not take the bot's issue for another author, nor a person's issue for the bot's", async () => {
    // For octocat, only octocat's own issue 2 (which quotes the marker) is the marked issue.
    expect((await findMarkedIssue(client, target, marker, 'octocat'))?.number).toBe(2);
    expect((await findMarkedIssue(client, target, marker, BOT))?.number).not.toBe(2);
    const person = new GitHubApi({ apiUrl: github.url, token: 'person-token', retries: 0 });
    const own = await upsertMarkedIssue(
      person,
      target,
      marker,
      { title: 'mine', body: `${marker}\nby octocat` },
      'octocat',
    );
    // The person's issue 2 quotes the marker and is theirs: it is the one updated.
    expect(own).toMatchObject({ kind: 'updated', number: 2 });
  });
});

describe('closeIssueWithComment', () => {
  it('comments, then closes as completed; the issue is no longer found', async () => {
    const open = await findMarkedIssue(client, target, marker, BOT);
    expect(open).toBeDefined();
    const closed = await closeIssueWithComment(client, target, open!.number, 'in sync again');
    expect(closed).toMatchObject({ number: open!.number, state: 'closed' });
    expect(github.state.comments('acme', 'fleet', open!.number).map((c) => c.body)).toEqual(['in sync again']);
    const record = github.state.issueList('acme', 'fleet').find((i) => i.number === open!.number);
    expect(record).toMatchObject({ state: 'closed', stateReason: 'completed' });
    expect(await findMarkedIssue(client, target, marker, BOT)).toBeUndefined();
    // The next drift opens a new issue rather than reopening the closed one.
    const next = await upsertMarkedIssue(client, target, marker, { title: 'again', body: `${marker}\nagain` }, BOT);
    expect(next.kind).toBe('created');
    expect(next.number).not.toBe(open!.number);
  });

  it("passes GitHub's refusal on with its status", async () => {
    const readOnly = new GitHubApi({ apiUrl: github.url, token: github.readOnlyToken, retries: 0 });
    const error = await closeIssueWithComment(readOnly, target, 2, 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect((error as GitHubApiError).status).toBe(403);
  });
});
