// End to end: apply exactly what was reviewed (`reviewed`). A pull request's diff records
// each cluster's desired state in its comment; on merge the action compares before applying
// each cluster. A squash merge (a new commit, not the head) is matched to its pull request
// through `commits/{sha}/pulls`; a module tag re-pushed between review and merge is caught:
// `require` applies nothing and names the module digest and the objects that changed, `warn`
// applies and says so; a manual run (workflow_dispatch) says that it could not compare (under
// `require` it is refused: test/e2e/review-guards.test.ts).
//
// The bundle is the demo's renamed (bundle `reviewed`, namespace `reviewed`), so that other
// tests applying the demo bundle on the shared fleet are not disturbed.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeSha,
  pullRequestEvent,
  pushEvent,
  runAction,
  workflowDispatchEvent,
  type ActionRun,
} from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { exampleModule } from '../harness/fleet/fleet-registry.js';
import { pushTimoniModule } from '../harness/registry/index.js';
import { parseReviewedRecord } from '../../src/report/reviewed-block.js';
import type { ChangeSet } from '../../src/changeset.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('reviewed');
let stage: DemoStage;
const scratch = mkdtempSync(join(tmpdir(), 'timoni-fleet-reviewed-'));
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "reviewed"' },
    { from: 'namespace: "shop"', to: 'namespace: "reviewed"' },
  ]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(
  event: Parameters<typeof runAction>[0]['event'],
  inputs: Record<string, string>,
  sha?: string,
): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
    ...(sha ? { github: { sha } } : {}),
  });
}

const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;
const comments = (pr: number) => stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr);

/** Pushes the example module again under the same tag with another image tag: another digest, another Deployment. */
async function repushModule(): Promise<string> {
  const module = exampleModule();
  const dir = join(scratch, 'webapp');
  cpSync(module.moduleDir, dir, { recursive: true });
  const values = join(dir, 'values.cue');
  const text = readFileSync(values, 'utf8');
  if (!text.includes('tag:        "1.4.0"')) throw new Error(`${values}: the image tag line changed; update this test`);
  writeFileSync(values, text.replace('tag:        "1.4.0"', 'tag:        "1.4.1"'));
  const pushed = await pushTimoniModule({
    registry: stage.registry.url,
    repository: module.repository,
    tag: module.version,
    moduleDir: dir,
  });
  return pushed.digest;
}

describe('apply what was reviewed', () => {
  it('records the desired state in the comment and matches a squash merge to its pull request', async () => {
    const pr = stage.openPullRequest(41);
    const diff = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      {},
    );
    expect(diff.exitCode, diff.log).toBe(0);
    const record = parseReviewedRecord(comments(pr.number)[0]?.body ?? '');
    expect(record?.bundle).toBe('reviewed');
    expect(Object.keys(record?.clusters ?? {})).toEqual(['staging-1', 'production-eu', 'production-us']);
    expect(record?.clusters['staging-1']?.modules.frontend?.digest).toBe(stage.moduleDigest);
    expect(record?.clusters['staging-1']?.digest).toBe(changes(diff).clusters[0]?.desired?.digest);

    // Squash merge: the commit on main is new; only commits/{sha}/pulls links it to the pull request.
    const squash = fakeSha('squash-41');
    stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number, squash);
    const apply = await run(
      pushEvent({ repository, ref: 'refs/heads/main', before: fakeSha('main-before-41'), after: squash }),
      { reviewed: 'require' },
      squash,
    );
    expect(apply.exitCode, apply.log).toBe(0);
    expect(apply.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');
    expect(apply.summary).toContain(
      'Applied as reviewed in pull request &#35;41&#58; staging-1, production-eu, production-us.',
    );
    expect(apply.log).toContain('cluster staging-1: the desired state is the one reviewed in pull request #41');
  });

  it('require: a module tag re-pushed after the review stops the rollout at the first cluster, naming what changed', async () => {
    const pr = stage.openPullRequest(42);
    // As on GitHub, the pull request's run is at a temporary merge commit (GITHUB_SHA), not at its head.
    const temporaryMerge = 'e'.repeat(40);
    const diff = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      {},
      temporaryMerge,
    );
    expect(diff.exitCode, diff.log).toBe(0);
    expect(comments(pr.number)[0]?.body).toContain(`/commit/${pr.headSha})`);
    const reviewedDigest = stage.moduleDigest;
    const repushed = await repushModule();
    expect(repushed).not.toBe(reviewedDigest);

    stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number, pr.mergeCommitSha);
    const merged = pullRequestEvent({
      action: 'closed',
      merged: true,
      mergeCommitSha: pr.mergeCommitSha,
      repository,
      number: pr.number,
      headSha: pr.headSha,
    });
    const refused = await run(merged, { reviewed: 'require' });
    expect(refused.exitCode).toBe(1);
    expect(refused.outputs['applied-clusters']).toBe('');
    expect(refused.outputs['failed-cluster']).toBe('staging-1');
    const [staging, ...others] = changes(refused).clusters;
    expect(staging?.error?.step).toBe('review');
    expect(staging?.instances).toEqual([]);
    expect(others.map((c) => c.status)).toEqual(['skipped', 'skipped']);
    const message = staging?.error?.message ?? '';
    expect(message).toContain('the desired state differs from the one reviewed in pull request #42');
    // The commit named is the one the comment's headline links: the head, never the temporary merge commit.
    expect(message).toContain(`(diff of commit ${pr.headSha.slice(0, 7)})`);
    expect(message).not.toContain(temporaryMerge.slice(0, 7));
    const short = (digest: string) => `(sha256:${digest.replace('sha256:', '').slice(0, 12)})`;
    expect(message).toContain('module of instance frontend: reviewed oci://');
    expect(message).toContain(`:1.4.0 ${short(reviewedDigest)}, now oci://`);
    expect(message).toContain(`:1.4.0 ${short(repushed)}`);
    expect(message).toContain('objects changed: frontend/Deployment/reviewed/frontend');
    expect(message).toContain('nothing was applied to it');
    // The rollout comment keeps the record, so that a re-run compares with the same review.
    const body = comments(pr.number)[0]?.body ?? '';
    expect(parseReviewedRecord(body)?.clusters['staging-1']?.modules.frontend?.digest).toBe(reviewedDigest);

    // warn (a re-run of the merge job): applies, and says so in the job summary and the comment.
    const warned = await run(merged, { reviewed: 'warn' });
    expect(warned.exitCode, warned.log).toBe(0);
    expect(warned.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');
    expect(warned.summary).toContain('applied anyway (reviewed&#58; warn)');
    expect(warned.summary).toContain('frontend/Deployment/reviewed/frontend');
    const after = comments(pr.number)[0]?.body ?? '';
    expect(after).toContain('> [!WARNING]');
    expect(after).toContain('applied anyway');
    expect(warned.log).toContain(
      '##[warning]cluster staging-1: the desired state differs from the one reviewed in pull request #42',
    );
  });

  it('says in the job summary that a manual run (reviewed: warn) has no pull request to compare with', async () => {
    const sha = fakeSha('dispatch-reviewed');
    stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, sha);
    const dispatched = await run(
      workflowDispatchEvent({ repository, inputs: { mode: 'apply', cluster: 'staging-1' } }),
      { reviewed: 'warn', 'runtime-cluster': 'staging-1', mode: 'apply' },
      sha,
    );
    expect(dispatched.exitCode, dispatched.log).toBe(0);
    expect(dispatched.outputs['applied-clusters']).toBe('staging-1');
    expect(dispatched.summary).toContain(
      'What is applied was not compared with a review&#58; the run was started by workflow&#95;dispatch with no merged pull request.',
    );
  });
});
