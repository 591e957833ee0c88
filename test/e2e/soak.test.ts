// End to end: soak gates between waves (`soak`), as a workflow runs the action on a merge.
// The demo's runtime has one staging cluster, then two production clusters; with
// `strategy: waves` staging is a wave of its own. With `soak: 20s`, once the log shows the
// soak of the staging wave, the test turns staging's Deployment not ready (the harness's
// `turn-not-ready` marker: its replicas become unavailable, as when its pods start failing):
// staging fails at step `soak` naming the Deployment, production is not reached, and the
// ChangeSet, the job summary and the PR's rollout comment say so. Without anything turning
// not ready, every wave is applied and the log shows each soak start and pass.
//
// The bundle is the demo's renamed (bundle `soak`, namespace `soak`), so that other tests
// applying the demo bundle on the shared fleet are not disturbed.
import { beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runAction, type ActionRun, type RunningAction } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { setNotReadyMarker } from '../harness/fleet/readiness.js';
import { clusterClient } from '../harness/fleet/test-context.js';

interface ClusterOutput {
  name: string;
  status: string;
  error: { step: string; message: string; instance?: string; object?: string } | null;
  instances: Array<{ name: string; changes: Array<{ kind: string; name: string; readiness?: { status: string } }> }>;
}

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('soak');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "soak"' },
    { from: 'namespace: "shop"', to: 'namespace: "soak"' },
  ]);
});

/** Staging's Deployment (context fleet-1 in examples/runtime.cue). */
const stagingDeployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'soak', name: 'frontend' };

function merge(
  number: number,
  inputs: Record<string, string>,
  whileRunning?: (running: RunningAction) => Promise<void>,
): Promise<ActionRun> {
  const pr = stage.openPullRequest(number);
  stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
  return runAction({
    event: pullRequestEvent({
      action: 'closed',
      merged: true,
      mergeCommitSha: pr.mergeCommitSha,
      repository,
      number: pr.number,
      headSha: pr.headSha,
    }),
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    timeoutMs: 150_000,
    ...(whileRunning ? { whileRunning } : {}),
  });
}

const clustersOf = (result: ActionRun) =>
  (JSON.parse(result.outputs.changes ?? '{}') as { clusters: ClusterOutput[] }).clusters;

const lastComment = (number: number) =>
  stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, number).at(-1)?.body ?? '';

describe('soak gates between waves', () => {
  it('applies every wave when nothing turns not ready, the log showing each soak', async () => {
    const result = await merge(61, { strategy: 'waves', soak: '5s' });
    expect(result.exitCode, result.log).toBe(0);
    expect(clustersOf(result).map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'applied'],
      ['production-eu', 'applied'],
      ['production-us', 'applied'],
    ]);
    expect(result.log).toMatch(/soak of wave 1 of 2 \(group staging\): watching \d+ object\(s\) on staging-1 for 5s/);
    expect(result.log).toContain('soak of wave 1 of 2 (group staging) passed: every object stayed ready for 5s');
    expect(result.log).toMatch(
      /soak of wave 2 of 2 \(group production\): watching \d+ object\(s\) on production-eu, production-us for 5s/,
    );
    expect(result.log).toContain('soak of wave 2 of 2 (group production) passed');
    // The production wave starts only once staging's soak has passed.
    const passed = result.log.indexOf('soak of wave 1 of 2 (group staging) passed');
    expect(passed).toBeGreaterThan(0);
    expect(result.log.indexOf('wave 2 of 2: group production')).toBeGreaterThan(passed);
  }, 180_000);

  it("fails the wave at step soak when staging's Deployment turns not ready, and never reaches production", async () => {
    const client = clusterClient('fleet-1');
    let markedAt = 0;
    try {
      const result = await merge(62, { strategy: 'waves', soak: '20s' }, async (running) => {
        await running.waitForLine(/soak of wave 1 of 2 \(group staging\): watching/, 120_000);
        await setNotReadyMarker(client, stagingDeployment, 'turn-not-ready');
        markedAt = Date.now();
        await running.ended;
      });
      expect(markedAt).toBeGreaterThan(0);
      expect(result.exitCode, result.log).toBe(1);
      const clusters = clustersOf(result);
      expect(clusters.map((c) => [c.name, c.status])).toEqual([
        ['staging-1', 'failed'],
        ['production-eu', 'skipped'],
        ['production-us', 'skipped'],
      ]);
      const staging = clusters[0];
      expect(staging?.error).toMatchObject({
        step: 'soak',
        instance: 'frontend',
        object: 'Deployment/soak/frontend',
      });
      expect(staging?.error?.message).toMatch(
        /^cluster staging-1: Deployment\/soak\/frontend of instance frontend turned not ready during the soak, .* into 20s: status 'InProgress': Available: 0\/1$/,
      );
      // The Deployment's readiness in the ChangeSet is the one the soak saw.
      const deployment = staging?.instances[0]?.changes.find((c) => c.kind === 'Deployment');
      expect(deployment?.readiness?.status).toBe('InProgress');
      // Told as it happened, and the rollout stopped: production's wave never started.
      expect(result.log).toContain('turned not ready during the soak');
      expect(result.log).toMatch(/soak of wave 1 of 2 \(group staging\) failed after .*: staging-1 turned not ready/);
      expect(result.log).not.toContain('wave 2 of 2');
      expect(result.log).toContain('rollout stopped in the wave of group staging: failed staging-1');
      expect(result.commands.some((c) => c.command === 'error' && /turned not ready/.test(c.message ?? ''))).toBe(true);
      // The job summary and the PR's rollout comment name the step and the clusters not reached.
      for (const report of [result.summary, lastComment(62)]) {
        expect(report).toContain('Rollout stopped at <code>staging-1</code> (failed at <code>soak</code>)');
        expect(report).toContain('production-eu');
        expect(report).toContain('not reached');
      }
      // Production was not touched by this run: its Deployment is the one of the first test.
      const production = await clusterClient('fleet-2').get(stagingDeployment);
      expect(production.metadata.annotations?.['test.timoni-fleet.io/turn-not-ready']).toBeUndefined();
    } finally {
      await setNotReadyMarker(client, stagingDeployment, undefined);
    }
  }, 180_000);
});
