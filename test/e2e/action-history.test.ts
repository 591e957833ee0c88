// End to end: the action's apply keeps each instance's history (issue 26, item 2), with the
// run's commit (GITHUB_SHA) and workflow run URL; a history that cannot be written is a
// warning annotation naming the cluster and the instance, and the cluster stays applied.
//
// The bundle is the demo's renamed (bundle and namespace `historydemo`), applied to staging-1
// (fleet-1) alone, so that other tests applying the demo bundle on the shared fleet are not disturbed.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { decodeHistorySecret } from '../../src/kube/instance/history-store.js';
import { clusterClient } from '../harness/fleet/test-context.js';
import { runAction, workflowDispatchEvent, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('historydemo');
const NAMESPACE = 'historydemo';
const SHA = 'a1b2c3d4'.repeat(5);
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "historydemo"' },
    { from: 'namespace: "shop"', to: 'namespace: "historydemo"' },
  ]);
});

function apply(runId: string): Promise<ActionRun> {
  return runAction({
    event: workflowDispatchEvent({ repository, inputs: {} }),
    github: { sha: SHA, runId },
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, mode: 'apply', 'runtime-cluster': 'staging-1', wait: 'false' },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

const historySecret = () =>
  clusterClient(0).get({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: NAMESPACE,
    name: 'timoni-fleet-history.frontend',
  });

describe('action apply: instance history', () => {
  it('records the commit and the run URL of the apply', async () => {
    // A history left by an earlier run of this file (each run stages the module anew: another digest).
    await clusterClient(0).delete({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NAMESPACE,
      name: 'timoni-fleet-history.frontend',
    });
    const result = await apply('4242');
    expect(result.exitCode, result.log).toBe(0);
    const entries = decodeHistorySecret(await historySecret());
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      revision: 1,
      commit: SHA,
      runUrl: `https://github.com/${repository}/actions/runs/4242`,
      module: { version: '1.4.0', digest: stage.moduleDigest },
    });
  });

  it('warns, naming the cluster and the instance, when the history cannot be written; the cluster stays applied', async () => {
    const secret = await historySecret();
    await clusterClient(0).apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secret.metadata.name, namespace: NAMESPACE, labels: secret.metadata.labels ?? {} },
        type: 'timoni-fleet.io/history',
        data: { history: Buffer.from('not json').toString('base64') },
      },
      // Written as timoni-fleet writes it: a history another field manager wrote is refused before it is read.
      { force: true, fieldManager: 'timoni-fleet' },
    );
    stage.editBundle([{ from: 'message: "Hello from', to: 'message: "Hi from' }]);
    const result = await apply('4243');
    expect(result.exitCode, result.log).toBe(0);
    const changeSet = JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([['staging-1', 'applied']]);
    const warnings = result.commands.filter((c) => c.command === 'warning').map((c) => c.message);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^cluster staging-1: instance historydemo\/frontend: applied, but its history was not written: .*history data is not JSON/,
      ),
    );
  });
});
