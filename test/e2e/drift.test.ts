// End to end: `mode: drift` on a schedule, as a workflow runs the action. After a rollout, a
// Deployment is scaled out of band on one cluster: a drift run opens one issue for the bundle
// with the diff, a second drift run updates the same issue, a dispatch with `mode: apply`
// reconciles, and the next drift run closes the issue with a comment. `drifted-clusters`
// names the drifted cluster; drift found does not fail the step.
//
// The bundle is the demo's renamed (bundle `drift`, namespace `drift`), so that other tests
// applying the demo bundle on the shared fleet are not disturbed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoSecretLeak,
  fakeSha,
  runAction,
  workflowDispatchEvent,
  type ActionRun,
  type GitHubEvent,
} from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { KubeClient, type KubeObject } from '../harness/fleet/kube-client.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const MARKER = '<!-- timoni-fleet:drift:bundle=drift -->';
const currentStage = useDemoStage('drift');
let stage: DemoStage;
let kube: KubeClient;

beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "drift"' },
    { from: 'namespace: "shop"', to: 'namespace: "drift"' },
  ]);
  kube = KubeClient.fromKubeconfig(stage.kubeconfig, 'fleet-2');
});
afterAll(() => kube?.close());

/** GitHub's `schedule` payload names the schedule and the workflow file; the repository comes from the run's context. */
const scheduleEvent: GitHubEvent = {
  name: 'schedule',
  payload: { schedule: '17 * * * *', workflow: '.github/workflows/fleet.yml' },
};

function run(event: GitHubEvent, inputs: Record<string, string>, sha: string): Promise<ActionRun> {
  stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, sha);
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    github: { repository, ref: 'refs/heads/main', sha },
    timeoutMs: 110_000,
  });
}

const drift = (sha: string) => run(scheduleEvent, { mode: 'drift', 'drift-labels': 'drift, fleet' }, sha);
const issues = () => stage.github.state.issueList(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name);

async function frontendDeployment(): Promise<KubeObject> {
  const list = await kube.list('apps/v1', 'Deployment', { namespace: 'drift' });
  const [deployment] = list.items;
  if (!deployment || list.items.length !== 1)
    throw new Error(
      `expected one Deployment in namespace drift on fleet-2, found ${list.items.map((d) => d.metadata.name).join(', ') || 'none'}`,
    );
  return deployment;
}

describe('mode: drift', () => {
  it('opens one issue when a cluster drifts, updates it on the next run, and closes it once reconciled', async () => {
    const applied = await run(
      workflowDispatchEvent({ repository, inputs: { mode: 'apply' } }),
      {},
      fakeSha('drift-apply-1'),
    );
    expect(applied.exitCode, applied.log).toBe(0);
    expect(applied.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');

    // In sync, no issue open: nothing is written.
    const quiet = await drift(fakeSha('drift-check-0'));
    expect(quiet.exitCode, quiet.log).toBe(0);
    expect(quiet.outputs['drifted-clusters']).toBe('');
    expect(issues()).toEqual([]);

    // Someone scales production-eu's Deployment by hand.
    const deployment = await frontendDeployment();
    expect(deployment.spec).toMatchObject({ replicas: 2 });
    await kube.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: deployment.metadata.name, namespace: 'drift' },
        spec: { replicas: 5 },
      },
      { fieldManager: 'kubectl-by-hand', force: true },
    );

    const first = await drift(fakeSha('drift-check-1'));
    expect(first.exitCode, first.log).toBe(0);
    expect(first.outputs['drifted-clusters']).toBe('production-eu');
    expect(first.outputs['has-changes']).toBe('true');
    expect(issues()).toHaveLength(1);
    const [opened] = issues();
    expect(opened).toMatchObject({
      title: 'Drift detected in bundle drift',
      state: 'open',
      labels: ['drift', 'fleet'],
      user: { login: 'github-actions[bot]' },
    });
    const body = opened?.body ?? '';
    expect(body.startsWith(`${MARKER}\n### Drift detected in bundle <code>drift</code>`)).toBe(true);
    expect(body).toContain('on **1 of 3** clusters (<code>production-eu</code>)');
    expect(body).toMatch(/<details open>\n<summary><b>production-eu<\/b>/);
    expect(body).toMatch(/-\s+replicas: 5\n\+\s+replicas: 2/);
    expect(body).toContain('gh workflow run fleet.yml --repo acme/shop-deploy --ref main -f mode=apply');
    expect(first.log).toContain(`drift issue created: https://github.com/acme/shop-deploy/issues/${opened?.number}`);
    expect(first.summary).toContain(`Drift issue &#35;${opened?.number} created`);

    const second = await drift(fakeSha('drift-check-2'));
    expect(second.exitCode, second.log).toBe(0);
    expect(second.outputs['drifted-clusters']).toBe('production-eu');
    expect(issues()).toHaveLength(1);
    expect(issues()[0]).toMatchObject({ number: opened?.number, state: 'open' });
    expect(issues()[0]?.body).toContain(fakeSha('drift-check-2').slice(0, 7));
    expect(stage.github.state.requestsTo('POST', /\/issues$/)).toHaveLength(1);
    expect(stage.github.state.requestsTo('PATCH', new RegExp(`/issues/${opened?.number}$`))).toHaveLength(1);

    // Reconcile as the issue says: the workflow dispatched with mode apply.
    const reconciled = await run(
      workflowDispatchEvent({ repository, inputs: { mode: 'apply' } }),
      {},
      fakeSha('drift-apply-2'),
    );
    expect(reconciled.exitCode, reconciled.log).toBe(0);
    expect((await frontendDeployment()).spec).toMatchObject({ replicas: 2 });

    const closing = await drift(fakeSha('drift-check-3'));
    expect(closing.exitCode, closing.log).toBe(0);
    expect(closing.outputs['drifted-clusters']).toBe('');
    expect(issues()).toHaveLength(1);
    expect(issues()[0]).toMatchObject({ number: opened?.number, state: 'closed', stateReason: 'completed' });
    const comments = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, opened?.number ?? 0);
    expect(comments.map((c) => c.body)).toEqual([
      expect.stringMatching(
        /^✅ In sync again at commit \[<code>[0-9a-f]{7}<\/code>\].* all 3 clusters matches bundle <code>drift<\/code>\. Closing\.\n$/,
      ),
    ]);
    expect(closing.summary).toContain(`Drift issue &#35;${opened?.number} closed`);

    for (const result of [first, second, closing]) {
      assertNoSecretLeak(
        result,
        [stage.github.token],
        [...issues().map((i) => i.body ?? ''), ...comments.map((c) => c.body)],
      );
    }
  });

  it('is refused on a pull request, naming the input', async () => {
    const result = await runAction({
      event: {
        name: 'pull_request',
        payload: {
          action: 'opened',
          number: 91,
          pull_request: { number: 91, head: { sha: fakeSha('pr-91'), ref: 'x' }, base: { ref: 'main' } },
          repository: { full_name: repository, default_branch: 'main' },
        },
      },
      githubApiUrl: stage.github.url,
      token: stage.github.token,
      workdir: stage.workdir,
      inputs: { ...stage.inputs, mode: 'drift' },
      env: stage.env,
      timeoutMs: 60_000,
    });
    expect(result.exitCode).toBe(1);
    expect(result.log).toMatch(/mode.*"drift" compares the merged bundle/);
  });
});
