// End to end, through the action as a workflow runs it (`node dist/index.js`): a cluster
// removed from runtime.cue after a rollout still holds the bundle. A scheduled `mode: drift`
// run reports it (its own row and section in the drift issue: it left the fleet, the bundle
// stays installed there, and the command that removes it by hand; `drifted-clusters` names
// it, by the name its identity record holds), and `mode: status` lists its instance as
// `orphaned`. On main neither says anything
// of that cluster. Nothing is deleted by either run.
//
// The bundle is the demo's renamed (bundle `orphans`, namespace `orphans`), so that other
// tests applying the demo bundle on the shared fleet are not disturbed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetState } from '../../src/fleet/instance-state.js';
import {
  fakeSha,
  runAction,
  workflowDispatchEvent,
  type ActionRun,
  type GitHubEvent,
} from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { KubeClient } from '../harness/fleet/kube-client.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('orphans');
let stage: DemoStage;
let kube: KubeClient;

beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "orphans"' },
    { from: 'namespace: "shop"', to: 'namespace: "orphans"' },
  ]);
  kube = KubeClient.fromKubeconfig(stage.kubeconfig, 'fleet-3');
});
afterAll(async () => {
  for (const context of ['fleet-1', 'fleet-2', 'fleet-3']) {
    const client = KubeClient.fromKubeconfig(stage.kubeconfig, context);
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'orphans' }).catch(() => undefined);
    client.close();
  }
  kube?.close();
});

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

/** runtime.cue without production-us (context fleet-3). */
function removeProductionUs(): void {
  const path = join(stage.workdir, 'runtime.cue');
  const text = readFileSync(path, 'utf8');
  const without = text.replace(/\t\t"production-us": \{[^}]*\}\n/, '');
  if (without === text) throw new Error(`runtime.cue: production-us not found in\n${text}`);
  writeFileSync(path, without);
}

async function instanceSecret(): Promise<unknown> {
  return kube.getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace: 'orphans', name: 'timoni.frontend' });
}

describe('a cluster that left the runtime but holds the bundle', () => {
  it('is reported by a drift run and listed as orphaned by a status run, nothing deleted', async () => {
    const applied = await run(
      workflowDispatchEvent({ repository, inputs: { mode: 'apply' } }),
      {},
      fakeSha('orphans-apply'),
    );
    expect(applied.exitCode, applied.log).toBe(0);
    expect(applied.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');
    expect(await instanceSecret()).not.toBeNull();

    removeProductionUs();
    const drift = await run(scheduleEvent, { mode: 'drift' }, fakeSha('orphans-drift'));
    expect(drift.exitCode, drift.log).toBe(0);
    expect(drift.outputs['drifted-clusters']).toBe('production-us');
    const [issue] = stage.github.state.issueList(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name);
    const body = issue?.body ?? '';
    expect(body).toContain('| <code>production-us</code> · 🚪 leaves the fleet |');
    expect(body).toContain(
      'holds the bundle but is in no runtime cluster (it left the fleet)&#58; the bundle stays installed there until it is removed',
    );
    expect(body).toContain('timoni bundle delete --name orphans --kube-context fleet-3');

    const status = await run(
      workflowDispatchEvent({ repository, inputs: { mode: 'status' } }),
      { mode: 'status' },
      fakeSha('orphans-status'),
    );
    expect(status.exitCode, status.log).toBe(0);
    const state = JSON.parse(status.outputs.status ?? '{}') as FleetState;
    const orphaned = state.instances.filter((row) => row.state === 'orphaned');
    expect(orphaned.map((row) => [row.cluster, row.instance, row.namespace])).toEqual([
      ['production-us', 'frontend', 'orphans'],
    ]);
    expect(status.summary).toContain('🚪 orphaned');

    expect(await instanceSecret()).not.toBeNull();
  });
});
