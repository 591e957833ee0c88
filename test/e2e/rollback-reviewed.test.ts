// End to end through `node dist/index.js`: `mode: rollback` under `reviewed: require` (issue
// 31, item 7). A rollback has no pull request of its own; what it puts back was reviewed, or
// not, when it was first applied, and the instance history says which (HistoryEntry.reviewed:
// the apply's review check matched that cluster, or it put back such a revision). So:
// - two applies with nothing reviewed (dispatches under `reviewed: off`), then a rollback
//   dispatch under `require`: refused at step `review` before anything is applied (the
//   ConfigMap and the history as they were), the error annotation saying why and how to go on;
// - a revision applied by a reviewed merge (the pull request's diff posted with its review
//   record, the merge applied under `require`), an unreviewed apply after it, then a rollback
//   under `require` back to the reviewed revision: put back, the new revision inheriting the
//   mark; a rollback to the previous (unreviewed) revision is refused again; under `warn` it
//   is put back with a warning.
//
// The bundle is the demo's renamed (bundle and namespace `rbreviewed`), on staging-1 only.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { decodeHistorySecret } from '../../src/kube/instance/history-store.js';
import { clusterClient } from '../harness/fleet/test-context.js';
import {
  fakeSha,
  pullRequestEvent,
  runAction,
  workflowDispatchEvent,
  type ActionRun,
} from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { parseReviewedRecord } from '../../src/report/reviewed-block.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('rbreviewed');
const NAMESPACE = 'rbreviewed';
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "rbreviewed"' },
    { from: 'namespace: "shop"', to: 'namespace: "rbreviewed"' },
  ]);
});

const only = { 'runtime-cluster': 'staging-1', wait: 'false' };

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string>, sha?: string) {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...only, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
    ...(sha ? { github: { sha } } : {}),
  });
}

/** A workflow_dispatch: `apply`, or the dispatch's `rollback` (its `revision` input). */
function dispatch(reviewed: string, eventInputs: Record<string, string>, seed: string): Promise<ActionRun> {
  return run(workflowDispatchEvent({ repository, inputs: eventInputs }), { reviewed }, fakeSha(seed));
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

const errors = (result: ActionRun) => result.commands.filter((c) => c.command === 'error').map((c) => c.message);
const warnings = (result: ActionRun) => result.commands.filter((c) => c.command === 'warning').map((c) => c.message);
const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;

const setMessage = (from: string, to: string) =>
  stage.editBundle([{ from: `message: "${from} from`, to: `message: "${to} from` }]);

describe('mode: rollback under reviewed: require', () => {
  it('refuses to put back a revision that no reviewed run applied, before anything is applied', async () => {
    // A history left by an earlier run of this file.
    await clusterClient(0).delete({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NAMESPACE,
      name: 'timoni-fleet-history.frontend',
    });
    const first = await dispatch('off', { mode: 'apply' }, 'rbreviewed-1');
    expect(first.exitCode, first.log).toBe(0);
    setMessage('Hello', 'Hi');
    const second = await dispatch('off', { mode: 'apply' }, 'rbreviewed-2');
    expect(second.exitCode, second.log).toBe(0);
    expect(await configMessage()).toBe('Hi from staging-1');
    const before = await history();
    expect(before.map((e) => [e.revision, e.reviewed])).toEqual([
      [2, undefined],
      [1, undefined],
    ]);

    const refused = await dispatch('require', { mode: 'rollback', revision: '1' }, 'rbreviewed-3');
    expect(refused.exitCode, refused.log).toBe(1);
    expect(await configMessage()).toBe('Hi from staging-1');
    expect(await history()).toEqual(before);
    const [cluster] = changes(refused).clusters;
    expect(cluster?.status).toBe('failed');
    expect(cluster?.error?.step).toBe('review');
    expect(cluster?.instances).toEqual([]);
    expect(errors(refused)).toContainEqual(
      expect.stringContaining(
        'instance rbreviewed/frontend: revision 1 was not applied by a reviewed run: its history entry records no review; nothing was applied to this cluster.',
      ),
    );
    expect(errors(refused)).toContainEqual(expect.stringContaining('with reviewed: warn'));
    expect(refused.log).not.toContain('rolling back to revision 1');

    // The previous revision (no revision asked) is held to the same rule.
    const previous = await dispatch('require', { mode: 'rollback' }, 'rbreviewed-4');
    expect(previous.exitCode).toBe(1);
    expect(errors(previous)).toContainEqual(expect.stringContaining('revision 1 was not applied by a reviewed run'));
    expect(await configMessage()).toBe('Hi from staging-1');
  });

  it('puts back a revision a reviewed merge applied, and refuses the unreviewed one after it', async () => {
    // Revision 3: reviewed in pull request #71's diff, merged and applied under require.
    setMessage('Hi', 'Howdy');
    const pr = stage.openPullRequest(71);
    const diff = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      {},
    );
    expect(diff.exitCode, diff.log).toBe(0);
    const comment = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number)[0]?.body;
    expect(Object.keys(parseReviewedRecord(comment ?? '')?.clusters ?? {})).toEqual(['staging-1']);
    stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number, pr.mergeCommitSha);
    const merged = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      { reviewed: 'require' },
    );
    expect(merged.exitCode, merged.log).toBe(0);
    expect(await configMessage()).toBe('Howdy from staging-1');
    const reviewedMark = { commit: pr.headSha, pullRequest: 71 };
    expect((await history())[0]).toMatchObject({ revision: 3, reviewed: reviewedMark });

    // Revision 4: applied with nothing reviewed.
    setMessage('Howdy', 'Yo');
    const unreviewed = await dispatch('off', { mode: 'apply' }, 'rbreviewed-5');
    expect(unreviewed.exitCode, unreviewed.log).toBe(0);
    expect(await configMessage()).toBe('Yo from staging-1');
    expect((await history())[0]).toMatchObject({ revision: 4 });
    expect((await history())[0]?.reviewed).toBeUndefined();

    // Back to the reviewed revision under require: allowed, and revision 5 inherits its mark.
    const back = await dispatch('require', { mode: 'rollback', revision: '3' }, 'rbreviewed-6');
    expect(back.exitCode, back.log).toBe(0);
    expect(await configMessage()).toBe('Howdy from staging-1');
    expect(back.log).toContain(`rolling back to revision 3 (live: revision 4)`);
    expect(back.log).toContain(`reviewed (pull request #71, diff of commit ${pr.headSha.slice(0, 7)})`);
    expect(changes(back).clusters[0]?.instances[0]?.revision).toEqual({ to: 3, from: 4 });
    const afterBack = await history();
    expect(afterBack.map((e) => [e.revision, e.rollbackTo, e.reviewed])).toEqual([
      [5, 3, reviewedMark],
      [4, undefined, undefined],
      [3, undefined, reviewedMark],
      [2, undefined, undefined],
      [1, undefined, undefined],
    ]);

    // The revision before the live one (4) was not reviewed: refused under require, nothing applied.
    const again = await dispatch('require', { mode: 'rollback' }, 'rbreviewed-7');
    expect(again.exitCode).toBe(1);
    expect(errors(again)).toContainEqual(expect.stringContaining('revision 4 was not applied by a reviewed run'));
    expect(await configMessage()).toBe('Howdy from staging-1');
    expect(await history()).toEqual(afterBack);

    // Under warn it is put back, with a warning saying it was not reviewed.
    const warned = await dispatch('warn', { mode: 'rollback' }, 'rbreviewed-8');
    expect(warned.exitCode, warned.log).toBe(0);
    expect(await configMessage()).toBe('Yo from staging-1');
    expect(warnings(warned)).toContainEqual(
      expect.stringContaining('instance rbreviewed/frontend: revision 4 was not applied by a reviewed run'),
    );
    const [newest] = await history();
    expect(newest).toMatchObject({ revision: 6, rollbackTo: 4 });
    expect(newest?.reviewed).toBeUndefined();
  });
});
