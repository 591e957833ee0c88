import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, object } from './client.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

describe('authentication and authorisation', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn({
      tokens: [{ token: 'ghp_personal', kind: 'user', account: { login: 'alice', id: 5, type: 'User' } }],
    });
    gh.state.addRepository({ owner: 'acme', name: 'fleet' });
    gh.state.addRepository({ owner: 'acme', name: 'secret', private: true });
    gh.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 3, headSha: 'c'.repeat(40) });
    gh.state.addPullRequest({ owner: 'acme', repo: 'secret', number: 3, headSha: 'c'.repeat(40) });
  });
  afterAll(async () => gh.stop());

  it('accepts Bearer, token and Basic (x-access-token) authorisation', async () => {
    for (const scheme of ['Bearer', 'token', 'TOKEN']) {
      expect((await call(gh.url, 'GET', '/repos/acme/secret', { token: gh.token, scheme })).status).toBe(200);
    }
    const basic = Buffer.from(`x-access-token:${gh.token}`).toString('base64');
    expect((await call(gh.url, 'GET', '/repos/acme/secret', { token: basic, scheme: 'Basic' })).status).toBe(200);
  });

  it('answers 401 Bad credentials for an unknown token', async () => {
    const answer = await call(gh.url, 'GET', '/repos/acme/fleet', { token: 'ghs_unknown' });
    expect(answer.status).toBe(401);
    expect(object(answer)).toEqual({
      message: 'Bad credentials',
      documentation_url: 'https://docs.github.com/rest',
      status: '401',
    });
    expect((await call(gh.url, 'GET', '/repos/acme/fleet', { token: 'x', scheme: 'Digest' })).status).toBe(401);
  });

  it('treats a request without a token as anonymous: public reads work, writes need authentication, private repositories are 404', async () => {
    expect((await call(gh.url, 'GET', '/repos/acme/fleet/issues/3/comments')).status).toBe(200);
    const write = await call(gh.url, 'POST', '/repos/acme/fleet/issues/3/comments', { body: { body: 'x' } });
    expect(write.status).toBe(401);
    expect(object(write)).toEqual({
      message: 'Requires authentication',
      documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
      status: '401',
    });
    const hidden = await call(gh.url, 'GET', '/repos/acme/secret/pulls/3');
    expect(hidden.status).toBe(404);
    expect(object(hidden)).toEqual({
      message: 'Not Found',
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request',
      status: '404',
    });
  });

  it('lets a read-only token read but answers 403 on writes', async () => {
    expect((await call(gh.url, 'GET', '/repos/acme/fleet/issues/3/comments', { token: gh.readOnlyToken })).status).toBe(
      200,
    );
    const write = await call(gh.url, 'POST', '/repos/acme/fleet/issues/3/comments', {
      token: gh.readOnlyToken,
      body: { body: 'x' },
    });
    expect(write.status).toBe(403);
    expect(object(write)).toEqual({
      message: 'Resource not accessible by integration',
      documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
      status: '403',
    });
    expect(gh.state.comments('acme', 'fleet', 3)).toEqual([]);

    const mine = object(
      await call(gh.url, 'POST', '/repos/acme/fleet/issues/3/comments', { token: gh.token, body: { body: 'mine' } }),
    );
    const path = `/repos/acme/fleet/issues/comments/${String(mine.id)}`;
    expect((await call(gh.url, 'PATCH', path, { token: gh.readOnlyToken, body: { body: 'x' } })).status).toBe(403);
    expect((await call(gh.url, 'DELETE', path, { token: gh.readOnlyToken })).status).toBe(403);
    expect(gh.state.comments('acme', 'fleet', 3).map((c) => c.body)).toEqual(['mine']);
  });

  it('posts as the account behind the token', async () => {
    const answer = object(
      await call(gh.url, 'POST', '/repos/acme/fleet/issues/3/comments', {
        token: 'ghp_personal',
        body: { body: 'hi' },
      }),
    );
    expect(answer.user).toMatchObject({ login: 'alice', id: 5, type: 'User' });
    expect(answer.author_association).toBe('MEMBER');
  });

  it('answers 404 Not Found for unknown paths and methods', async () => {
    for (const [method, path] of [
      ['GET', '/nothing/here'],
      ['GET', '/repos/acme/fleet/unknown'],
      ['PUT', '/repos/acme/fleet/issues/3/comments'],
      ['GET', '/repos/acme/fleet/issues/abc/comments'],
    ] as const) {
      const answer = await call(gh.url, method, path, { token: gh.token });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(object(answer).message).toBe('Not Found');
      expect(object(answer).status).toBe('404');
    }
  });
});

describe('a GITHUB_TOKEN granted its own repository only', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn({ tokenRepositories: ['acme/fleet'] });
    for (const [name, isPrivate] of [
      ['fleet', false],
      ['public-other', false],
      ['private-other', true],
    ] as const) {
      gh.state.addRepository({ owner: 'acme', name, private: isPrivate });
      gh.state.addIssue({ owner: 'acme', repo: name, number: 1 });
    }
  });
  afterAll(async () => gh.stop());

  it('writes to its repository, reads other public ones, and gets 403 / 404 elsewhere', async () => {
    expect(
      (await call(gh.url, 'POST', '/repos/acme/fleet/issues/1/comments', { token: gh.token, body: { body: 'ok' } }))
        .status,
    ).toBe(201);
    expect((await call(gh.url, 'GET', '/repos/acme/public-other/issues/1/comments', { token: gh.token })).status).toBe(
      200,
    );
    const write = await call(gh.url, 'POST', '/repos/acme/public-other/issues/1/comments', {
      token: gh.token,
      body: { body: 'no' },
    });
    expect(write.status).toBe(403);
    expect(object(write).message).toBe('Resource not accessible by integration');
    expect((await call(gh.url, 'GET', '/repos/acme/private-other', { token: gh.token })).status).toBe(404);
    expect(
      (
        await call(gh.url, 'POST', '/repos/acme/private-other/issues/1/comments', {
          token: gh.token,
          body: { body: 'no' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('forced server errors', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    gh.state.addRepository({ owner: 'acme', name: 'fleet' });
    gh.state.addIssue({ owner: 'acme', repo: 'fleet', number: 1 });
  });
  afterAll(async () => gh.stop());

  it('answers the matching requests with the forced status, then serves them again', async () => {
    gh.state.forceError({ method: 'POST', path: /\/comments$/, times: 2 });
    expect((await call(gh.url, 'GET', '/repos/acme/fleet/issues/1/comments', { token: gh.token })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const failed = await call(gh.url, 'POST', '/repos/acme/fleet/issues/1/comments', {
        token: gh.token,
        body: { body: 'x' },
      });
      expect(failed.status).toBe(502);
      expect(object(failed)).toMatchObject({ message: 'Server Error', status: '502' });
    }
    expect(gh.state.comments('acme', 'fleet', 1)).toEqual([]);
    expect(
      (await call(gh.url, 'POST', '/repos/acme/fleet/issues/1/comments', { token: gh.token, body: { body: 'x' } }))
        .status,
    ).toBe(201);
  });
});
