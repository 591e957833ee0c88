// The REST client against the GitHub stand-in when GitHub misbehaves: a request that never
// gets an answer, an HTML error page from the front end, the run's deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApiError, GitHubClient } from '../../src/github/rest-client.js';
import { startGitHubStandIn, type GitHubStandIn } from './standin/server.js';

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn();
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 3, headSha: 'a'.repeat(40) });
});
afterAll(async () => {
  await github.stop();
});

const sleeps: number[] = [];
const client = (options: { requestTimeoutMs?: number; signal?: AbortSignal } = {}) =>
  new GitHubClient({ apiUrl: github.url, token: github.token, sleep: async (ms) => void sleeps.push(ms), ...options });

describe('GitHubClient when GitHub misbehaves', () => {
  it('gives up on a request that never gets an answer after three bounded attempts', async () => {
    github.state.forceError({ hang: true, path: /\/issues\/3\/comments$/, times: 3 });
    const started = Date.now();
    const error = await client({ requestTimeoutMs: 300 }).request('GET', '/repos/acme/fleet/issues/3/comments').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect((error as Error).message).toBe('GitHub API GET /repos/acme/fleet/issues/3/comments answered 0: no answer within 300 ms (3 attempts)');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('tries a 502 again, and names an HTML error page that persists', async () => {
    github.state.forceError({ status: 502, html: true, path: /\/pulls\/3$/, times: 1 });
    expect((await client().request<{ number: number }>('GET', '/repos/acme/fleet/pulls/3')).data.number).toBe(3);
    github.state.forceError({ status: 502, html: true, path: /\/pulls\/3$/, times: 3 });
    await expect(client().request('GET', '/repos/acme/fleet/pulls/3')).rejects.toThrow('GitHub API GET /repos/acme/fleet/pulls/3 answered 502: an HTML error page instead of JSON (GitHub unavailable?)');
  });

  it('sends nothing once the run has passed its deadline', async () => {
    const error = await client({ signal: AbortSignal.abort() }).request('GET', '/repos/acme/fleet').catch((e: unknown) => e);
    expect((error as Error).message).toContain('stopped: the run passed its deadline');
  });
});
