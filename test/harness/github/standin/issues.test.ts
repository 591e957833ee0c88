import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_BODY_MAX_CHARACTERS } from './body-length.js';
import { call, list, object } from './client.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

describe('issues', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn({ now: () => new Date('2026-11-22T03:04:05.678Z') });
    gh.state.addRepository({ owner: 'acme', name: 'fleet' });
    gh.state.addRepository({ owner: 'acme', name: 'no-issues', hasIssues: false });
    gh.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 3, headSha: 'b'.repeat(40) });
    gh.state.addIssue({ owner: 'acme', repo: 'fleet', number: 4, title: "a person's issue", body: 'hello' });
  });
  afterAll(async () => gh.stop());

  it('creates an issue under the next number, with its author, labels and a Location header', async () => {
    const created = await call(gh.url, 'POST', '/repos/acme/fleet/issues', {
      token: gh.token,
      body: { title: 'Drift', body: 'text', labels: ['drift', { name: 'fleet' }] },
    });
    expect(created.status).toBe(201);
    const issue = object(created);
    expect(issue).toMatchObject({
      number: 5,
      url: `${gh.url}/repos/acme/fleet/issues/5`,
      html_url: 'https://github.com/acme/fleet/issues/5',
      title: 'Drift',
      body: 'text',
      state: 'open',
      state_reason: null,
      comments: 0,
      user: { login: 'github-actions[bot]', type: 'Bot' },
      created_at: '2026-11-22T03:04:05Z',
      closed_at: null,
    });
    expect((issue.labels as Array<{ name: string }>).map((l) => l.name)).toEqual(['drift', 'fleet']);
    expect(issue).not.toHaveProperty('pull_request');
    expect(created.headers.get('location')).toBe(issue.url);
    expect(gh.state.issueList('acme', 'fleet').map((i) => i.number)).toEqual([4, 5]);
  });

  it('lists pull requests among the issues, newest first, and filters by state, creator and labels', async () => {
    const all = list(await call(gh.url, 'GET', '/repos/acme/fleet/issues', { token: gh.token }));
    expect(all.map((i) => i.number)).toEqual([5, 4, 3]);
    expect(all.find((i) => i.number === 3)).toMatchObject({
      pull_request: { url: `${gh.url}/repos/acme/fleet/pulls/3`, html_url: 'https://github.com/acme/fleet/pull/3' },
    });
    const bots = list(
      await call(gh.url, 'GET', '/repos/acme/fleet/issues?creator=github-actions%5Bbot%5D', { token: gh.token }),
    );
    expect(bots.map((i) => i.number)).toEqual([5]);
    const labelled = list(
      await call(gh.url, 'GET', '/repos/acme/fleet/issues?labels=drift,fleet&direction=asc', { token: gh.token }),
    );
    expect(labelled.map((i) => i.number)).toEqual([5]);
    const bad = await call(gh.url, 'GET', '/repos/acme/fleet/issues?state=gone', { token: gh.token });
    expect(bad.status).toBe(422);
  });

  it('updates, comments on and closes an issue; a closed issue leaves the open list', async () => {
    const created = object(
      await call(gh.url, 'POST', '/repos/acme/fleet/issues', { token: gh.token, body: { title: 'to close' } }),
    );
    const number = created.number as number;
    const patched = await call(gh.url, 'PATCH', `/repos/acme/fleet/issues/${number}`, {
      token: gh.token,
      body: { body: 'second', title: 'renamed' },
    });
    expect(patched.status).toBe(200);
    expect(object(patched)).toMatchObject({ number, title: 'renamed', body: 'second', state: 'open' });
    const comment = await call(gh.url, 'POST', `/repos/acme/fleet/issues/${number}/comments`, {
      token: gh.token,
      body: { body: 'in sync again' },
    });
    expect(object(comment).html_url).toMatch(new RegExp(`/acme/fleet/issues/${number}#issuecomment-\\d+$`));
    const closed = object(
      await call(gh.url, 'PATCH', `/repos/acme/fleet/issues/${number}`, {
        token: gh.token,
        body: { state: 'closed', state_reason: 'completed' },
      }),
    );
    expect(closed).toMatchObject({
      state: 'closed',
      state_reason: 'completed',
      closed_at: '2026-11-22T03:04:05Z',
      comments: 1,
    });
    const open = list(await call(gh.url, 'GET', '/repos/acme/fleet/issues?state=open', { token: gh.token }));
    expect(open.map((i) => i.number)).not.toContain(number);
    const closedList = list(await call(gh.url, 'GET', '/repos/acme/fleet/issues?state=closed', { token: gh.token }));
    expect(closedList.map((i) => i.number)).toEqual([number]);
    const reopened = object(
      await call(gh.url, 'PATCH', `/repos/acme/fleet/issues/${number}`, { token: gh.token, body: { state: 'open' } }),
    );
    expect(reopened).toMatchObject({ state: 'open', state_reason: 'reopened', closed_at: null });
  });

  it("paginates with GitHub's Link header on /repositories/{id}", async () => {
    gh.state.addRepository({ owner: 'acme', name: 'many' });
    for (let i = 0; i < 5; i += 1)
      await call(gh.url, 'POST', '/repos/acme/many/issues', { token: gh.token, body: { title: `issue ${i}` } });
    const first = await call(gh.url, 'GET', '/repos/acme/many/issues?per_page=2&creator=github-actions%5Bbot%5D', {
      token: gh.token,
    });
    const link = first.headers.get('link') ?? '';
    const id = String(gh.state.repository('acme', 'many')?.id);
    expect(link).toContain(
      `<${gh.url}/repositories/${id}/issues?per_page=2&creator=github-actions%5Bbot%5D&page=2>; rel="next"`,
    );
    expect(link).toContain('page=3>; rel="last"');
    const last = await call(
      gh.url,
      'GET',
      `/repositories/${id}/issues?per_page=2&creator=github-actions%5Bbot%5D&page=3`,
      { token: gh.token },
    );
    expect(list(last).map((i) => i.title)).toEqual(['issue 0']);
  });

  it('refuses what GitHub refuses: no title, a body over 65,536 characters, read-only tokens, disabled issues, unknown numbers', async () => {
    const noTitle = await call(gh.url, 'POST', '/repos/acme/fleet/issues', { token: gh.token, body: { body: 'x' } });
    expect(noTitle.status).toBe(422);
    expect(object(noTitle).message).toBe('Invalid request.\n\n"title" wasn\'t supplied.');

    const atLimit = await call(gh.url, 'POST', '/repos/acme/fleet/issues', {
      token: gh.token,
      body: { title: 't', body: 'a'.repeat(COMMENT_BODY_MAX_CHARACTERS) },
    });
    expect(atLimit.status).toBe(201);
    const tooLong = await call(gh.url, 'PATCH', `/repos/acme/fleet/issues/${String(object(atLimit).number)}`, {
      token: gh.token,
      body: { body: 'a'.repeat(COMMENT_BODY_MAX_CHARACTERS + 1) },
    });
    expect(tooLong.status).toBe(422);
    expect(object(tooLong)).toEqual({
      message: 'Validation Failed',
      errors: [
        { resource: 'Issue', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' },
      ],
      documentation_url: 'https://docs.github.com/rest/issues/issues#update-an-issue',
      status: '422',
    });

    const readOnly = await call(gh.url, 'POST', '/repos/acme/fleet/issues', {
      token: gh.readOnlyToken,
      body: { title: 't' },
    });
    expect(readOnly.status).toBe(403);
    expect(object(readOnly).message).toBe('Resource not accessible by integration');

    const disabled = await call(gh.url, 'POST', '/repos/acme/no-issues/issues', {
      token: gh.token,
      body: { title: 't' },
    });
    expect(disabled.status).toBe(410);
    expect(object(disabled)).toMatchObject({
      message: 'Issues are disabled for this repo',
      documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue',
    });

    expect((await call(gh.url, 'GET', '/repos/acme/fleet/issues/999', { token: gh.token })).status).toBe(404);
    expect(
      (await call(gh.url, 'PATCH', '/repos/acme/fleet/issues/999', { token: gh.token, body: { body: 'x' } })).status,
    ).toBe(404);
  });

  it("gets an issue, and a pull request's number as an issue with pull_request", async () => {
    expect(object(await call(gh.url, 'GET', '/repos/acme/fleet/issues/4', { token: gh.token }))).toMatchObject({
      number: 4,
      title: "a person's issue",
      user: { login: 'octocat' },
      author_association: 'MEMBER',
    });
    expect(object(await call(gh.url, 'GET', '/repos/acme/fleet/issues/3', { token: gh.token }))).toHaveProperty(
      'pull_request.url',
    );
  });
});
