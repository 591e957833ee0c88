import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, list } from './client.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

describe('issue comment pagination', () => {
  let gh: GitHubStandIn;
  let repoId: number;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    repoId = gh.state.addRepository({ owner: 'acme', name: 'fleet' }).id;
    gh.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 7, headSha: 'a'.repeat(40) });
    for (let i = 1; i <= 75; i++)
      gh.state.addComment({ owner: 'acme', repo: 'fleet', issueNumber: 7, body: `comment ${i}` });
  });
  afterAll(async () => gh.stop());

  const path = '/repos/acme/fleet/issues/7/comments';
  const linkTo = (query: string): string => `<${gh.url}/repositories/${repoId}/issues/7/comments?${query}>`;

  it('splits 75 comments into 3 pages of 30 with GitHub-style Link headers', async () => {
    const first = await call(gh.url, 'GET', `${path}?per_page=30`, { token: gh.token });
    expect(first.status).toBe(200);
    expect(list(first).map((c) => c.body)).toEqual(Array.from({ length: 30 }, (_, i) => `comment ${i + 1}`));
    expect(first.headers.get('link')).toBe(
      `${linkTo('per_page=30&page=2')}; rel="next", ${linkTo('per_page=30&page=3')}; rel="last"`,
    );

    const second = await call(gh.url, 'GET', `${path}?per_page=30&page=2`, { token: gh.token });
    expect(list(second).map((c) => c.body)).toEqual(Array.from({ length: 30 }, (_, i) => `comment ${i + 31}`));
    expect(second.headers.get('link')).toBe(
      `${linkTo('per_page=30&page=1')}; rel="prev", ${linkTo('per_page=30&page=3')}; rel="next", ` +
        `${linkTo('per_page=30&page=3')}; rel="last", ${linkTo('per_page=30&page=1')}; rel="first"`,
    );

    const third = await call(gh.url, 'GET', `${path}?per_page=30&page=3`, { token: gh.token });
    expect(list(third).map((c) => c.body)).toEqual(Array.from({ length: 15 }, (_, i) => `comment ${i + 61}`));
    expect(third.headers.get('link')).toBe(
      `${linkTo('per_page=30&page=2')}; rel="prev", ${linkTo('per_page=30&page=1')}; rel="first"`,
    );
  });

  it('defaults to 30 per page and keeps the query without per_page', async () => {
    const first = await call(gh.url, 'GET', path, { token: gh.token });
    expect(list(first)).toHaveLength(30);
    expect(first.headers.get('link')).toBe(`${linkTo('page=2')}; rel="next", ${linkTo('page=3')}; rel="last"`);
  });

  it('caps per_page at 100 and omits Link when one page holds everything', async () => {
    const all = await call(gh.url, 'GET', `${path}?per_page=500`, { token: gh.token });
    expect(list(all)).toHaveLength(75);
    expect(all.headers.get('link')).toBeNull();
  });

  it('follows the Link URLs (the /repositories/{id} form) to the end', async () => {
    const bodies: unknown[] = [];
    let next: string | undefined = `${gh.url}${path}?per_page=20`;
    let pages = 0;
    while (next) {
      const response = await fetch(next, { headers: { authorization: `token ${gh.token}` } });
      expect(response.status).toBe(200);
      bodies.push(...((await response.json()) as { body: string }[]).map((c) => c.body));
      pages += 1;
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    }
    expect(pages).toBe(4);
    expect(bodies).toEqual(Array.from({ length: 75 }, (_, i) => `comment ${i + 1}`));
  });

  it('caps per_page at 100 across pages', async () => {
    for (let i = 76; i <= 130; i++)
      gh.state.addComment({ owner: 'acme', repo: 'fleet', issueNumber: 7, body: `comment ${i}` });
    const first = await call(gh.url, 'GET', `${path}?per_page=1000`, { token: gh.token });
    expect(list(first)).toHaveLength(100);
    expect(first.headers.get('link')).toBe(
      `${linkTo('per_page=1000&page=2')}; rel="next", ${linkTo('per_page=1000&page=2')}; rel="last"`,
    );
    const second = await call(gh.url, 'GET', `${path}?per_page=1000&page=2`, { token: gh.token });
    expect(list(second).map((c) => c.body)).toEqual(Array.from({ length: 30 }, (_, i) => `comment ${i + 101}`));
  });

  it('answers an empty page past the end', async () => {
    const past = await call(gh.url, 'GET', `${path}?per_page=100&page=9`, { token: gh.token });
    expect(past.status).toBe(200);
    expect(list(past)).toEqual([]);
  });
});
