// The REST client against the GitHub stand-in, above all when GitHub misbehaves: a 502 from
// its front end, a request that never gets an answer, an HTML error page, primary and
// secondary rate limits, the run's deadline; and the token in none of its errors or logs.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApi, GitHubApiError, type GitHubApiOptions } from '../../src/github/api.js';
import { startGitHubStandIn, type GitHubStandIn } from '../harness/github/standin/server.js';

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn();
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 3, headSha: 'a'.repeat(40) });
  for (let i = 0; i < 250; i += 1)
    github.state.addComment({ owner: 'acme', repo: 'fleet', issueNumber: 3, body: `comment ${i}` });
});
afterAll(async () => {
  await github.stop();
});

const logged: string[] = [];
/** A client with a short backoff (10 ms, 40 ms), as the tests can afford. */
const client = (options: Partial<GitHubApiOptions> = {}) =>
  new GitHubApi({
    apiUrl: github.url,
    token: github.token,
    retryBaseMs: 10,
    log: (line) => void logged.push(line),
    ...options,
  });

const requestsTo = (path: RegExp) => github.state.requests.filter((r) => path.test(r.path));

describe('GitHubApi', () => {
  it('sends the token, and reads every page of a list', async () => {
    const before = requestsTo(/\/issues\/3\/comments/).length;
    const comments = await client().paginate<{ body: string }>('/repos/acme/fleet/issues/3/comments');
    expect(comments).toHaveLength(250);
    expect(comments[249]?.body).toBe('comment 249');
    const pages = requestsTo(/\/issues\/3\/comments/).slice(before);
    expect(pages).toHaveLength(3);
    expect(pages[0]?.path).toContain('per_page=100');
    expect(pages[0]?.headers.authorization).toMatch(/^(token|Bearer) \[redacted\]$/);
    expect(pages[0]?.headers['x-github-api-version']).toBe('2022-11-28');
    expect(pages[0]?.headers['user-agent']).toMatch(/^timoni-fleet /);
  });

  it('sends a JSON body and gives the answer', async () => {
    const created = await client().request<{ id: number; body: string }>(
      'POST',
      '/repos/acme/fleet/issues/3/comments',
      { body: 'hello' },
    );
    expect(created.status).toBe(201);
    expect(github.state.comment(created.data.id)?.body).toBe('hello');
  });

  it('tries a 502 again and succeeds on the next answer', async () => {
    github.state.forceError({ status: 502, method: 'PATCH', path: /\/issues\/comments\/\d+$/, times: 1 });
    const comment = github.state.addComment({ owner: 'acme', repo: 'fleet', issueNumber: 3, body: 'old' });
    const before = requestsTo(/\/issues\/comments\/\d+$/).length;
    const updated = await client().request<{ body: string }>(
      'PATCH',
      `/repos/acme/fleet/issues/comments/${comment.id}`,
      { body: 'new' },
    );
    expect(updated.data.body).toBe('new');
    expect(
      requestsTo(/\/issues\/comments\/\d+$/)
        .slice(before)
        .map((r) => r.status),
    ).toEqual([502, 200]);
  });

  it("gives up after three attempts in all, with GitHub's status and message", async () => {
    github.state.forceError({ status: 503, message: 'Service Unavailable', path: /\/pulls\/3$/, times: 3 });
    const before = requestsTo(/\/pulls\/3$/).length;
    const error = await client()
      .request('GET', '/repos/acme/fleet/pulls/3')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect(error).toMatchObject({
      status: 503,
      method: 'GET',
      path: '/repos/acme/fleet/pulls/3',
      apiMessage: 'Service Unavailable',
    });
    expect((error as Error).message).toBe('GitHub API GET /repos/acme/fleet/pulls/3 answered 503: Service Unavailable');
    expect(requestsTo(/\/pulls\/3$/).length - before).toBe(3);
  });

  it("does not try a refusal again, and names GitHub's message", async () => {
    const before = github.state.requests.length;
    const error = await new GitHubApi({ apiUrl: github.url, token: 'ghs_not_a_real_token_0123456789' })
      .request('GET', '/repos/acme/fleet/pulls/3')
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('GitHub API GET /repos/acme/fleet/pulls/3 answered 401: Bad credentials');
    expect(github.state.requests.length - before).toBe(1);
    expect(JSON.stringify(error)).not.toContain('ghs_not_a_real_token_0123456789');
    expect(String((error as Error).stack)).not.toContain('ghs_not_a_real_token_0123456789');
  });

  it('gives up on a request that never gets an answer after three bounded attempts', async () => {
    github.state.forceError({ hang: true, path: /\/issues\/3\/comments$/, times: 3 });
    const started = Date.now();
    const error = await client({ requestTimeoutMs: 300 })
      .request('GET', '/repos/acme/fleet/issues/3/comments')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect((error as Error).message).toBe(
      'GitHub API GET /repos/acme/fleet/issues/3/comments answered 0: no answer within 300 ms (3 attempts)',
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('tries a 502 again, and names an HTML error page that persists', async () => {
    github.state.forceError({ status: 502, html: true, path: /\/pulls\/3$/, times: 1 });
    expect((await client().request<{ number: number }>('GET', '/repos/acme/fleet/pulls/3')).data.number).toBe(3);
    github.state.forceError({ status: 502, html: true, path: /\/pulls\/3$/, times: 3 });
    await expect(client().request('GET', '/repos/acme/fleet/pulls/3')).rejects.toThrow(
      'GitHub API GET /repos/acme/fleet/pulls/3 answered 502: an HTML error page instead of JSON (GitHub unavailable?)',
    );
  });

  it('names a network failure and how often it was tried', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await new GitHubApi({ apiUrl: `http://127.0.0.1:${port}`, token: github.token, retryBaseMs: 10 })
      .request('GET', '/repos/acme/fleet')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0 });
    expect((error as Error).message).toMatch(
      /^GitHub API GET \/repos\/acme\/fleet answered 0: .*ECONNREFUSED.* \(3 attempts\)$/,
    );
  });

  it('sends nothing once the run has passed its deadline', async () => {
    const before = github.state.requests.length;
    const error = await client({ signal: AbortSignal.abort() })
      .request('GET', '/repos/acme/fleet')
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('stopped: the run passed its deadline');
    expect(github.state.requests.length).toBe(before);
  });

  it('stops waiting as soon as the deadline passes', async () => {
    github.state.forceError({ hang: true, path: /\/pulls\/3$/, times: 1 });
    const started = Date.now();
    const error = await client({ signal: AbortSignal.timeout(300) })
      .request('GET', '/repos/acme/fleet/pulls/3')
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'GitHub API GET /repos/acme/fleet/pulls/3 answered 0: stopped: the run passed its deadline',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('GitHubApi and rate limits', () => {
  it('waits out a secondary rate limit as retry-after asks, and says so', async () => {
    logged.length = 0;
    github.state.forceSecondaryRateLimit({ status: 403, retryAfter: 1, times: 1 });
    const started = Date.now();
    const pull = await client().request<{ number: number }>('GET', '/repos/acme/fleet/pulls/3');
    expect(pull.data.number).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(logged).toEqual([
      'GitHub secondary rate limit on GET /repos/acme/fleet/pulls/3: waiting 1 s, as GitHub asks, before trying again',
    ]);
  });

  it('waits out a 429 the same way', async () => {
    logged.length = 0;
    github.state.forceSecondaryRateLimit({ status: 429, retryAfter: 1, times: 1 });
    expect((await client().request<{ number: number }>('GET', '/repos/acme/fleet/pulls/3')).data.number).toBe(3);
    expect(logged).toHaveLength(1);
  });

  it("does not wait longer than its maximum, and fails with GitHub's message", async () => {
    logged.length = 0;
    github.state.forceSecondaryRateLimit({ status: 403, retryAfter: 120, times: 1 });
    const started = Date.now();
    const error = await client({ maxRateLimitWaitMs: 5_000 })
      .request('GET', '/repos/acme/fleet/pulls/3')
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ status: 403 });
    expect((error as Error).message).toMatch(/answered 403: You have exceeded a secondary rate limit/);
    expect(logged).toEqual([
      'GitHub secondary rate limit on GET /repos/acme/fleet/pulls/3: GitHub asks to wait 120 s, longer than the 5 s this run waits at most; giving up',
    ]);
  });

  it('fails at once on a spent primary rate limit that resets in an hour', async () => {
    const spent = await startGitHubStandIn({ rateLimit: 1 });
    try {
      spent.state.addRepository({ owner: 'acme', name: 'fleet' });
      const lines: string[] = [];
      const api = new GitHubApi({ apiUrl: spent.url, token: spent.token, log: (line) => void lines.push(line) });
      await api.request('GET', '/repos/acme/fleet');
      const started = Date.now();
      const error = await api.request('GET', '/repos/acme/fleet').catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((error as Error).message).toMatch(
        /^GitHub API GET \/repos\/acme\/fleet answered 403: API rate limit exceeded for installation ID \d+\.$/,
      );
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^GitHub rate limit on GET \/repos\/acme\/fleet: GitHub asks to wait \d+ s, longer than the 60 s this run waits at most; giving up$/,
      );
      for (const line of lines) expect(line).not.toContain(spent.token);
    } finally {
      await spent.stop();
    }
  });
});
