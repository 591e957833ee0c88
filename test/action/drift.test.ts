// The drift issue's lifecycle against the GitHub stand-in: opened, updated, closed with a
// comment; its body the PR comment's table and diffs under a drift headline, secrets masked,
// the way to reconcile in its footer; what fails the step and what does not.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import {
  driftedClusters,
  driftMarker,
  publishDrift,
  reconcileHint,
  renderDriftIssue,
  type DriftInput,
} from '../../src/action/drift.js';
import type { Annotation } from '../../src/workflow-commands.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import { fakeSha, startGitHubStandIn, type GitHubStandIn } from '../harness/github/index.js';
import {
  changeSet,
  cluster,
  deploymentConfigured,
  hugeConfigMap,
  instance,
  objectChange,
  unchanged,
} from '../report/fixtures.js';

const SECRET = 'hunter2-very-secret-value';
let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn({ now: () => new Date('2026-05-01T10:00:00Z') });
  github.state.addRepository({ owner: 'acme', name: 'fleet', defaultBranch: 'main' });
  github.state.addRepository({ owner: 'acme', name: 'no-issues', hasIssues: false });
});
afterAll(async () => {
  await github.stop();
});

const drifted = (): ChangeSet =>
  changeSet([
    cluster('staging-1', 'staging', [instance('web', [unchanged('ConfigMap', 'web')])]),
    cluster('production-eu', 'production', [
      instance('web', [
        deploymentConfigured('web', [5, 2], ['1.0.0', '1.0.0']),
        objectChange({
          kind: 'ConfigMap',
          name: 'env',
          action: 'configured',
          diff: `--- live\n+++ desired\n@@ -1 +1 @@\n-token: ${SECRET}\n+token: other\n`,
        }),
      ]),
    ]),
  ]);
const inSync = (): ChangeSet =>
  changeSet([
    cluster('staging-1', 'staging', [instance('web', [unchanged('ConfigMap', 'web')])]),
    cluster('production-eu', 'production', [instance('web', [unchanged('Deployment', 'web', 'apps/v1')])]),
  ]);

function input(
  set: ChangeSet,
  overrides: Partial<DriftInput> = {},
): { input: DriftInput; annotations: Annotation[]; lines: string[]; outputs: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'drift-test-'));
  const env = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_WORKFLOW_REF: 'acme/fleet/.github/workflows/drift.yml@refs/heads/main',
    GITHUB_WORKFLOW: 'Fleet drift',
  };
  writeFileSync(env.GITHUB_OUTPUT, '');
  const annotations: Annotation[] = [];
  const lines: string[] = [];
  const value: DriftInput = {
    env,
    changeSet: set,
    context: {
      eventName: 'schedule',
      payload: {},
      owner: 'acme',
      repo: 'fleet',
      sha: fakeSha('main'),
      ref: 'refs/heads/main',
      runUrl: 'https://github.com/acme/fleet/actions/runs/7',
      apiUrl: github.url,
    },
    plan: { mode: 'drift', sha: fakeSha('main'), clusterGroup: '*', cluster: '*', reason: 'drift check on schedule' },
    secrets: [SECRET],
    githubToken: github.token,
    issue: true,
    labels: ['drift'],
    bundleFiles: ['bundle.cue'],
    api: { retries: 0 },
    log: { line: (text) => lines.push(text), annotate: (a) => annotations.push(a) },
    now: () => new Date('2026-05-01T10:00:00Z'),
    ...overrides,
  };
  return { input: value, annotations, lines, outputs: () => readFileSync(env.GITHUB_OUTPUT, 'utf8') };
}

describe('renderDriftIssue', () => {
  it("frames the PR comment's table and diffs: marker, drift headline, masked diff, the reconcile command", () => {
    const set = drifted();
    const context = {
      commitSha: fakeSha('main'),
      repository: 'acme/fleet',
      runUrl: 'https://github.com/acme/fleet/actions/runs/7',
      secrets: [SECRET],
      bundleFiles: ['bundle.cue'],
    };
    const hint = reconcileHint(
      { GITHUB_WORKFLOW_REF: 'acme/fleet/.github/workflows/drift.yml@refs/heads/main', GITHUB_WORKFLOW: 'Fleet drift' },
      {
        eventName: 'schedule',
        payload: {},
        owner: 'acme',
        repo: 'fleet',
        sha: '',
        ref: 'refs/heads/main',
        runUrl: '',
        apiUrl: '',
      },
    );
    const { title, body } = renderDriftIssue(set, context, hint, new Date('2026-05-01T10:00:00Z'));
    expect(title).toBe('Drift detected in bundle apps');
    expect(
      body.startsWith('<!-- timoni-fleet:drift:bundle=apps -->\n### Drift detected in bundle <code>apps</code>\n'),
    ).toBe(true);
    expect(body).toContain('on **1 of 2** clusters (<code>production-eu</code>)');
    expect(body).toContain('| Cluster |');
    expect(body).toContain('-  replicas: 5');
    expect(body).not.toContain(SECRET);
    expect(body).toContain('```sh\ngh workflow run drift.yml --repo acme/fleet --ref main -f mode=apply\n```');
    expect(body).toContain('<code>-f cluster=production-eu</code>');
    expect(body).toContain('<code>Fleet drift</code>');
  });

  it("stays within GitHub's limit with the footer counted", () => {
    const big = changeSet([
      cluster('c1', 'g', [instance('web', [hugeConfigMap('a', 6000), hugeConfigMap('b', 6000)])]),
    ]);
    const { body } = renderDriftIssue(
      big,
      { commitSha: fakeSha('x'), secrets: [] },
      { repository: 'acme/fleet', workflowFile: 'drift.yml', ref: 'main', workflowName: '' },
      new Date(),
    );
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('**Reconcile**');
  });

  it("names only changed clusters as drifted, and its marker is not the PR comment's", () => {
    expect(driftedClusters(drifted())).toEqual(['production-eu']);
    expect(driftedClusters(inSync())).toEqual([]);
    expect(driftMarker('apps')).toBe('<!-- timoni-fleet:drift:bundle=apps -->');
  });
});

describe('publishDrift', () => {
  it('opens the issue, updates it, then closes it with a comment once in sync', async () => {
    const first = input(drifted());
    const opened = await publishDrift(first.input);
    expect(opened).toMatchObject({ drifted: ['production-eu'], fails: false, issue: { kind: 'created' } });
    expect(first.outputs()).toMatch(/drifted-clusters<<.*\nproduction-eu\n/);
    const number = opened.issue.kind === 'created' ? opened.issue.number : -1;

    const again = await publishDrift(input(drifted()).input);
    expect(again.issue).toMatchObject({ kind: 'updated', number });

    const sync = input(inSync());
    const closed = await publishDrift(sync.input);
    expect(closed).toMatchObject({ drifted: [], fails: false, issue: { kind: 'closed', number } });
    expect(sync.outputs()).toMatch(/drifted-clusters<<.*\n\n/);
    const record = github.state.issueList('acme', 'fleet').find((i) => i.number === number);
    expect(record).toMatchObject({ state: 'closed', stateReason: 'completed', labels: ['drift'] });
    expect(github.state.comments('acme', 'fleet', number).map((c) => c.body)).toEqual([
      expect.stringContaining('In sync again at commit'),
    ]);

    // In sync with no issue open: nothing is written.
    const quiet = await publishDrift(input(inSync()).input);
    expect(quiet.issue).toEqual({ kind: 'none', reason: 'every cluster in sync and no drift issue open' });
  });

  it('leaves an open issue open while a cluster could not be checked and none drifted', async () => {
    const opened = await publishDrift(input(drifted()).input);
    const number = opened.issue.kind === 'created' || opened.issue.kind === 'updated' ? opened.issue.number : -1;
    const partial = changeSet([
      cluster('staging-1', 'staging', [], { status: 'failed', error: { step: 'connect', message: 'no route' } }),
      cluster('production-eu', 'production', [instance('web', [unchanged('Deployment', 'web')])]),
    ]);
    const outcome = await publishDrift(input(partial).input);
    expect(outcome.issue.kind).toBe('none');
    expect(github.state.issueList('acme', 'fleet').find((i) => i.number === number)?.state).toBe('open');
    await publishDrift(input(inSync()).input);
  });

  it('fails the step when the issue cannot be written, saying why; drift-issue false writes nothing', async () => {
    const readOnly = input(drifted(), { githubToken: github.readOnlyToken });
    const refused = await publishDrift(readOnly.input);
    expect(refused.fails).toBe(true);
    expect(readOnly.annotations[0]).toMatchObject({ level: 'error', title: 'drift issue not written' });
    expect(readOnly.annotations[0]?.message).toContain('issues: write');

    const disabled = input(drifted(), { context: { ...input(drifted()).input.context, repo: 'no-issues' } });
    const gone = await publishDrift(disabled.input);
    expect(gone.fails).toBe(true);
    expect(disabled.annotations[0]?.message).toMatch(/410.*Issues are disabled.*drift-issue: false/);

    const off = input(drifted(), { issue: false });
    const before = github.state.requests.length;
    expect(await publishDrift(off.input)).toMatchObject({
      fails: false,
      issue: { kind: 'none' },
      drifted: ['production-eu'],
    });
    expect(github.state.requests.length).toBe(before);
    expect(off.annotations[0]).toMatchObject({ level: 'warning', title: 'drift found' });
  });
});
