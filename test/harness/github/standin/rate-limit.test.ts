import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, object } from './client.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

describe('rate limits', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    gh.state.addRepository({ owner: 'acme', name: 'fleet' });
  });
  afterAll(async () => gh.stop());

  it('sends the rate-limit headers on every answer, remaining decreasing and used increasing', async () => {
    const seen: { remaining: number; used: number; limit: number; reset: number; resource: string | null }[] = [];
    for (const path of ['/repos/acme/fleet', '/repos/acme/fleet/pulls/1', '/repos/acme/nope']) {
      const answer = await call(gh.url, 'GET', path, { token: gh.token });
      seen.push({
        limit: Number(answer.headers.get('x-ratelimit-limit')),
        remaining: Number(answer.headers.get('x-ratelimit-remaining')),
        used: Number(answer.headers.get('x-ratelimit-used')),
        reset: Number(answer.headers.get('x-ratelimit-reset')),
        resource: answer.headers.get('x-ratelimit-resource'),
      });
    }
    expect(seen.map((s) => s.limit)).toEqual([1000, 1000, 1000]);
    expect(seen.map((s) => s.remaining)).toEqual([999, 998, 997]);
    expect(seen.map((s) => s.used)).toEqual([1, 2, 3]);
    expect(seen.every((s) => s.resource === 'core')).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    expect(seen[0]?.reset).toBeGreaterThan(now);
    expect(seen[0]?.reset).toBeLessThanOrEqual(now + 3600);
    expect(gh.rateLimit(gh.token)).toMatchObject({ remaining: 997, used: 3 });
  });

  it('keeps a separate budget per token and a 60-request budget for anonymous callers', async () => {
    const read = await call(gh.url, 'GET', '/repos/acme/fleet', { token: gh.readOnlyToken });
    expect(read.headers.get('x-ratelimit-remaining')).toBe('999');
    const anonymous = await call(gh.url, 'GET', '/repos/acme/fleet');
    expect(anonymous.headers.get('x-ratelimit-limit')).toBe('60');
    const bad = await call(gh.url, 'GET', '/repos/acme/fleet', { token: 'ghs_bad' });
    expect(bad.status).toBe(401);
    expect(Number(bad.headers.get('x-ratelimit-remaining'))).toBe(
      Number(anonymous.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  it('does not count GET /rate_limit', async () => {
    const before = gh.rateLimit(gh.token).remaining;
    const answer = await call(gh.url, 'GET', '/rate_limit', { token: gh.token });
    expect(object(answer).rate).toMatchObject({ remaining: before, resource: 'core' });
    expect(gh.rateLimit(gh.token).remaining).toBe(before);
  });

  it('answers a forced secondary rate limit with retry-after, then recovers', async () => {
    gh.state.forceSecondaryRateLimit({ status: 403, retryAfter: 7, times: 2 });
    for (let i = 0; i < 2; i++) {
      const limited = await call(gh.url, 'GET', '/repos/acme/fleet', { token: gh.token });
      expect(limited.status).toBe(403);
      expect(limited.headers.get('retry-after')).toBe('7');
      const body = object(limited);
      expect(body.message).toMatch(/^You have exceeded a secondary rate limit/);
      expect(body.message).toContain(limited.headers.get('x-github-request-id') ?? 'missing request id');
      expect(body.documentation_url).toBe(
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      );
    }
    expect((await call(gh.url, 'GET', '/repos/acme/fleet', { token: gh.token })).status).toBe(200);
    gh.state.forceSecondaryRateLimit({ status: 429, retryAfter: 1 });
    const tooMany = await call(gh.url, 'GET', '/repos/acme/fleet', { token: gh.token });
    expect(tooMany.status).toBe(429);
    expect(object(tooMany).status).toBe('429');
  });

  it('answers 403 with remaining 0 once a primary budget is spent', async () => {
    const small = await startGitHubStandIn({ rateLimit: 2 });
    try {
      small.state.addRepository({ owner: 'acme', name: 'fleet' });
      expect((await call(small.url, 'GET', '/repos/acme/fleet', { token: small.token })).status).toBe(200);
      expect((await call(small.url, 'GET', '/repos/acme/fleet', { token: small.token })).status).toBe(200);
      const spent = await call(small.url, 'GET', '/repos/acme/fleet', { token: small.token });
      expect(spent.status).toBe(403);
      expect(spent.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(object(spent).message).toBe('API rate limit exceeded for installation ID 41898282.');
    } finally {
      await small.stop();
    }
  });
});
