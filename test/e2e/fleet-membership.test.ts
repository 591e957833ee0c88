// End to end: fleet membership, as a workflow runs the action (`node dist/index.js`) on the
// local fleet, the base runtime read through the GitHub stand-in's contents endpoint (the
// workspace has no .git: a checkout the action cannot read with git, as a shallow one).
// A 3-cluster fleet is applied; a pull request that removes production-us from runtime.cue
// shows it leaving with the bundle's objects there; the merge deletes them there and leaves
// the other clusters untouched; renaming a cluster (same context) deletes nothing; a leaving
// cluster whose context is no longer in the kubeconfig is reported, not failed; a base
// runtime that does not evaluate is a warning and the run goes on; a first pull request (no
// runtime file at the base) has no leaving cluster; a checkout that holds the base commit
// is read with git, without a request to GitHub.
//
// The bundle is the demo's renamed (bundle `membership`, namespace `membership`), so that
// the other tests on the shared fleet are not disturbed.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { openCluster, type KubeCluster } from '../../src/kube/connect/cluster.js';
import { loadKubeconfig } from '../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../src/secrets.js';
import { fakeSha, pullRequestEvent, pushEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const NAMESPACE = 'membership';
const currentStage = useDemoStage(NAMESPACE);
let stage: DemoStage;
let originalRuntime: string;
let kube: Record<string, KubeCluster>;

beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "membership"' },
    { from: 'namespace: "shop"', to: `namespace: "${NAMESPACE}"` },
  ]);
  originalRuntime = readFileSync(join(stage.workdir, 'runtime.cue'), 'utf8');
  const secrets = new SecretRegistry();
  const kubeconfig = loadKubeconfig([{ text: stage.kubeconfig }], secrets);
  kube = Object.fromEntries(
    ['fleet-1', 'fleet-2', 'fleet-3'].map((context) => [
      context,
      openCluster(kubeconfig, context, { secrets, name: context }),
    ]),
  );
});
afterAll(async () => {
  // The bundle's namespace and the stage's identity records, on every cluster.
  const record = stage?.inputs['cluster-identity-record'] ?? '';
  await Promise.allSettled(
    Object.values(kube ?? {}).flatMap((cluster) => [
      cluster.delete({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: NAMESPACE }),
      ...(record
        ? [cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record })]
        : []),
    ]),
  );
  for (const cluster of Object.values(kube ?? {})) cluster.close();
});

/** The demo runtime with `edits` applied (each must match once). */
function runtimeWith(...edits: Array<[string, string]>): string {
  let text = originalRuntime;
  for (const [from, to] of edits) {
    if (text.split(from).length !== 2)
      throw new Error(`runtime.cue: ${JSON.stringify(from)} does not occur exactly once`);
    text = text.replace(from, () => to);
  }
  return text;
}
const PRODUCTION_US = '\t\t"production-us": {\n\t\t\tgroup:       "production"\n\t\t\tkubeContext: "fleet-3"\n\t\t}\n';
const withoutProductionUs = () => runtimeWith([PRODUCTION_US, '']);
/** The fleet once production-eu is renamed production-europe (the tests after the rename start from it: its identity record names it). */
const renamed = () => runtimeWith([PRODUCTION_US, ''], ['"production-eu": {', '"production-europe": {']);

/** The head's runtime.cue (the workspace), and the base's (the stand-in's contents at `baseSha`). */
function stageRuntimes(head: string, base: string | undefined, baseSha: string): void {
  writeFileSync(join(stage.workdir, 'runtime.cue'), head);
  stage.github.state.putFiles(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, baseSha, {
    'bundle.cue': readFileSync(join(stage.workdir, 'bundle.cue'), 'utf8'),
    ...(base === undefined ? {} : { 'runtime.cue': base }),
  });
}

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string> = {}): Promise<ActionRun> {
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

const pulls = new Map<number, { number: number; headSha: string; mergeCommitSha: string }>();

/** A pull request opened against `baseSha`: its diff comments the review record that its merge is checked against. */
function opened(number: number, baseSha: string) {
  const pr = stage.openPullRequest(number);
  pulls.set(number, pr);
  return pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha, baseSha });
}

/** The same pull request merged (opened first when the test did not diff it). */
function merged(number: number, baseSha: string) {
  const pr = pulls.get(number) ?? stage.openPullRequest(number);
  stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, number, pr.mergeCommitSha);
  return pullRequestEvent({
    action: 'closed',
    merged: true,
    mergeCommitSha: pr.mergeCommitSha,
    repository,
    number: pr.number,
    headSha: pr.headSha,
    baseSha,
  });
}

const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;
const clusterOf = (result: ActionRun, name: string) => changes(result).clusters.find((c) => c.name === name);
const comment = (pr: number) =>
  stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr).at(-1)?.body ?? '';

/** The bundle's Deployments and inventory Secrets in its namespace on a cluster, by name, with their uids. */
async function bundleObjects(context: string): Promise<Record<string, string>> {
  const cluster = kube[context];
  if (!cluster) throw new Error(`no cluster ${context}`);
  const deployments = await cluster.list('apps/v1', 'Deployment', NAMESPACE);
  const secrets = (await cluster.list('v1', 'Secret', NAMESPACE)).filter((s) =>
    s.metadata?.name?.startsWith('timoni.'),
  );
  return Object.fromEntries(
    [...deployments, ...secrets].map((o) => [`${o.kind}/${o.metadata?.name ?? ''}`, o.metadata?.uid ?? '']),
  );
}

describe('fleet membership', () => {
  let applied: Record<string, Record<string, string>> = {};

  it('applies the 3-cluster fleet (a push that created the branch has no base runtime)', async () => {
    const result = await run(
      pushEvent({ repository, ref: 'refs/heads/main', before: '0'.repeat(40), after: fakeSha('membership-initial') }),
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(changes(result).clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'applied'],
      ['production-eu', 'applied'],
      ['production-us', 'applied'],
    ]);
    expect(result.log).toContain(
      'fleet membership: no base runtime (the push created the branch: there is no commit before it)',
    );
    applied = {
      'fleet-1': await bundleObjects('fleet-1'),
      'fleet-2': await bundleObjects('fleet-2'),
      'fleet-3': await bundleObjects('fleet-3'),
    };
    for (const objects of Object.values(applied))
      expect(Object.keys(objects)).toEqual(expect.arrayContaining(['Deployment/frontend', 'Secret/timoni.frontend']));
  });

  it('shows a cluster removed from runtime.cue in a pull request as leaving the fleet, with the objects that would be deleted', async () => {
    const baseSha = fakeSha('membership-base-2');
    stageRuntimes(withoutProductionUs(), originalRuntime, baseSha);
    const result = await run(opened(2, baseSha));
    expect(result.exitCode, result.log).toBe(0);
    expect(stage.github.state.requestsTo('GET', /\/contents\/runtime\.cue$/).map((r) => r.path)).toContain(
      `/repos/${repository}/contents/runtime.cue?ref=${baseSha}`,
    );
    const leaving = clusterOf(result, 'production-us');
    expect(leaving?.membership).toBe('leaves');
    expect(changes(result).membership?.from).toMatch(
      /^runtime\.cue at base commit [0-9a-f]{7} \(the pull request's base\), read with the GitHub API$/,
    );
    const body = comment(2);
    expect(body).toContain('production-us');
    expect(body).toMatch(/leaves the fleet/);
    expect(body).toContain('frontend');
    // A diff deletes nothing.
    expect(await bundleObjects('fleet-3')).toEqual(applied['fleet-3']);
  });

  it('deletes the bundle from the leaving cluster on merge, and leaves the other clusters untouched', async () => {
    // The pull request of the previous test, merged: its diff's review record holds the leave.
    const baseSha = fakeSha('membership-base-2');
    stageRuntimes(withoutProductionUs(), originalRuntime, baseSha);
    const result = await run(merged(2, baseSha));
    expect(result.exitCode, result.log).toBe(0);
    expect(clusterOf(result, 'production-us')?.membership).toBe('leaves');
    expect(clusterOf(result, 'production-us')?.status).not.toBe('failed');
    expect(await bundleObjects('fleet-3')).toEqual({});
    expect(await bundleObjects('fleet-1')).toEqual(applied['fleet-1']);
    expect(await bundleObjects('fleet-2')).toEqual(applied['fleet-2']);
  });

  it('takes a cluster renamed in the runtime (same context) as a rename: nothing is deleted', async () => {
    const base = withoutProductionUs();
    const head = renamed();
    const baseSha = fakeSha('membership-base-4');
    stageRuntimes(head, base, baseSha);
    const diff = await run(opened(4, baseSha));
    expect(diff.exitCode, diff.log).toBe(0);
    expect(clusterOf(diff, 'production-europe')?.membership).toEqual({ renamedFrom: 'production-eu' });
    expect(changes(diff).clusters.some((c) => c.membership === 'leaves')).toBe(false);

    // Merged after its diff, whose review record holds the rename: the identity record is re-pinned.
    const apply = await run(merged(4, baseSha));
    expect(apply.exitCode, apply.log).toBe(0);
    expect(changes(apply).clusters.some((c) => c.membership === 'leaves')).toBe(false);
    expect(await bundleObjects('fleet-2')).toEqual(applied['fleet-2']);
    expect(await bundleObjects('fleet-1')).toEqual(applied['fleet-1']);
  });

  it('reports a leaving cluster whose context is gone from the kubeconfig, and does not fail on it', async () => {
    const gone = '\t\t"production-ap": {\n\t\t\tgroup:       "production"\n\t\t\tkubeContext: "fleet-gone"\n\t\t}\n';
    const head = renamed();
    const base = head.replace('\t\t"production-europe": {', () => `${gone}\t\t"production-europe": {`);
    if (base === head) throw new Error('runtime.cue: no production-europe');
    const baseSha = fakeSha('membership-base-6');
    stageRuntimes(head, base, baseSha);
    const diff = await run(opened(6, baseSha));
    expect(diff.exitCode, diff.log).toBe(0);
    const leaving = clusterOf(diff, 'production-ap');
    expect(leaving?.membership).toBe('leaves');
    expect(leaving?.status).not.toBe('failed');
    expect(comment(6)).toContain('production-ap');
    expect(comment(6)).toMatch(/timoni(-fleet)? bundle delete|timoni-fleet delete/);

    const apply = await run(merged(6, baseSha));
    expect(apply.exitCode, apply.log).toBe(0);
    expect(clusterOf(apply, 'production-ap')?.status).not.toBe('failed');
  });

  it('goes on without membership changes, with a warning, when the base runtime does not evaluate', async () => {
    const baseSha = fakeSha('membership-base-8');
    stageRuntimes(renamed(), 'runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "demo" & 5\n}\n', baseSha);
    const result = await run(opened(8, baseSha));
    expect(result.exitCode, result.log).toBe(0);
    expect(changes(result).membership?.warning).toMatch(
      /^the runtime at base commit [0-9a-f]{7} \(the pull request's base\) does not evaluate: /,
    );
    expect(changes(result).clusters.map((c) => c.name)).toEqual(['staging-1', 'production-europe']);
    expect(changes(result).clusters.every((c) => c.status !== 'failed' && c.membership === undefined)).toBe(true);
    expect(comment(8)).toContain('does not evaluate');
  });

  it('has no leaving cluster on a first pull request (no runtime file at the base)', async () => {
    const baseSha = fakeSha('membership-base-9');
    stageRuntimes(renamed(), undefined, baseSha);
    const result = await run(opened(9, baseSha));
    expect(result.exitCode, result.log).toBe(0);
    expect(result.log).toContain(
      `fleet membership: runtime.cue did not exist at base commit ${baseSha.slice(0, 7)} (the pull request's base); no cluster leaves the fleet in this run`,
    );
    expect(changes(result).clusters.some((c) => c.membership !== undefined)).toBe(false);
    expect(comment(9)).not.toMatch(/leaves the fleet/);
  });

  it('compares a push with its before commit', async () => {
    const baseSha = fakeSha('membership-push-before');
    // production-us is back in the before commit's runtime (nothing of the bundle is left on fleet-3): it leaves again.
    stageRuntimes(
      renamed(),
      renamed().replace('\t\t"production-europe": {', () => `${PRODUCTION_US}\t\t"production-europe": {`),
      baseSha,
    );
    const result = await run(
      pushEvent({ repository, ref: 'refs/heads/main', before: baseSha, after: fakeSha('membership-push-after') }),
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(changes(result).membership?.from).toBe(
      `runtime.cue at base commit ${baseSha.slice(0, 7)} (the push's before), read with the GitHub API`,
    );
    expect(clusterOf(result, 'production-us')?.membership).toBe('leaves');
    expect(await bundleObjects('fleet-3')).toEqual({});
    expect(await bundleObjects('fleet-1')).toEqual(applied['fleet-1']);
  });

  it('reads the base with git, asking GitHub nothing, when the checkout holds the base commit (fetch-depth: 2)', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', stage.workdir, ...args], {
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@e',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@e',
        },
      }).trim();
    try {
      git('init', '-q', '-b', 'main');
      writeFileSync(
        join(stage.workdir, 'runtime.cue'),
        renamed().replace('\t\t"production-europe": {', () => `${PRODUCTION_US}\t\t"production-europe": {`),
      );
      git('add', 'runtime.cue', 'bundle.cue');
      git('commit', '-q', '-m', 'base');
      const baseSha = git('rev-parse', 'HEAD');
      writeFileSync(join(stage.workdir, 'runtime.cue'), renamed());
      const before = stage.github.state.requestsTo('GET', /\/contents\//).length;
      const result = await run(opened(10, baseSha));
      expect(result.exitCode, result.log).toBe(0);
      expect(changes(result).membership?.from).toBe(
        `runtime.cue at base commit ${baseSha.slice(0, 7)} (the pull request's base), read with git`,
      );
      expect(clusterOf(result, 'production-us')?.membership).toBe('leaves');
      expect(stage.github.state.requestsTo('GET', /\/contents\//).length).toBe(before);
    } finally {
      rmSync(join(stage.workdir, '.git'), { recursive: true, force: true });
    }
  });
});
