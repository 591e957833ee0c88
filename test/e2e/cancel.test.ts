// End to end: a rollout cancelled by a signal, as Ctrl-C cancels the CLI and as GitHub cancels
// a step (SIGINT, then SIGTERM about 7.5 s later). Three runtime clusters: staging (its
// workloads kept ready), then two production clusters whose Deployment never becomes ready
// (the fleet has no kubelets). An instance is installed everywhere without waiting, then
// upgraded (replicas and message changed) with waiting; once the log shows the wait on the
// first production cluster, the process gets one signal. It must end within seconds, exit 130
// (the action: failed), say which cluster was applied (staging), which was interrupted
// (production-eu, at its wait) and which was not reached (production-us), in the log, the
// changes file, the job summary and the ChangeSet output; and Timoni's instance record on the
// interrupted cluster must hold what is live there (replicas, message), the one not reached
// its old values. A second signal stops the process at once.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeInstanceSecret } from '../../src/kube/instance/inventory.js';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(3).toString('hex');
/** Workloads here are kept ready on every cluster (useDemoStage); the staging instances live here. */
const readyNamespace = `cancel-ok-${suffix}`;
/** Nothing makes workloads ready here: the production instances wait until cancelled. */
const waitNamespace = `cancel-wait-${suffix}`;
const currentStage = useDemoStage(readyNamespace);
const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
/** Contexts of the demo runtime (examples/runtime.cue), in runtime order. */
const CLUSTERS = [
  { name: 'staging-1', context: 'fleet-1' },
  { name: 'production-eu', context: 'fleet-2' },
  { name: 'production-us', context: 'fleet-3' },
] as const;

let stage: DemoStage;
let dir: string;

beforeAll(() => {
  stage = currentStage();
  dir = scratchDir(`cancel-${suffix}`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), join(dir, 'webapp'), { recursive: true });
  cpSync(join(repositoryRoot, 'examples', 'runtime.cue'), join(dir, 'runtime.cue'));
});

afterAll(async () => {
  for (const [index] of CLUSTERS.entries()) {
    for (const name of [readyNamespace, waitNamespace])
      await clusterClient(index)
        .delete({ apiVersion: 'v1', kind: 'Namespace', name })
        .catch(() => undefined);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Revision {
  replicas: number;
  message: string;
}

/** One instance of the example module: staging's in the ready namespace, production's in the waiting one. */
function bundleText(bundle: string, instance: string, module: string, revision: Revision): string {
  return `bundle: {
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	_registry: *"" | string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	name: "${bundle}"
	instances: "${instance}": {
		module: ${module}
		namespace: *"${waitNamespace}" | string
		if _group == "staging" {
			namespace: "${readyNamespace}"
		}
		values: {
			replicas: ${revision.replicas}
			message: "${revision.message}"
			test: enabled: false
		}
	}
}
`;
}

interface LiveAndRecord {
  liveReplicas: unknown;
  liveMessage: unknown;
  recordValues: string;
  pending: boolean;
}

/** What runs on a cluster (the Deployment's replicas, the ConfigMap's message) and what Timoni's instance record says. */
async function liveAndRecord(clusterIndex: number, instance: string, namespace: string): Promise<LiveAndRecord> {
  const client = clusterClient(clusterIndex);
  const deployment = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: instance });
  const configMap = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: instance });
  const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: `timoni.${instance}` });
  const decoded = decodeInstanceSecret(secret);
  return {
    liveReplicas: (deployment.spec as { replicas?: number }).replicas,
    liveMessage: (configMap.data as Record<string, string> | undefined)?.message,
    recordValues: decoded.instance.values ?? '',
    pending: decoded.pending !== undefined,
  };
}

/** The record's values hold the live replicas and message. */
function expectRecordMatchesLive(state: LiveAndRecord, revision: Revision): void {
  expect(state.liveReplicas).toBe(revision.replicas);
  expect(state.liveMessage).toBe(revision.message);
  expect(state.recordValues).toMatch(new RegExp(`\\breplicas:\\s+${revision.replicas}\\b`));
  expect(state.recordValues).toMatch(new RegExp(`\\bmessage:\\s+"${revision.message}"`));
}

interface ChangeSetCluster {
  name: string;
  status: string;
  error: { step: string; interrupted?: string; instance?: string; object?: string; message: string } | null;
  instances: Array<{ changes: Array<{ kind: string; action: string; readiness?: { status: string } }> }>;
}

function expectCancelledChangeSet(clusters: ChangeSetCluster[], instance: string): void {
  expect(clusters.map((c) => [c.name, c.status])).toEqual([
    ['staging-1', 'applied'],
    ['production-eu', 'failed'],
    ['production-us', 'skipped'],
  ]);
  expect(clusters[1]?.error).toMatchObject({
    step: 'cancelled',
    interrupted: 'wait',
    instance,
    object: `Deployment/${waitNamespace}/${instance}`,
  });
  // What was applied to it, each object with its last readiness (the Deployment never became ready).
  const deployment = clusters[1]?.instances[0]?.changes.find((change) => change.kind === 'Deployment');
  expect(deployment?.action).toBe('configured');
  expect(deployment?.readiness?.status).toBe('InProgress');
}

const v1: Revision = { replicas: 1, message: 'first' };
const v2: Revision = { replicas: 3, message: 'second' };

// ---- The CLI

interface CliRun {
  code: number | null;
  stderr: string;
  /** Milliseconds from the first signal to the process's end. */
  stoppedInMs: number;
}

/** `timoni-fleet apply` in `dir`; each signal of `signals` is sent once stderr (from the previous signal on) matches its pattern. */
function timoniFleetApply(
  bundleFile: string,
  args: string[],
  signals: Array<[RegExp, NodeJS.Signals]> = [],
): Promise<CliRun> {
  const argv = [
    cli,
    'apply',
    '-f',
    bundleFile,
    '-r',
    'runtime.cue',
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity',
    'off',
    ...args,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let signalledAt: number | undefined;
    let from = 0;
    const pending = [...signals];
    const killer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      for (let next = pending[0]; next && next[0].test(stderr.slice(from)); next = pending[0]) {
        pending.shift();
        signalledAt ??= Date.now();
        from = stderr.length;
        child.kill(next[1]);
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stderr, stoppedInMs: signalledAt === undefined ? -1 : Date.now() - signalledAt });
    });
  });
}

describe('the CLI, cancelled during an apply', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal}: writes the records of what was applied, reports the interrupted cluster and exits 130`, async () => {
      const instance = `cli-${signal.toLowerCase()}`;
      const bundleFile = `${instance}.cue`;
      const module = '{url: "file://./webapp"}';
      writeFileSync(join(dir, bundleFile), bundleText(`cancel-${instance}-${suffix}`, instance, module, v1));
      const install = await timoniFleetApply(bundleFile, ['--wait=false']);
      expect(install.code, install.stderr).toBe(0);

      writeFileSync(join(dir, bundleFile), bundleText(`cancel-${instance}-${suffix}`, instance, module, v2));
      const changesFile = `${instance}-changes.json`;
      const run = await timoniFleetApply(
        bundleFile,
        ['--timeout', '2m', '--changes-file', changesFile],
        [[/c:production-eu > i:[^\n]* > waiting for/, signal]],
      );
      expect(run.code, run.stderr).toBe(130);
      expect(run.stoppedInMs).toBeGreaterThanOrEqual(0);
      expect(run.stoppedInMs).toBeLessThan(5_000);
      expect(run.stderr).toContain(`received ${signal}: cancelling the run`);
      expect(run.stderr).toContain(
        `rollout cancelled: applied staging-1; interrupted production-eu (instance ${instance}, step wait, Deployment/${waitNamespace}/${instance}); not reached production-us`,
      );

      const changeSet = JSON.parse(readFileSync(join(dir, changesFile), 'utf8')) as { clusters: ChangeSetCluster[] };
      expectCancelledChangeSet(changeSet.clusters, instance);

      // The interrupted cluster's record holds what is live there; the one not reached is untouched.
      const interrupted = await liveAndRecord(1, instance, waitNamespace);
      expectRecordMatchesLive(interrupted, v2);
      expect(interrupted.pending).toBe(false);
      expectRecordMatchesLive(await liveAndRecord(0, instance, readyNamespace), v2);
      expectRecordMatchesLive(await liveAndRecord(2, instance, waitNamespace), v1);
    });
  }

  it('stops at once on a second signal', async () => {
    const instance = 'cli-twice';
    const bundleFile = `${instance}.cue`;
    writeFileSync(
      join(dir, bundleFile),
      bundleText(`cancel-${instance}-${suffix}`, instance, '{url: "file://./webapp"}', v1),
    );
    const changesFile = `${instance}-changes.json`;
    const run = await timoniFleetApply(
      bundleFile,
      ['--timeout', '2m', '--changes-file', changesFile],
      [
        // Back to back, as a user pressing Ctrl-C twice: the second arrives while the first is being handled.
        [/c:production-eu > i:[^\n]* > waiting for/, 'SIGINT'],
        [/(?:)/, 'SIGTERM'],
      ],
    );
    expect(run.code, run.stderr).toBe(130);
    expect(run.stoppedInMs).toBeLessThan(2_000);
    expect(run.stderr).toMatch(/received SIG(?:INT|TERM) after SIG(?:INT|TERM): stopped at once/);
    expect(run.stderr).not.toContain('rollout cancelled:');
  });
});

// ---- The action

function merge(
  number: number,
  inputs: Record<string, string>,
  whileRunning?: Parameters<typeof runAction>[0]['whileRunning'],
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
    timeoutMs: 110_000,
    ...(whileRunning ? { whileRunning } : {}),
  });
}

describe('the action, cancelled during an apply as GitHub cancels a run', () => {
  const module = '{url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}';
  for (const [index, signal] of (['SIGINT', 'SIGTERM'] as const).entries()) {
    it(`on ${signal}: writes the records of what was applied, publishes the cancelled rollout and fails`, async () => {
      const instance = `act-${signal.toLowerCase()}`;
      const bundleFile = `${instance}.cue`;
      writeFileSync(join(stage.workdir, bundleFile), bundleText(`cancel-${instance}-${suffix}`, instance, module, v1));
      const install = await merge(400 + index * 2, { bundle: bundleFile, wait: 'false' });
      expect(install.exitCode, install.log).toBe(0);

      writeFileSync(join(stage.workdir, bundleFile), bundleText(`cancel-${instance}-${suffix}`, instance, module, v2));
      let signalledAt = 0;
      let endedAt = 0;
      const result = await merge(
        401 + index * 2,
        { bundle: bundleFile, timeout: '2m', 'changes-file': `${instance}-changes.json` },
        async (running) => {
          await running.waitForLine(/c:production-eu > i:\S+ > waiting for/);
          signalledAt = running.signal(signal);
          endedAt = await running.ended;
        },
      );
      expect(result.exitCode, result.log).toBe(130);
      expect(result.conclusion).toBe('failure');
      expect(endedAt - signalledAt).toBeLessThan(7_500);

      const cancelled = result.commands.find(
        (c) => c.command === 'error' && c.properties.title === 'timoni-fleet cancelled',
      );
      expect(cancelled?.message).toBe(
        `rollout cancelled: applied staging-1; interrupted production-eu (instance ${instance}, step wait, Deployment/${waitNamespace}/${instance}); not reached production-us`,
      );
      expectCancelledChangeSet(
        (JSON.parse(result.outputs.changes ?? '{}') as { clusters: ChangeSetCluster[] }).clusters,
        instance,
      );
      expectCancelledChangeSet(
        (
          JSON.parse(readFileSync(join(stage.workdir, `${instance}-changes.json`), 'utf8')) as {
            clusters: ChangeSetCluster[];
          }
        ).clusters,
        instance,
      );
      expect(result.outputs['applied-clusters']).toBe('staging-1');
      expect(result.outputs['failed-cluster']).toBe('production-eu');
      // The job summary names the interrupted cluster, where, and the cluster not reached.
      expect(result.summary).toContain('⏹️ Rollout cancelled at <code>production-eu</code> (during <code>wait</code>');
      expect(result.summary).toContain(
        '**Not reached** after <code>production-eu</code> was cancelled: <code>production-us</code>',
      );
      // So does the rollout comment on the merged pull request.
      const comment =
        stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, 401 + index * 2).at(-1)?.body ?? '';
      expect(comment).toContain('⏹️ Rollout cancelled at <code>production-eu</code> (during <code>wait</code>');
      expect(comment).toContain('⏹️ cancelled at <code>wait</code>');

      const interrupted = await liveAndRecord(1, instance, waitNamespace);
      expectRecordMatchesLive(interrupted, v2);
      expect(interrupted.pending).toBe(false);
      expectRecordMatchesLive(await liveAndRecord(2, instance, waitNamespace), v1);
    });
  }

  it('stops at once on a second signal', async () => {
    const instance = 'act-twice';
    const bundleFile = `${instance}.cue`;
    writeFileSync(join(stage.workdir, bundleFile), bundleText(`cancel-${instance}-${suffix}`, instance, module, v1));
    let signalledAt = 0;
    let endedAt = 0;
    const result = await merge(410, { bundle: bundleFile, timeout: '2m' }, async (running) => {
      await running.waitForLine(/c:production-eu > i:\S+ > waiting for/);
      // Back to back: the second arrives while the first is being handled.
      signalledAt = running.signal('SIGINT');
      running.signal('SIGTERM');
      endedAt = await running.ended;
    });
    expect(result.exitCode, result.log).toBe(130);
    expect(endedAt - signalledAt).toBeLessThan(2_000);
    const stopped = result.commands.find(
      (c) => c.command === 'error' && c.properties.title === 'timoni-fleet cancelled',
    );
    expect(stopped?.message).toMatch(/received SIG(?:INT|TERM) after SIG(?:INT|TERM): stopped at once/);
    expect(result.summary).toBe('');
  });
});
