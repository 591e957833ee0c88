// End to end: never the wrong cluster, as a workflow runs the action. The first apply with
// `cluster-identity: record` records each cluster's identity; a runtime whose context is then
// pointed at another cluster is refused on the pull request's diff (naming both runtime
// names), and so is it by `mode: status` and `mode: drift`; a cluster renamed in the runtime is
// refused on apply until `repin-clusters` re-pins it; the job summary shows each identity.
//
// The bundle is the demo's renamed (bundle `identity`, namespace `identity`), and the records
// have a name of this file's own (`cluster-identity-record`), deleted at the end: the other
// tests on the shared fleet check `timoni-fleet-identity` and never see them.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteIdentityRecord, readIdentityRecord } from '../../src/kube/connect/cluster-identity.js';
import { pullRequestEvent, runAction, workflowDispatchEvent, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { openCluster } from '../../src/kube/connect/cluster.js';
import { loadKubeconfig } from '../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../src/secrets.js';

interface ClusterOutput {
  name: string;
  status: string;
  error: { step: string; message: string } | null;
  identity?: { uid: string; recordedAs?: string; change?: string };
}

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const record = `timoni-fleet-identity-e2e-${randomBytes(4).toString('hex')}`;
const currentStage = useDemoStage('identity');
let stage: DemoStage;
let originalRuntime: string;
beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "identity"' },
    { from: 'namespace: "shop"', to: 'namespace: "identity"' },
  ]);
  originalRuntime = readFileSync(join(stage.workdir, 'runtime.cue'), 'utf8');
});

function clusters(): ReturnType<typeof openCluster>[] {
  const secrets = new SecretRegistry();
  const kubeconfig = loadKubeconfig([{ text: stage.kubeconfig }], secrets);
  return ['fleet-1', 'fleet-2', 'fleet-3'].map((context) =>
    openCluster(kubeconfig, context, { secrets, name: context }),
  );
}

afterAll(async () => {
  for (const cluster of clusters()) {
    await deleteIdentityRecord(cluster, record);
    cluster.close();
  }
});

function editRuntime(from: string, to: string): void {
  const text = originalRuntime.replace(from, to);
  if (text === originalRuntime) throw new Error(`runtime.cue has no ${JSON.stringify(from)}`);
  writeFileSync(join(stage.workdir, 'runtime.cue'), text);
}

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string> = {}): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, 'cluster-identity-record': record, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

function merged(number: number) {
  const pr = stage.openPullRequest(number);
  stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
  return pullRequestEvent({
    action: 'closed',
    merged: true,
    mergeCommitSha: pr.mergeCommitSha,
    repository,
    number: pr.number,
    headSha: pr.headSha,
  });
}

const clustersOf = (result: ActionRun) =>
  (JSON.parse(result.outputs.changes ?? '{}') as { clusters: ClusterOutput[] }).clusters;

describe('never the wrong cluster', () => {
  const uids: Record<string, string> = {};

  it('records each cluster on the first apply and shows its identity in the job summary', async () => {
    const result = await run(merged(41), { 'cluster-identity': 'record' });
    expect(result.exitCode, result.log).toBe(0);
    for (const cluster of clustersOf(result)) {
      expect(cluster.status).toBe('applied');
      expect(cluster.identity).toMatchObject({ recordedAs: cluster.name, change: 'recorded' });
      uids[cluster.name] = cluster.identity?.uid ?? '';
    }
    expect(new Set(Object.values(uids)).size).toBe(3);
    expect(result.summary).toContain(`Identity: kube-system uid <code>${uids['staging-1']?.slice(0, 8)}…</code>`);
    expect(result.summary).toContain('as <code>production-eu</code> (first apply: recorded now)');
    const [fleet1] = clusters();
    expect(await readIdentityRecord(fleet1!, record)).toMatchObject({
      runtimeCluster: 'staging-1',
      uid: uids['staging-1'],
    });
    fleet1!.close();
  });

  it("refuses a pull request's diff whose context points production at staging's cluster", async () => {
    editRuntime('kubeContext: "fleet-2"', 'kubeContext: "fleet-1"');
    const pr = stage.openPullRequest(42);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
    );
    expect(result.exitCode).toBe(1);
    const [staging, eu, us] = clustersOf(result);
    expect([staging?.status, us?.status]).toEqual(['unchanged', 'unchanged']);
    expect(eu?.status).toBe('failed');
    expect(eu?.error?.step).toBe('identity');
    expect(eu?.error?.message).toContain(
      `context "fleet-1" reaches the cluster recorded as "staging-1" (kube-system uid ${uids['staging-1']}`,
    );
    expect(eu?.error?.message).toContain('not "production-eu"');
    expect(result.log).toContain('reaches the cluster recorded as "staging-1"');
  });

  it('refuses the same context in mode: status and mode: drift, which read the clusters too', async () => {
    // The runtime still points production-eu at staging's cluster (previous test).
    // A cluster whose state could not be read fails a status step (README, Status of the fleet): the refusal is the row and one error annotation.
    const status = await run(workflowDispatchEvent({ repository, inputs: {} }), { mode: 'status' });
    expect(status.exitCode).toBe(1);
    expect(status.log).toContain(
      '##[error]identity check: cluster production-eu: context "fleet-1" reaches the cluster recorded as "staging-1"',
    );
    expect(status.log.split('\n').filter((line) => line.includes('reaches the cluster recorded as'))).toHaveLength(1);
    const rows = (
      JSON.parse(status.outputs.status ?? '{}') as {
        instances: Array<{ cluster: string; state: string; module: unknown; reason: string }>;
      }
    ).instances;
    const eu = rows.filter((row) => row.cluster === 'production-eu');
    expect(eu.map((row) => [row.state, row.module])).toEqual([['unknown', null]]);
    expect(eu[0]?.reason).toContain(
      `cluster production-eu: context "fleet-1" reaches the cluster recorded as "staging-1" (kube-system uid ${uids['staging-1']}`,
    );
    expect(rows.filter((row) => row.cluster !== 'production-eu').every((row) => row.state === 'deployed')).toBe(true);

    const drift = await run(workflowDispatchEvent({ repository, inputs: {} }), {
      mode: 'drift',
      'drift-issue': 'false',
    });
    expect(drift.exitCode).toBe(1);
    const refused = clustersOf(drift).find((cluster) => cluster.name === 'production-eu');
    expect(refused?.status).toBe('failed');
    expect(refused?.error?.step).toBe('identity');
    expect(refused?.error?.message).toContain('reaches the cluster recorded as "staging-1"');
  });

  it('refuses a cluster renamed in the runtime on apply, until repin-clusters re-pins it', async () => {
    editRuntime('"production-eu": {', '"production-eu-1": {');
    const refused = await run(merged(43));
    expect(refused.exitCode).toBe(1);
    expect(clustersOf(refused).map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'applied'],
      ['production-eu-1', 'failed'],
      ['production-us', 'skipped'],
    ]);
    expect(clustersOf(refused)[1]?.error?.message).toContain('recorded as "production-eu"');
    expect(clustersOf(refused)[1]?.error?.message).toContain('run an apply with repin-clusters: production-eu-1');
    expect(clustersOf(refused)[1]?.error?.message).not.toContain('--repin-cluster');

    const repinned = await run(merged(44), { 'repin-clusters': 'production-eu-1' });
    expect(repinned.exitCode, repinned.log).toBe(0);
    const eu = clustersOf(repinned)[1];
    expect(eu).toMatchObject({
      name: 'production-eu-1',
      status: 'applied',
      identity: { uid: uids['production-eu'], recordedAs: 'production-eu-1', change: 'repinned' },
    });
    expect(repinned.summary).toContain('as <code>production-eu-1</code> (re-pinned by this run)');
  });
});
