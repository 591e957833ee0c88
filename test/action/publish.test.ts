// What a run publishes, against the GitHub stand-in: the pull request comment through a 502
// from GitHub, and a comment that cannot be posted reported (an annotation naming the pull
// request and GitHub's answer, a note in the job summary); it fails a diff, never a rollout.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGESET_FORMAT, type ChangeSet } from '../../src/changeset.js';
import { publishResults, type PublishInput } from '../../src/action/publish.js';
import type { Annotation } from '../../src/workflow-commands.js';
import { fakeSha, startGitHubStandIn, type GitHubStandIn } from '../harness/github/index.js';

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn();
  github.state.addRepository({ owner: 'acme', name: 'fleet', defaultBranch: 'main' });
});
afterAll(async () => {
  await github.stop();
});

function changeSet(mode: 'diff' | 'apply'): ChangeSet {
  return {
    format: CHANGESET_FORMAT,
    bundle: 'apps',
    mode,
    clusters: [
      {
        name: 'staging-1',
        group: 'staging',
        kubeContext: 'fleet-1',
        status: mode === 'diff' ? 'changed' : 'applied',
        error: null,
        instances: [
          {
            name: 'web',
            namespace: 'apps',
            module: {
              url: 'oci://registry.example/modules/webapp',
              version: '1.4.0',
              digest: `sha256:${'0'.repeat(64)}`,
            },
            changes: [
              {
                kind: 'ConfigMap',
                apiVersion: 'v1',
                namespace: 'apps',
                name: 'web',
                action: 'configured',
                diff: '--- live\n+++ desired\n@@ -1 +1 @@\n-a: 1\n+a: 2\n',
              },
            ],
          },
        ],
      },
    ],
  };
}

interface Published {
  outcome: Awaited<ReturnType<typeof publishResults>>;
  lines: string[];
  annotations: Annotation[];
  summary: string;
  outputs: string;
}

/** publishResults as a run calls it, on pull request `pullRequest` (undefined: a push, found from its commit). */
async function publish(
  mode: 'diff' | 'apply',
  pullRequest: number | undefined,
  sha = fakeSha(`head-${pullRequest ?? 'push'}`),
  edit: (changes: ChangeSet) => ChangeSet = (changes) => changes,
): Promise<Published> {
  const dir = mkdtempSync(join(tmpdir(), 'publish-'));
  const env = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    RUNNER_TEMP: dir,
    GITHUB_RUN_ID: '42',
  };
  writeFileSync(env.GITHUB_OUTPUT, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY, '');
  const lines: string[] = [];
  const annotations: Annotation[] = [];
  const input: PublishInput = {
    env,
    changeSet: edit(changeSet(mode)),
    context: {
      eventName: mode === 'apply' && pullRequest === undefined ? 'push' : 'pull_request',
      payload: {},
      owner: 'acme',
      repo: 'fleet',
      sha,
      ref: 'refs/heads/main',
      runUrl: 'https://github.com/acme/fleet/actions/runs/42',
      apiUrl: github.url,
    },
    plan: {
      mode,
      ...(pullRequest === undefined ? {} : { pullRequest }),
      sha,
      clusterGroup: '*',
      cluster: '*',
      reason: 'test',
    },
    secrets: [github.token],
    githubToken: github.token,
    comment: true,
    bundleFiles: ['bundle.cue'],
    api: { retryBaseMs: 10 },
    log: { line: (text) => void lines.push(text), annotate: (annotation) => void annotations.push(annotation) },
  };
  const outcome = await publishResults(input);
  return {
    outcome,
    lines,
    annotations,
    summary: readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8'),
    outputs: readFileSync(env.GITHUB_OUTPUT, 'utf8'),
  };
}

const commentsOn = (number: number) => github.state.comments('acme', 'fleet', number);

describe('publishResults and the pull request comment', () => {
  it('posts the comment through a 502 from GitHub', async () => {
    github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 1, headSha: fakeSha('head-1') });
    github.state.forceError({ status: 502, method: 'POST', path: /\/issues\/1\/comments$/, times: 1 });
    const published = await publish('diff', 1);
    expect(published.outcome).toMatchObject({ fails: false, comment: { kind: 'created', pullRequest: 1 } });
    expect(commentsOn(1)).toHaveLength(1);
    expect(published.annotations).toEqual([]);
    expect(published.outputs).toMatch(
      /comment-url<<.*\nhttps:\/\/github\.com\/acme\/fleet\/pull\/1#issuecomment-\d+\n/,
    );
  });

  it('reports a comment update that GitHub keeps refusing, and fails the diff', async () => {
    github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 2, headSha: fakeSha('head-2') });
    await publish('diff', 2);
    const [first] = commentsOn(2);
    github.state.forceError({ status: 502, method: 'PATCH', path: /\/issues\/comments\/\d+$/, times: 3 });
    const published = await publish('diff', 2);
    expect(published.outcome).toMatchObject({ fails: true, comment: { kind: 'failed', pullRequest: 2 } });
    expect(published.annotations).toHaveLength(1);
    expect(published.annotations[0]).toMatchObject({ level: 'error', title: 'PR comment not posted' });
    expect(published.annotations[0]?.message).toMatch(
      /^The comment on pull request #2 could not be posted: GitHub API PATCH \/repos\/acme\/fleet\/issues\/comments\/\d+ answered 502: Server Error; .*the step fails/,
    );
    expect(published.summary).toMatch(/The comment on pull request (#|&#35;)2 could not be posted/);
    expect(published.outputs).toMatch(/comment-url<<(\S+)\n\n\1\n/);
    // The earlier comment is still there, unchanged: the failed run says so instead.
    expect(commentsOn(2).map((c) => c.body)).toEqual([first?.body]);
  });

  it('reports a comment that fails after a rollout as a warning: the rollout does not fail', async () => {
    github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 3, headSha: fakeSha('head-3') });
    github.state.forceError({
      status: 500,
      message: 'Internal Server Error',
      method: 'POST',
      path: /\/issues\/3\/comments$/,
      times: 3,
    });
    const published = await publish('apply', 3);
    expect(published.outcome).toMatchObject({ fails: false, comment: { kind: 'failed', pullRequest: 3 } });
    expect(published.annotations).toEqual([
      expect.objectContaining({
        level: 'warning',
        title: 'PR comment not posted',
        message: expect.stringMatching(
          /^The comment on pull request #3 could not be posted: .*answered 500: Internal Server Error; the rollout is not affected/,
        ),
      }),
    ]);
    expect(published.summary).toContain('staging-1');
    expect(commentsOn(3)).toEqual([]);
  });

  it('reports a pull request that cannot be looked up for a pushed commit', async () => {
    const sha = fakeSha('push-lookup');
    github.state.addCommit('acme', 'fleet', sha);
    github.state.forceError({
      status: 503,
      message: 'Service Unavailable',
      path: /\/commits\/[0-9a-f]+\/pulls$/,
      times: 3,
    });
    const published = await publish('apply', undefined, sha);
    expect(published.outcome).toMatchObject({ fails: false, comment: { kind: 'failed' } });
    expect(published.annotations[0]).toMatchObject({
      level: 'warning',
      message: expect.stringContaining(
        `the pull request of commit ${sha.slice(0, 7)} could not be looked up: GitHub API GET /repos/acme/fleet/commits/${sha}/pulls answered 503: Service Unavailable`,
      ),
    });
  });

  it('passes a diff that a read-only token may not comment on, with a warning', async () => {
    github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 4, headSha: fakeSha('head-4') });
    const dir = mkdtempSync(join(tmpdir(), 'publish-'));
    writeFileSync(join(dir, 'output'), '');
    const annotations: Annotation[] = [];
    const outcome = await publishResults({
      env: { GITHUB_OUTPUT: join(dir, 'output') },
      changeSet: changeSet('diff'),
      context: {
        eventName: 'pull_request',
        payload: {},
        owner: 'acme',
        repo: 'fleet',
        sha: fakeSha('head-4'),
        ref: 'refs/pull/4/merge',
        runUrl: '',
        apiUrl: github.url,
      },
      plan: { mode: 'diff', pullRequest: 4, sha: fakeSha('head-4'), clusterGroup: '*', cluster: '*', reason: 'test' },
      secrets: [],
      githubToken: github.readOnlyToken,
      comment: true,
      bundleFiles: ['bundle.cue'],
      log: { line: () => undefined, annotate: (annotation) => void annotations.push(annotation) },
    });
    expect(outcome).toMatchObject({ fails: false, comment: { kind: 'not-permitted', pullRequest: 4 } });
    expect(annotations).toEqual([
      expect.objectContaining({
        level: 'warning',
        message: expect.stringContaining('Resource not accessible by integration'),
      }),
    ]);
  });

  it('leaves out of applied-clusters a cluster of a failed wave that was rolled back', async () => {
    const rolledBack = (changes: ChangeSet): ChangeSet => ({
      ...changes,
      clusters: [
        ...changes.clusters,
        ...changes.clusters.map((cluster) => ({
          ...cluster,
          name: 'staging-2',
          rollback: { outcome: 'rolled back' as const, wave: { failed: 'staging-3' } },
        })),
      ],
    });
    const { outputs } = await publish('apply', 17, fakeSha('rolled-back'), rolledBack);
    expect(outputs).toMatch(/applied-clusters<<[^\n]*\nstaging-1\n/);
    expect(outputs).not.toMatch(/applied-clusters<<[^\n]*\n[^\n]*staging-2/);
  });

  it('never puts the token in what it reports', async () => {
    github.state.addPullRequest({ owner: 'acme', repo: 'fleet', number: 5, headSha: fakeSha('head-5') });
    github.state.forceError({
      status: 502,
      message: `upstream said ${github.token}`,
      method: 'POST',
      path: /\/issues\/5\/comments$/,
      times: 3,
    });
    const published = await publish('diff', 5);
    expect(published.outcome.fails).toBe(true);
    const everything = JSON.stringify(published);
    expect(everything).not.toContain(github.token);
    expect(published.annotations[0]?.message).toContain('upstream said ***');
  });
});
