import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_BODY_MAX_CHARACTERS, githubCharacterCount } from './body-length.js';
import { call, list, object } from './client.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

describe('issue comments', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn({ now: () => new Date('2026-11-22T03:04:05.678Z') });
    gh.state.addRepository({ owner: 'acme', name: 'fleet' });
    gh.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 12, headSha: 'b'.repeat(40) });
    gh.state.addIssue({ owner: 'acme', repo: 'fleet', number: 13 });
  });
  afterAll(async () => gh.stop());

  it('creates a comment with the full GitHub object and a Location header', async () => {
    const created = await call(gh.url, 'POST', '/repos/acme/fleet/issues/12/comments', {
      token: gh.token,
      body: { body: 'plan: 3 clusters' },
    });
    expect(created.status).toBe(201);
    const c = object(created);
    const id = c.id as number;
    expect(typeof id).toBe('number');
    expect(c).toMatchObject({
      node_id: expect.stringMatching(/^IC_/),
      url: `${gh.url}/repos/acme/fleet/issues/comments/${id}`,
      html_url: `https://github.com/acme/fleet/pull/12#issuecomment-${id}`,
      issue_url: `${gh.url}/repos/acme/fleet/issues/12`,
      body: 'plan: 3 clusters',
      user: { login: 'github-actions[bot]', id: 41898282, type: 'Bot' },
      created_at: '2026-11-22T03:04:05Z',
      updated_at: '2026-11-22T03:04:05Z',
      author_association: 'NONE',
    });
    expect(created.headers.get('location')).toBe(c.url);
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(created.headers.get('x-github-request-id')).toMatch(/^[0-9A-F]{4}(:[0-9A-F]+){4}$/);
    expect(gh.state.comments('acme', 'fleet', 12).map((r) => r.body)).toEqual(['plan: 3 clusters']);
  });

  it('gets, updates and deletes a comment', async () => {
    const created = object(
      await call(gh.url, 'POST', '/repos/acme/fleet/issues/13/comments', { token: gh.token, body: { body: 'first' } }),
    );
    const path = `/repos/acme/fleet/issues/comments/${String(created.id)}`;
    const got = await call(gh.url, 'GET', path, { token: gh.token });
    expect(got.status).toBe(200);
    expect(object(got)).toMatchObject({
      id: created.id,
      body: 'first',
      html_url: `https://github.com/acme/fleet/issues/13#issuecomment-${String(created.id)}`,
    });

    const updated = await call(gh.url, 'PATCH', path, { token: gh.token, body: { body: 'second' } });
    expect(updated.status).toBe(200);
    expect(object(updated)).toMatchObject({ id: created.id, body: 'second' });
    expect(gh.state.comments('acme', 'fleet', 13).map((r) => r.body)).toEqual(['second']);

    const deleted = await call(gh.url, 'DELETE', path, { token: gh.token });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(gh.state.comments('acme', 'fleet', 13)).toEqual([]);
    const gone = await call(gh.url, 'GET', path, { token: gh.token });
    expect(gone.status).toBe(404);
    expect(object(gone)).toEqual({
      message: 'Not Found',
      documentation_url: 'https://docs.github.com/rest/issues/comments#get-an-issue-comment',
      status: '404',
    });
  });

  it('lists comments in creation order', async () => {
    for (const body of ['x', 'y', 'z'])
      await call(gh.url, 'POST', '/repos/acme/fleet/issues/13/comments', { token: gh.token, body: { body } });
    const listed = await call(gh.url, 'GET', '/repos/acme/fleet/issues/13/comments', { token: gh.token });
    expect(list(listed).map((c) => c.body)).toEqual(['x', 'y', 'z']);
  });

  it("accepts 65,536 characters and refuses 65,537 with GitHub's validation error", async () => {
    const atLimit = 'a'.repeat(COMMENT_BODY_MAX_CHARACTERS);
    const ok = await call(gh.url, 'POST', '/repos/acme/fleet/issues/12/comments', {
      token: gh.token,
      body: { body: atLimit },
    });
    expect(ok.status).toBe(201);
    expect((object(ok).body as string).length).toBe(65_536);

    const before = gh.state.comments('acme', 'fleet', 12).length;
    const tooLong = await call(gh.url, 'POST', '/repos/acme/fleet/issues/12/comments', {
      token: gh.token,
      body: { body: `${atLimit}a` },
    });
    expect(tooLong.status).toBe(422);
    expect(object(tooLong)).toEqual({
      message: 'Validation Failed',
      errors: [
        {
          resource: 'IssueComment',
          code: 'unprocessable',
          field: 'data',
          message: 'Body is too long (maximum is 65536 characters)',
        },
      ],
      documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
      status: '422',
    });
    expect(gh.state.comments('acme', 'fleet', 12)).toHaveLength(before);

    const id = String(object(ok).id);
    const patch = await call(gh.url, 'PATCH', `/repos/acme/fleet/issues/comments/${id}`, {
      token: gh.token,
      body: { body: `${atLimit}b` },
    });
    expect(patch.status).toBe(422);
    expect(object(patch).documentation_url).toBe(
      'https://docs.github.com/rest/issues/comments#update-an-issue-comment',
    );
    expect(gh.state.comment(Number(id))?.body).toBe(atLimit);
  });

  it('counts characters as code points, not UTF-16 units', async () => {
    const emoji = '🚀'.repeat(COMMENT_BODY_MAX_CHARACTERS);
    expect(emoji.length).toBe(2 * COMMENT_BODY_MAX_CHARACTERS);
    expect(githubCharacterCount(emoji)).toBe(COMMENT_BODY_MAX_CHARACTERS);
    const ok = await call(gh.url, 'POST', '/repos/acme/fleet/issues/12/comments', {
      token: gh.token,
      body: { body: emoji },
    });
    expect(ok.status).toBe(201);
    const over = await call(gh.url, 'POST', '/repos/acme/fleet/issues/12/comments', {
      token: gh.token,
      body: { body: `${emoji}é` },
    });
    expect(over.status).toBe(422);
  });

  it('refuses malformed requests as GitHub does', async () => {
    const path = '/repos/acme/fleet/issues/12/comments';
    const notJson = await call(gh.url, 'POST', path, { token: gh.token, body: '{"body":' });
    expect(notJson.status).toBe(400);
    expect(object(notJson).message).toBe('Problems parsing JSON');
    const missing = await call(gh.url, 'POST', path, { token: gh.token, body: { text: 'x' } });
    expect(missing.status).toBe(422);
    expect(object(missing).message).toBe('Invalid request.\n\n"body" wasn\'t supplied.');
    const wrongType = await call(gh.url, 'POST', path, { token: gh.token, body: { body: 5 } });
    expect(object(wrongType).message).toBe("Invalid request.\n\nFor 'properties/body', 5 is not a string.");
    const blank = await call(gh.url, 'POST', path, { token: gh.token, body: { body: '  ' } });
    expect(blank.status).toBe(422);
    expect(object(blank).message).toBe('Validation Failed');
  });

  it("answers 404 for comments on unknown issues, repositories and other repositories' comments", async () => {
    expect((await call(gh.url, 'GET', '/repos/acme/fleet/issues/999/comments', { token: gh.token })).status).toBe(404);
    expect(
      (await call(gh.url, 'POST', '/repos/acme/nope/issues/1/comments', { token: gh.token, body: { body: 'x' } }))
        .status,
    ).toBe(404);
    gh.state.addRepository({ owner: 'acme', name: 'other' });
    const mine = gh.state.comments('acme', 'fleet', 12)[0];
    expect(mine).toBeDefined();
    expect(
      (await call(gh.url, 'GET', `/repos/acme/other/issues/comments/${String(mine?.id)}`, { token: gh.token })).status,
    ).toBe(404);
  });

  it('records every request with the token redacted', async () => {
    const count = gh.state.requests.length;
    await call(gh.url, 'POST', '/repos/acme/fleet/issues/12/comments', {
      token: gh.token,
      scheme: 'token',
      body: { body: 'logged' },
    });
    const last = gh.state.requests[count];
    expect(last).toMatchObject({
      method: 'POST',
      path: '/repos/acme/fleet/issues/12/comments',
      body: { body: 'logged' },
      status: 201,
    });
    expect(last?.headers.authorization).toBe('token [redacted]');
    expect(JSON.stringify(gh.state.requests)).not.toContain(gh.token);
    expect(gh.state.requestsTo('POST', /\/issues\/12\/comments$/).length).toBeGreaterThan(0);
  });
});
