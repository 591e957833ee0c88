// End to end: the fan-out of issue 13 as a workflow runs it. A `mode: matrix` job prints the
// shards; one `diff` job per shard writes its ChangeSet file (`changes-file`, comment off, as
// the matrix jobs of the README's workflow); one `mode: report` job, with no kubeconfig,
// merges the files as actions/download-artifact leaves them and posts the one comment,
// which equals the comment of a single job that diffs every cluster. A shard whose job
// uploaded nothing is named in the comment and fails the report job. A ChangeSet file that
// the pull request committed (without a commit, or with the run's commit but tracked by git
// in the checkout) is refused, naming the file, and its digests never reach the comment's
// review record.
//
// The bundle is the demo's renamed (bundle `fanout`, namespace `fanout`), so that other
// tests applying the demo bundle on the shared fleet do not change what is diffed here.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { parseReviewedRecord } from '../../src/report/reviewed-block.js';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

interface MatrixEntry {
  shard: string;
  'runtime-group': string;
  'runtime-cluster': string;
  clusters: string;
}

interface ChangeSetOutput {
  bundle: string;
  mode: string;
  commit?: string;
  clusters: Array<{ name: string; status: string; error: { step: string; message: string } | null }>;
}

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('fanout');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "fanout"' },
    { from: 'namespace: "shop"', to: 'namespace: "fanout"' },
  ]);
});

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string>): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

const opened = (pr: { number: number; headSha: string }) =>
  pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha });
const comments = (number: number) => stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, number);
const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSetOutput;
const matrixOf = (result: ActionRun) => JSON.parse(result.outputs.matrix ?? '{}') as { include: MatrixEntry[] };

/**
 * The one thing that legitimately differs between the two comments: the pull request's
 * head commit, another one for the fan-out's pull request than for the single job's. The
 * job summaries also differ in each cluster's wall time (`1.2 s`, `850 ms`) and in the
 * address of the comment they link to.
 */
function normalised(text: string, headSha: string, summary = false): string {
  const shaFree = text.replaceAll(headSha, '<head>').replaceAll(headSha.slice(0, 7), '<head>');
  if (!summary) return shaFree;
  return shaFree
    .replace(/\b\d+(?:\.\d)? (?:ms|s)\b/g, '<duration>')
    .replace(/\b\d+ min \d{2} s\b/g, '<duration>')
    .replace(/\/pull\/\d+#issuecomment-\d+/g, '/pull/<number>#<comment>');
}

describe('fan-out across matrix jobs with one merged report', () => {
  let single: { body: string; summary: string; headSha: string };

  it('prints the shards as a matrix without a kubeconfig, by cluster, group or number', async () => {
    const pr = opened(stage.openPullRequest(20));
    const byCluster = await run(pr, { mode: 'matrix', 'shard-by': 'cluster', kubeconfig: '' });
    expect(byCluster.exitCode, byCluster.log).toBe(0);
    expect(matrixOf(byCluster)).toEqual({
      include: [
        { shard: 'staging-1', 'runtime-group': '*', 'runtime-cluster': 'staging-1', clusters: 'staging-1' },
        { shard: 'production-eu', 'runtime-group': '*', 'runtime-cluster': 'production-eu', clusters: 'production-eu' },
        { shard: 'production-us', 'runtime-group': '*', 'runtime-cluster': 'production-us', clusters: 'production-us' },
      ],
    });
    expect(byCluster.outputs.changes).toBeUndefined();
    const byGroup = await run(pr, { mode: 'matrix', kubeconfig: '' });
    expect(
      matrixOf(byGroup).include.map((e) => [e.shard, e['runtime-group'], e['runtime-cluster'], e.clusters]),
    ).toEqual([
      ['staging', 'staging', '*', 'staging-1'],
      ['production', 'production', '*', 'production-eu,production-us'],
    ]);
    const byTwo = await run(pr, { mode: 'matrix', 'shard-by': '2', kubeconfig: '' });
    expect(matrixOf(byTwo).include.map((e) => e['runtime-cluster'])).toEqual([
      'staging-1,production-eu',
      'production-us',
    ]);
    expect(comments(20)).toHaveLength(0);
  });

  it('a single job diffs every cluster into one comment (the reference)', async () => {
    const pr = stage.openPullRequest(21);
    const result = await run(opened(pr), {});
    expect(result.exitCode, result.log).toBe(0);
    expect(changes(result).clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'changed'],
      ['production-eu', 'changed'],
      ['production-us', 'changed'],
    ]);
    // Every mode that reads the runtime sets the matrix output.
    expect(matrixOf(result).include.map((e) => e.shard)).toEqual(['staging', 'production']);
    expect(comments(21)).toHaveLength(1);
    single = { body: comments(21)[0]?.body ?? '', summary: result.summary, headSha: pr.headSha };
  });

  it("three diff jobs with changes-file and one report job post one comment equal to the single job's", async () => {
    const pr = stage.openPullRequest(22);
    const matrix = matrixOf(await run(opened(pr), { mode: 'matrix', 'shard-by': 'cluster', kubeconfig: '' }));
    expect(matrix.include).toHaveLength(3);
    // The matrix jobs: each its shard, its file where upload-artifact takes it, no comment.
    const shards = await Promise.all(
      matrix.include.map((entry) =>
        run(opened(pr), {
          'runtime-group': entry['runtime-group'],
          'runtime-cluster': entry['runtime-cluster'],
          'changes-file': `changesets/changes-${entry.shard}/changes.json`,
          comment: 'false',
        }),
      ),
    );
    for (const [index, shard] of shards.entries()) {
      expect(shard.exitCode, shard.log).toBe(0);
      expect(shard.outputs['changes-file']).toBe(
        join(stage.workdir, 'changesets', `changes-${matrix.include[index]?.shard}`, 'changes.json'),
      );
      expect(changes(shard).commit).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(comments(22)).toHaveLength(0);

    const report = await run(opened(pr), {
      mode: 'report',
      changes: 'changesets/*/changes.json',
      'shard-by': 'cluster',
      kubeconfig: '',
    });
    expect(report.exitCode, report.log).toBe(0);
    expect(report.outputs['has-changes']).toBe('true');
    expect(changes(report)).toMatchObject({ bundle: 'fanout', mode: 'diff' });
    expect(changes(report).clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'changed'],
      ['production-eu', 'changed'],
      ['production-us', 'changed'],
    ]);
    expect(comments(22)).toHaveLength(1);
    const body = comments(22)[0]?.body ?? '';
    expect(body).toContain(pr.headSha.slice(0, 7));
    expect(normalised(body, pr.headSha)).toBe(normalised(single.body, single.headSha));
    expect(report.outputs['comment-url']).toMatch(/\/pull\/22#issuecomment-\d+$/);
    // The job summary too, but for each cluster's wall time and the comment's address.
    expect(normalised(report.summary, pr.headSha, true)).toBe(normalised(single.summary, single.headSha, true));
    // A second report (a re-run) updates the same comment.
    const again = await run(opened(pr), {
      mode: 'report',
      changes: 'changesets/*/changes.json',
      'shard-by': 'cluster',
      kubeconfig: '',
    });
    expect(again.exitCode, again.log).toBe(0);
    expect(comments(22)).toHaveLength(1);
  });

  it('names a shard whose job uploaded nothing in the comment, and fails the report job after posting', async () => {
    const pr = stage.openPullRequest(23);
    rmSync(join(stage.workdir, 'changesets-23'), { recursive: true, force: true });
    // Only the staging group's job uploaded; the production group's job failed before it.
    const stagingJob = await run(opened(pr), {
      'runtime-group': 'staging',
      'changes-file': 'changesets-23/changes-staging/changes.json',
      comment: 'false',
    });
    expect(stagingJob.exitCode, stagingJob.log).toBe(0);

    const report = await run(opened(pr), { mode: 'report', changes: 'changesets-23/**/*.json', kubeconfig: '' });
    expect(report.exitCode).toBe(1);
    const message =
      'no ChangeSet from the matrix job of shard "production" (clusters production-eu, production-us): did that job fail before uploading?';
    expect(changes(report).clusters.map((c) => [c.name, c.status, c.error?.message ?? null])).toEqual([
      ['staging-1', 'changed', null],
      ['production-eu', 'failed', message],
      ['production-us', 'failed', message],
    ]);
    expect(comments(23)).toHaveLength(1);
    const body = comments(23)[0]?.body ?? '';
    expect(body).toContain('staging-1');
    expect(body).toContain('no ChangeSet from the matrix job of shard');
    expect(body).toContain('production-eu, production-us');
    const errors = report.commands.filter((c) => c.command === 'error').map((c) => c.message);
    expect(errors).toContain(`report: ${message}`);
    expect(report.outputs['failed-cluster']).toBe('production-eu');
  });

  it('refuses a cluster present in two files, naming both, and posts nothing', async () => {
    const pr = stage.openPullRequest(24);
    const job = await run(opened(pr), {
      'runtime-cluster': 'staging-1',
      'changes-file': 'changesets-24/a/changes.json',
      comment: 'false',
      'runtime-group': '*',
    });
    expect(job.exitCode, job.log).toBe(0);
    const twice = await run(opened(pr), {
      'runtime-group': 'staging',
      'changes-file': 'changesets-24/b/changes.json',
      comment: 'false',
    });
    expect(twice.exitCode, twice.log).toBe(0);
    const report = await run(opened(pr), { mode: 'report', changes: 'changesets-24/*/changes.json', kubeconfig: '' });
    expect(report.exitCode).toBe(1);
    expect(report.log).toContain(
      'cluster "staging-1" is in two ChangeSet files, changesets-24/a/changes.json and changesets-24/b/changes.json',
    );
    expect(comments(24)).toHaveLength(0);
  });
});

describe('a ChangeSet file the pull request committed', () => {
  // The digests a forged ChangeSet claims for the production clusters: a later `reviewed:
  // require` merge would apply whatever matches them, had they reached the review record.
  const SENTINEL = 'badc0ffee0ddf00d'.repeat(4);

  /** A ChangeSet for the production shard, whose matrix job never ran: "no changes", with digests of the author's choosing. */
  function forgedProduction(commit?: string): ChangeSet {
    const desired = {
      digest: SENTINEL,
      modules: { podinfo: { url: 'oci://forged/podinfo', version: '6.5.0', digest: `sha256:${SENTINEL}` } },
      objects: { 'podinfo/Deployment/fanout/podinfo': SENTINEL.slice(0, 16) },
      objectCount: 1,
    };
    return {
      format: 1,
      bundle: 'fanout',
      mode: 'diff',
      ...(commit ? { commit } : {}),
      clusters: ['production-eu', 'production-us'].map((name) => ({
        name,
        group: 'production',
        kubeContext: name,
        status: 'unchanged',
        error: null,
        instances: [],
        desired,
      })),
    };
  }

  function writeForged(path: string, changeSet: ChangeSet): void {
    mkdirSync(join(stage.workdir, path, '..'), { recursive: true });
    writeFileSync(join(stage.workdir, path), `${JSON.stringify(changeSet, null, 2)}\n`);
  }

  /** No comment of the pull request, nor the report's outputs, holds the forged digests. */
  function expectNoSentinel(number: number, report: ActionRun): void {
    for (const { body } of comments(number)) {
      expect(body).not.toContain(SENTINEL.slice(0, 16));
      const record = parseReviewedRecord(body);
      for (const state of Object.values(record?.clusters ?? {})) expect(state.digest).not.toBe(SENTINEL);
    }
    expect(report.outputs.changes ?? '').not.toContain(SENTINEL.slice(0, 16));
    expect(report.summary).not.toContain(SENTINEL.slice(0, 16));
  }

  it('refuses a file without a commit, naming it, and posts nothing', async () => {
    const pr = stage.openPullRequest(25);
    const stagingJob = await run(opened(pr), {
      'runtime-group': 'staging',
      'changes-file': 'changesets-25/changes-staging/changes.json',
      comment: 'false',
    });
    expect(stagingJob.exitCode, stagingJob.log).toBe(0);
    // The pull request commits a ChangeSet where the production job's artifact would be downloaded.
    writeForged('changesets-25/changes-production/changes.json', forgedProduction());

    const report = await run(opened(pr), { mode: 'report', changes: 'changesets-25/*/changes.json', kubeconfig: '' });
    // First what is at stake: the forged digests in the review record a `require` merge trusts.
    expectNoSentinel(25, report);
    expect(report.exitCode, report.log).toBe(1);
    expect(report.log).toContain('changesets-25/changes-production/changes.json: has no commit');
    expect(comments(25)).toHaveLength(0);
  });

  it("refuses a file with the run's commit that git tracks in the checkout, and accepts the untracked artifacts beside it", async () => {
    const pr = stage.openPullRequest(26);
    const stagingJob = await run(opened(pr), {
      'runtime-group': 'staging',
      'changes-file': 'changesets-26/changes-staging/changes.json',
      comment: 'false',
    });
    expect(stagingJob.exitCode, stagingJob.log).toBe(0);
    const commit = changes(stagingJob).commit;
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    const forged = 'changesets-26/changes-production/changes.json';
    writeForged(forged, forgedProduction(commit));
    // The workspace is the pull request's checkout: a git repository holding the forged file.
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.name=author', '-c', 'user.email=author@example.com', '-c', 'commit.gpgsign=false', ...args],
        { cwd: stage.workdir, stdio: 'pipe' },
      );
    try {
      git('init', '--quiet', '--initial-branch=main');
      git('add', 'bundle.cue', 'runtime.cue', forged);
      git('commit', '--quiet', '-m', 'forged ChangeSet');

      const report = await run(opened(pr), { mode: 'report', changes: 'changesets-26/*/changes.json', kubeconfig: '' });
      expect(report.exitCode, report.log).toBe(1);
      expect(report.log).toContain(
        `${forged}: tracked by git in the checkout; a ChangeSet must come from a matrix job's artifact, not from the repository`,
      );
      expect(comments(26)).toHaveLength(0);
      expectNoSentinel(26, report);

      // Without the forged file, the staging job's artifact (untracked, in the same checkout) is
      // read, and the production shard is what it is: a job that uploaded nothing.
      git('rm', '--quiet', forged);
      git('commit', '--quiet', '-m', 'no forged ChangeSet');
      const honest = await run(opened(pr), { mode: 'report', changes: 'changesets-26/*/changes.json', kubeconfig: '' });
      expect(honest.exitCode).toBe(1);
      expect(changes(honest).clusters.map((c) => [c.name, c.status])).toEqual([
        ['staging-1', 'changed'],
        ['production-eu', 'failed'],
        ['production-us', 'failed'],
      ]);
      expect(comments(26)).toHaveLength(1);
      expect(comments(26)[0]?.body).toContain('no ChangeSet from the matrix job of shard');
      expect(parseReviewedRecord(comments(26)[0]?.body ?? '')?.clusters).toHaveProperty('staging-1');
      expectNoSentinel(26, honest);
    } finally {
      rmSync(join(stage.workdir, '.git'), { recursive: true, force: true });
    }
  });
});
