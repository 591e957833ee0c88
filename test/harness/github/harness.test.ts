// The stand-in and the runner harness together: an action run on a pull request
// posts its comment through GITHUB_API_URL with the token from `${{ github.token }}`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GitHubStandIn,
  assertNoSecretLeak,
  fakeSha,
  pullRequestEvent,
  runAction,
  seedFromEvent,
  startGitHubStandIn,
} from './index.js';

const ACTION_YML = `name: probe
description: posts a comment
inputs:
  github-token:
    default: \${{ github.token }}
runs:
  using: node24
  main: index.mjs
`;

const ENTRY = `
import { readFileSync } from 'node:fs';
const event = JSON.parse(readFileSync(process.env.GITHUB_EVENT_PATH, 'utf8'));
const url = process.env.GITHUB_API_URL + '/repos/' + process.env.GITHUB_REPOSITORY + '/issues/' + event.number + '/comments';
const response = await fetch(url, {
  method: 'POST',
  headers: { authorization: 'Bearer ' + process.env['INPUT_GITHUB-TOKEN'], 'content-type': 'application/json' },
  body: JSON.stringify({ body: 'plan for ' + event.pull_request.head.sha.slice(0, 7) }),
});
const answer = await response.json();
if (response.status !== 201) {
  console.log('::error title=Comment not posted::' + response.status + ' ' + answer.message);
  process.exit(1);
}
console.log('posted ' + answer.html_url);
`;

describe('stand-in and runner harness together', () => {
  let gh: GitHubStandIn;
  let dir: string;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    dir = await mkdtemp(join(tmpdir(), 'harness-test-'));
    await writeFile(join(dir, 'action.yml'), ACTION_YML);
    await writeFile(join(dir, 'index.mjs'), ENTRY);
  });
  afterAll(async () => {
    await gh.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('posts a comment on the pull request of the event', async () => {
    const event = pullRequestEvent({ action: 'opened', repository: 'acme/fleet', number: 21, headSha: fakeSha('h21') });
    seedFromEvent(gh.state, event);
    const run = await runAction({
      actionYmlPath: join(dir, 'action.yml'),
      event,
      githubApiUrl: gh.url,
      token: gh.token,
    });
    expect(run.exitCode).toBe(0);
    const comments = gh.state.comments('acme', 'fleet', 21);
    expect(comments.map((c) => c.body)).toEqual([`plan for ${fakeSha('h21').slice(0, 7)}`]);
    expect(run.stdout).toContain(`https://github.com/acme/fleet/pull/21#issuecomment-${String(comments[0]?.id)}`);
    expect(gh.state.requestsTo('POST', /\/issues\/21\/comments$/)[0]?.headers.authorization).toBe('Bearer [redacted]');
    assertNoSecretLeak(
      run,
      [gh.token],
      comments.map((c) => c.body),
    );
  });

  it("fails with GitHub's 403 when a fork pull request only gets a read-only token", async () => {
    const event = pullRequestEvent({
      action: 'opened',
      repository: 'acme/fleet',
      number: 22,
      headSha: fakeSha('h22'),
      headRepository: 'mallory/fleet',
    });
    seedFromEvent(gh.state, event);
    const run = await runAction({
      actionYmlPath: join(dir, 'action.yml'),
      event,
      githubApiUrl: gh.url,
      token: gh.readOnlyToken,
    });
    expect(run.exitCode).toBe(1);
    expect(run.commands.find((c) => c.command === 'error')).toMatchObject({
      properties: { title: 'Comment not posted' },
      message: '403 Resource not accessible by integration',
    });
    expect(gh.state.comments('acme', 'fleet', 22)).toEqual([]);
  });
});
