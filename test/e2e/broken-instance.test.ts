// End to end: one broken instance does not hide the rest (issue 23, item 4). A bundle whose
// instance `backend` has a values error (`replicas: "many"`, a string where the module wants
// an int) beside instances that build: the diff shows every instance that builds with its
// diff, and the broken one as failed with its error, once; the cluster is failed (the CLI's
// diff exits 2, the action fails the step); and nothing is applied to that cluster on merge
// (an apply stays all-or-nothing per cluster), the rollout stopping there as after any failure.
//
// Through the CLI as a user runs it (`node dist/cli/index.js`), on one cluster of the fleet,
// and through the action (`node dist/index.js`) on a pull request and its merge, with the
// demo bundle given a second instance that is broken on the production clusters only.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { createNamespace, type TestNamespace } from '../harness/fleet/namespace.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(3).toString('hex');
/** The values error, as CUE words it: once per report, whatever the number of clusters it breaks. */
const VALUES_ERROR = 'conflicting values "many" and 1';

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

// ---------------------------------------------------------------------------------------
// The CLI, on the fleet's third API server.

const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const CLI_CONTEXT = 'fleet-3';
const cliBundle = `broken-cli-${suffix}`;
const identityRecord = `timoni-fleet-identity-broken-${suffix}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let cliNamespace: TestNamespace;

/** Three instances of the example module in one namespace, the middle one with a values error. */
function threeInstances(namespace: string): string {
  const module = 'file://./modules/webapp';
  return `bundle: {
	apiVersion: "v1alpha1"
	name:       "${cliBundle}"
	instances: {
		frontend: {
			module: url: "${module}"
			namespace: "${namespace}"
			values: {test: enabled: false, message: "front"}
		}
		backend: {
			module: url: "${module}"
			namespace: "${namespace}"
			values: {test: enabled: false, replicas: "many"}
		}
		worker: {
			module: url: "${module}"
			namespace: "${namespace}"
			values: {test: enabled: false, message: "work"}
		}
	}
}
`;
}

function timoniFleet(command: string, ...rest: string[]): Promise<Run> {
  const argv = [
    cli,
    command,
    '-f',
    join(dir, 'bundle.cue'),
    '-r',
    join(dir, 'runtime.cue'),
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity-record',
    identityRecord,
    ...rest,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: dir, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = scratchDir('broken-instance');
  cliNamespace = await createNamespace(clusterClient(CLI_CONTEXT), { prefix: 'broken-cli' });
  // Local modules must live in the folder the CLI runs in.
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), join(dir, 'modules', 'webapp'), { recursive: true });
  writeFileSync(join(dir, 'bundle.cue'), threeInstances(cliNamespace.name));
  writeFileSync(
    join(dir, 'runtime.cue'),
    `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "broken"\n\tclusters: "broken-1": {group: "staging", kubeContext: "${CLI_CONTEXT}"}\n}\n`,
  );
});

afterAll(async () => {
  await cliNamespace?.delete().catch(() => undefined);
});

describe('the CLI with one broken instance among three', () => {
  it('diff -o json: every instance that builds with its changes, the broken one failed with its error; exit 2', async () => {
    const result = await timoniFleet('diff', '-o', 'json');
    expect(result.code, result.stderr).toBe(2);
    const cluster = (JSON.parse(result.stdout) as ChangeSet).clusters[0]!;
    expect(cluster.status).toBe('failed');
    // The first failure in bundle order is the cluster's error.
    expect(cluster.error).toMatchObject({ step: 'build', instance: 'backend' });
    expect(cluster.error?.message).toContain(VALUES_ERROR);
    expect(cluster.instances.map((instance) => instance.name)).toEqual(['frontend', 'backend', 'worker']);
    const [frontend, backend, worker] = cluster.instances;
    for (const built of [frontend, worker]) {
      expect(built?.error).toBeUndefined();
      expect(built?.changes.length).toBeGreaterThan(0);
      expect(built?.changes.every((change) => change.action === 'created')).toBe(true);
    }
    expect(backend?.changes).toEqual([]);
    expect(backend?.error).toMatchObject({ step: 'build' });
    expect(backend?.error?.message).toContain(VALUES_ERROR);
    // The log tells the instances that were diffed, and the error once.
    expect(result.stderr).toContain('> i:frontend > Deployment/');
    expect(result.stderr).toContain('> i:worker > Deployment/');
    expect(occurrences(result.stderr, VALUES_ERROR), result.stderr).toBe(1);
  });

  it('diff (text): the diffs of the instances that build, the error once; exit 2', async () => {
    const result = await timoniFleet('diff');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain('# broken-1 · frontend · Deployment/');
    expect(result.stdout).toContain('# broken-1 · worker · Deployment/');
    expect(result.stdout).not.toContain('· backend ·');
    expect(result.stderr).toContain('✗ instance backend');
    expect(occurrences(result.stdout + result.stderr, VALUES_ERROR), result.stderr).toBe(1);
  });

  it('apply: nothing is applied to the cluster, and it says so', async () => {
    const result = await timoniFleet('apply', '--wait=false', '-o', 'json');
    expect(result.code, result.stderr).not.toBe(0);
    const applied = JSON.parse(result.stdout) as ChangeSet;
    // The bundle is named though nothing was built whole (a PR comment is found again by it).
    expect(applied.bundle).toBe(cliBundle);
    const cluster = applied.clusters[0]!;
    expect(cluster.status).toBe('failed');
    expect(cluster.error).toMatchObject({ step: 'build', instance: 'backend' });
    expect(cluster.instances.map((instance) => [instance.name, instance.error?.step, instance.changes.length])).toEqual(
      [['backend', 'build', 0]],
    );
    expect(result.stderr).toContain('nothing was applied to cluster broken-1');
    expect(occurrences(result.stderr, VALUES_ERROR), result.stderr).toBe(1);
    const client = clusterClient(CLI_CONTEXT);
    for (const name of ['frontend', 'worker']) {
      expect(
        await client.getOrNull({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: cliNamespace.name, name }),
      ).toBeNull();
    }
  });
});

// ---------------------------------------------------------------------------------------
// The action, on a pull request and its merge: the demo bundle with an instance `backend`
// (first in bundle order) that builds on staging and is broken on production.

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const actionNamespace = `broken-${suffix}`;
const currentStage = useDemoStage(actionNamespace);
let stage: DemoStage;

const BACKEND = `instances: {
		backend: {
			module: {
				url:     "oci://\\(_registry)/modules/webapp"
				version: "1.4.0"
			}
			namespace: "${actionNamespace}"
			values: {
				if _cluster.group == "staging" {
					replicas: 1
				}
				if _cluster.group == "production" {
					replicas: "many"
				}
			}
		}`;

beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: `name:       "broken-${suffix}"` },
    { from: 'namespace: "shop"', to: `namespace: "${actionNamespace}"` },
    { from: 'instances: {', to: BACKEND },
  ]);
});

afterAll(async () => {
  await Promise.allSettled(
    [0, 1, 2].map((cluster) =>
      clusterClient(cluster).delete({ apiVersion: 'v1', kind: 'Namespace', name: actionNamespace }),
    ),
  );
});

function run(event: Parameters<typeof runAction>[0]['event']): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: stage.inputs,
    env: stage.env,
    timeoutMs: 110_000,
  });
}

const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;
const comment = (pr: number) =>
  stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr)[0]?.body ?? '';

describe('the action with an instance broken on the production clusters', () => {
  let pr: ReturnType<DemoStage['openPullRequest']>;

  it("diffs a pull request: each cluster's good instance with its diff, the broken one failed, its error once; the step fails", async () => {
    pr = stage.openPullRequest(231);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
    );
    expect(result.exitCode, result.log).not.toBe(0);
    expect(result.conclusion).toBe('failure');
    const clusters = changes(result).clusters;
    expect(clusters.map((cluster) => [cluster.name, cluster.status])).toEqual([
      ['staging-1', 'changed'],
      ['production-eu', 'failed'],
      ['production-us', 'failed'],
    ]);
    for (const cluster of clusters.slice(1)) {
      expect(cluster.error).toMatchObject({ step: 'build', instance: 'backend' });
      expect(cluster.instances.map((instance) => [instance.name, instance.error?.step ?? 'built'])).toEqual([
        ['backend', 'build'],
        ['frontend', 'built'],
      ]);
      expect(
        cluster.instances[1]?.changes.some((change) => change.kind === 'Deployment' && change.action === 'created'),
      ).toBe(true);
    }

    const body = comment(pr.number);
    // Every cluster shows its frontend; the production clusters' backend failed at build.
    expect(occurrences(body, '**Instance <code>frontend</code>**'), body).toBe(3);
    expect(occurrences(body, '**Instance <code>backend</code>**'), body).toBe(3);
    expect(body).toContain('Hello from production-eu');
    expect(body).toContain('Hello from production-us');
    expect(occurrences(body, VALUES_ERROR), body).toBe(1);
    expect(body).toContain('same error as on <code>production-eu</code>');
    expect(occurrences(result.summary, VALUES_ERROR), result.summary).toBe(1);
    expect(result.summary).toContain('Hello from production-eu');
  });

  it('applies nothing to the first cluster with the broken instance on merge, and stops the rollout there', async () => {
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
    );
    expect(result.exitCode, result.log).not.toBe(0);
    expect(result.outputs['applied-clusters']).toBe('staging-1');
    expect(result.outputs['failed-cluster']).toBe('production-eu');
    const clusters = changes(result).clusters;
    expect(clusters.map((cluster) => cluster.status)).toEqual(['applied', 'failed', 'skipped']);
    const failed = clusters[1]!;
    expect(failed.error).toMatchObject({ step: 'build', instance: 'backend' });
    expect(failed.instances.map((instance) => [instance.name, instance.error?.step])).toEqual([['backend', 'build']]);
    expect(result.log).toContain('nothing was applied to cluster production-eu');
    const body = comment(pr.number);
    expect(body).toContain('nothing was applied to cluster production-eu');
    expect(occurrences(body, VALUES_ERROR), body).toBe(1);
    // Staging got both instances; production-eu got neither.
    for (const name of ['backend', 'frontend']) {
      expect(
        await clusterClient(0).getOrNull({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: actionNamespace,
          name,
        }),
      ).not.toBeNull();
      expect(
        await clusterClient(1).getOrNull({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: actionNamespace,
          name,
        }),
      ).toBeNull();
    }
  });
});
