import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, list, object } from '../standin/client.js';
import { type GitHubStandIn, startGitHubStandIn } from '../standin/server.js';
import { fakeSha } from './payload-objects.js';
import { pullRequestEvent } from './pull-request.js';
import { pushEvent } from './push.js';
import { seedFromEvent } from './seed.js';

describe('seedFromEvent', () => {
  let gh: GitHubStandIn;
  beforeAll(async () => {
    gh = await startGitHubStandIn();
  });
  afterAll(async () => gh.stop());

  it("makes a merged pull request findable from its merge commit, with the payload's repository id", async () => {
    const merge = fakeSha('merge 30');
    const event = pullRequestEvent({
      action: 'closed',
      repository: { owner: 'acme', name: 'fleet', defaultBranch: 'trunk' },
      number: 30,
      headSha: fakeSha('h30'),
      merged: true,
      mergeCommitSha: merge,
    });
    seedFromEvent(gh.state, event);
    const repo = object(await call(gh.url, 'GET', '/repos/acme/fleet', { token: gh.token }));
    expect(repo).toMatchObject({ id: (event.payload.repository as { id: number }).id, default_branch: 'trunk' });
    const pulls = list(await call(gh.url, 'GET', `/repos/acme/fleet/commits/${merge}/pulls`, { token: gh.token }));
    expect(pulls.map((p) => [p.number, p.merged_at !== null])).toEqual([[30, true]]);
    seedFromEvent(gh.state, event);
    const seeded = gh.state.repository('acme', 'fleet');
    if (!seeded) throw new Error('acme/fleet was not seeded');
    expect(gh.state.pullRequests(seeded)).toHaveLength(1);
  });

  it('makes the commits of a push known', async () => {
    const after = fakeSha('after');
    seedFromEvent(
      gh.state,
      pushEvent({ repository: 'acme/fleet', ref: 'refs/heads/trunk', before: fakeSha('before'), after }),
    );
    const answer = await call(gh.url, 'GET', `/repos/acme/fleet/commits/${after}/pulls`, { token: gh.token });
    expect(answer.status).toBe(200);
    expect(list(answer)).toEqual([]);
  });
});
