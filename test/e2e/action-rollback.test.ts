// End to end through `node dist/index.js`: the action's `mode: rollback` (issue 26, item 2),
// as a workflow_dispatch asks for it (its `mode` input `rollback` under the action's `auto`,
// its `revision` input). Two applies of the demo bundle renamed `revertdemo` to staging-1
// (messages "Hello" then "Hi"), then a dispatch rolls back to revision 1: the ConfigMap says
// "Hello" again, the job summary is a rollback's (headline, what was asked, `↩️ revision 2 → 1`),
// the ChangeSet output carries `rollback` and each instance's `revision`, and the history gains
// revision 3 (`rollbackTo: 1`, with the dispatch's commit). A revision that is not kept fails
// the cluster before anything is applied, and the step.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { decodeHistorySecret } from '../../src/kube/instance/history-store.js';
import { clusterClient } from '../harness/fleet/test-context.js';
import { runAction, workflowDispatchEvent, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('revertdemo');
const NAMESPACE = 'revertdemo';
const ROLLBACK_SHA = 'b0b0cafe'.repeat(5);
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "revertdemo"' },
    { from: 'namespace: "shop"', to: 'namespace: "revertdemo"' },
  ]);
});

function dispatch(mode: string, eventInputs: Record<string, string>, runId: string, sha: string): Promise<ActionRun> {
  return runAction({
    event: workflowDispatchEvent({ repository, inputs: eventInputs }),
    github: { sha, runId },
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, mode, 'runtime-cluster': 'staging-1', wait: 'false' },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

const configMessage = async (): Promise<unknown> => {
  const object = await clusterClient(0).get({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: NAMESPACE,
    name: 'frontend',
  });
  return (object?.data as Record<string, unknown> | undefined)?.message;
};

const history = async () =>
  decodeHistorySecret(
    await clusterClient(0).get({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NAMESPACE,
      name: 'timoni-fleet-history.frontend',
    }),
  );

describe('action mode: rollback', () => {
  it('puts the instance back to the revision a dispatch asks for, and says so', async () => {
    // A history left by an earlier run of this file (each run stages the module anew).
    await clusterClient(0).delete({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NAMESPACE,
      name: 'timoni-fleet-history.frontend',
    });
    const first = await dispatch('apply', {}, '501', 'a'.repeat(40));
    expect(first.exitCode, first.log).toBe(0);
    stage.editBundle([{ from: 'message: "Hello from', to: 'message: "Hi from' }]);
    const second = await dispatch('apply', {}, '502', 'c'.repeat(40));
    expect(second.exitCode, second.log).toBe(0);
    expect(await configMessage()).toBe('Hi from staging-1');
    expect((await history()).map((e) => e.revision)).toEqual([2, 1]);

    const rollback = await dispatch('auto', { mode: 'rollback', revision: '1' }, '503', ROLLBACK_SHA);
    expect(rollback.exitCode, rollback.log).toBe(0);
    expect(await configMessage()).toBe('Hello from staging-1');

    expect(rollback.summary).toContain('## timoni-fleet rollback · bundle <code>revertdemo</code>');
    expect(rollback.summary).toContain('↩️ Rollback of every instance of the bundle to revision 1 of its history.');
    expect(rollback.summary).toContain('<code>frontend</code> ↩️ revision 2 → 1');
    expect(rollback.log).toContain('rolling back to revision 1 (live: revision 2)');

    const changeSet = JSON.parse(rollback.outputs.changes ?? '{}') as ChangeSet;
    expect(changeSet).toMatchObject({ mode: 'apply', rollback: { revision: 1 } });
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([['staging-1', 'applied']]);
    const instance = changeSet.clusters[0]!.instances[0]!;
    expect(instance.revision).toEqual({ to: 1, from: 2 });
    expect(instance.changes.find((c) => c.kind === 'ConfigMap')).toMatchObject({ action: 'configured' });

    const entries = await history();
    expect(entries.map((e) => [e.revision, e.rollbackTo, e.commit])).toEqual([
      [3, 1, ROLLBACK_SHA],
      [2, undefined, 'c'.repeat(40)],
      [1, undefined, 'a'.repeat(40)],
    ]);
    // The record put back names revision 1's module and its values again (the build may order their fields anew).
    const [restored, , original] = entries.map((e) => JSON.parse(e.record) as { module: unknown; values: string });
    expect(restored!.module).toEqual(original!.module);
    expect(restored!.values).toContain('message:  "Hello from staging-1"');
    expect(restored!.values).not.toContain('Hi from');
  });

  it('fails the cluster before anything is applied when the revision is not kept', async () => {
    const before = await history();
    const result = await dispatch('rollback', { revision: '7' }, '504', ROLLBACK_SHA);
    expect(result.exitCode).toBe(1);
    const errors = result.commands.filter((c) => c.command === 'error').map((c) => c.message);
    expect(errors).toContainEqual(
      expect.stringContaining(
        'instance revertdemo/frontend: has no revision 7 in its history (revisions kept: 3, 2, 1)',
      ),
    );
    expect(await configMessage()).toBe('Hello from staging-1');
    expect((await history()).map((e) => e.revision)).toEqual(before.map((e) => e.revision));
  });
});
