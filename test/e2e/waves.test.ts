// End to end: a merge rolled out in waves (`strategy: waves`), as a workflow runs the action.
// The demo's runtime has one staging cluster and two production clusters: staging is a wave
// of its own, then both production clusters are applied at once, which the ChangeSet's
// start times and durations show; each cluster's log stays one group, printed as it ends.
//
// The bundle is the demo's renamed (bundle `waves`, namespace `waves`), so that other tests
// applying the demo bundle on the shared fleet are not disturbed.
import { beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

interface ClusterOutput {
  name: string;
  status: string;
  startedAt?: string;
  durationMs?: number;
}

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('waves');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "waves"' },
    { from: 'namespace: "shop"', to: 'namespace: "waves"' },
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

const clustersOf = (result: ActionRun) =>
  (JSON.parse(result.outputs.changes ?? '{}') as { clusters: ClusterOutput[] }).clusters;

function interval(cluster: ClusterOutput | undefined): [number, number] {
  if (!cluster?.startedAt || cluster.durationMs === undefined)
    throw new Error(`no timing for ${cluster?.name ?? 'a cluster'}`);
  const start = Date.parse(cluster.startedAt);
  return [start, start + cluster.durationMs];
}

describe('a rollout in waves', () => {
  it('applies staging first, then the production clusters at once, grouped per cluster in the log', async () => {
    const pr = stage.openPullRequest(31);
    stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
    const result = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      {
        strategy: 'waves',
        'max-parallel': '2',
      },
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(result.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');
    const clusters = clustersOf(result);
    expect(clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'applied'],
      ['production-eu', 'applied'],
      ['production-us', 'applied'],
    ]);
    const [staging, eu, us] = [interval(clusters[0]), interval(clusters[1]), interval(clusters[2])];
    // The production wave starts once staging has ended, and its two clusters overlap.
    expect(eu[0]).toBeGreaterThanOrEqual(staging[1]);
    expect(us[0]).toBeGreaterThanOrEqual(staging[1]);
    expect(Math.max(eu[0], us[0])).toBeLessThan(Math.min(eu[1], us[1]));
    // One log group per cluster, printed whole as each cluster ends: staging's first, then the
    // production clusters in the order they finished.
    const groups = result.commands.filter((c) => c.command === 'group').map((c) => (c.message ?? '').split(' ')[1]);
    expect(groups[0]).toBe('staging-1');
    expect([...groups].sort()).toEqual(['production-eu', 'production-us', 'staging-1']);
  });

  it('refuses a max-parallel below 1, naming the input', async () => {
    const pr = stage.openPullRequest(32);
    stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
    const result = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      {
        strategy: 'waves',
        'max-parallel': '0',
      },
    );
    expect(result.exitCode).toBe(1);
    expect(result.log).toContain('max-parallel');
  });
});
