// End to end: `mode: status` as a workflow runs the action (issue 14, part 4). After staging
// alone is applied, the status says deployed on staging and not installed on the production
// clusters, in the job summary table and in the `status` output; once the bundle changes,
// staging is stale. With `status-issue: true` the same table is kept in one issue, updated in
// place by the next run. Every state on real clusters is tested in test/fleet/fleet-state.test.ts.
//
// The bundle is the demo's renamed (bundle `statusdemo`, namespace `statusdemo`), so that
// other tests applying the demo bundle on the shared fleet are not disturbed.
import { beforeAll, describe, expect, it } from 'vitest';
import type { FleetState } from '../../src/fleet/instance-state.js';
import { runAction, workflowDispatchEvent, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('statusdemo');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "statusdemo"' },
    { from: 'namespace: "shop"', to: 'namespace: "statusdemo"' },
  ]);
});

function run(inputs: Record<string, string>): Promise<ActionRun> {
  const event = workflowDispatchEvent({ repository, inputs: {} });
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

const stateOf = (result: ActionRun) => JSON.parse(result.outputs.status ?? '{}') as FleetState;
const rowsOf = (state: FleetState) => state.instances.map((row) => [row.cluster, row.instance, row.state]);

describe('mode: status', () => {
  it('publishes each cluster x instance state as a job summary table and the status output', async () => {
    const applied = await run({ mode: 'apply', 'runtime-cluster': 'staging-1' });
    expect(applied.exitCode, applied.log).toBe(0);

    const result = await run({ mode: 'status' });
    expect(result.exitCode, result.log).toBe(0);
    const state = stateOf(result);
    expect(state.bundle).toBe('statusdemo');
    expect(rowsOf(state)).toEqual([
      ['staging-1', 'frontend', 'deployed'],
      ['production-eu', 'frontend', 'not installed'],
      ['production-us', 'frontend', 'not installed'],
    ]);
    expect(state.instances[0]?.module).toMatchObject({ version: '1.4.0', digest: stage.moduleDigest });
    expect(result.summary).toContain('## timoni-fleet status: statusdemo');
    expect(result.summary).toContain(
      '| Cluster | Group | Instance | Namespace | State | Module | Digest | Last applied | Ready | Reason |',
    );
    expect(result.summary).toMatch(
      /\| staging-1 \| staging \| <code>frontend<\/code> \| statusdemo \| ✅ deployed \| 1\.4\.0 \| <code>sha256&#58;[0-9a-f]{12}<\/code> \|/,
    );
    expect(result.summary).toContain('**1 deployed** · 0 stale · **2 not installed** · 0 failed · 0 unknown');
    // No issue unless asked.
    expect(
      stage.github.state
        .issueList(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name)
        .filter((issue) => issue.body?.includes('timoni-fleet-status')),
    ).toEqual([]);
  });

  it('says stale once the bundle changes, and keeps the table in one issue with status-issue', async () => {
    stage.editBundle([{ from: 'message: "Hello from', to: 'message: "Hi from' }]);
    const first = await run({ mode: 'status', 'status-issue': 'true', 'runtime-cluster': 'staging-1' });
    expect(first.exitCode, first.log).toBe(0);
    const row = stateOf(first).instances[0];
    expect(row?.state).toBe('stale');
    expect(row?.reason).toBe('drifted: ConfigMap/statusdemo/frontend configured');
    const issues = () =>
      stage.github.state
        .issueList(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name)
        .filter((issue) => issue.body?.startsWith('<!-- timoni-fleet-status: statusdemo -->'));
    expect(issues()).toHaveLength(1);
    const issue = issues()[0]!;
    expect(issue.title).toBe('timoni-fleet status: statusdemo');
    expect(issue.body).toContain('🟠 stale');
    expect(first.summary).toContain(`was created`);

    const second = await run({ mode: 'status', 'status-issue': 'true' });
    expect(second.exitCode, second.log).toBe(0);
    expect(issues()).toHaveLength(1);
    expect(issues()[0]?.number).toBe(issue.number);
    expect(issues()[0]?.body).toContain('⚪ not installed');
    expect(second.summary).toContain('was updated');
  });
});
