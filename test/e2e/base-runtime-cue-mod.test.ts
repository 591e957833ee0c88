// End to end, as a pull request's author would try it: a pull request that changes ONLY
// cue.mod. The runtime file is the same at the base and the head; it imports the list of
// clusters from a package under cue.mod/pkg, and the pull request drops production-us from
// that package. The base commit's own files give three clusters, so production-us leaves
// the fleet; evaluated with the head's cue.mod, the base would have had two clusters, and
// the pull request would hide that it takes a cluster out of the fleet (nothing shown as
// leaving, the bundle left orphaned there after the merge).
//
// The action (`node dist/index.js`) reads the base through the GitHub stand-in's contents
// endpoint (the workspace has no .git, as a shallow checkout); the CLI (`node
// dist/cli/index.js diff --base-ref HEAD`) reads it with git from a scratch repository
// whose work tree changes only cue.mod. Both must show production-us (m-3) leaving.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { fakeSha } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const NAMESPACE = 'basecuemod';
const currentStage = useDemoStage(NAMESPACE);
let stage: DemoStage;

/** The runtime, the same at the base and the head: its clusters come from cue.mod. */
const RUNTIME = `import "example.com/fleetmembers"

runtime: {
	apiVersion: "v1alpha1"
	name:       "demo"
	clusters:   fleetmembers.clusters
}
`;
const MODULE_CUE = 'module: "acme.com/shop-deploy"\nlanguage: version: "v0.9.0"\n';
const MEMBERS_PATH = 'cue.mod/pkg/example.com/fleetmembers/members.cue';

/** The package that lists the clusters: name to [group, context]. */
function members(clusters: Record<string, [string, string]>): string {
  const lines = Object.entries(clusters).map(
    ([name, [group, context]]) => `\t"${name}": {group: "${group}", kubeContext: "${context}"}`,
  );
  return `package fleetmembers\n\nclusters: {\n${lines.join('\n')}\n}\n`;
}
const THREE = {
  'staging-1': ['staging', 'fleet-1'],
  'production-eu': ['production', 'fleet-2'],
  'production-us': ['production', 'fleet-3'],
} satisfies Record<string, [string, string]>;
const { 'production-us': _left, ...TWO } = THREE;

/** Writes cue.mod (module.cue and the members package) under `dir`. */
function writeCueMod(dir: string, clusters: Record<string, [string, string]>): void {
  rmSync(join(dir, 'cue.mod'), { recursive: true, force: true });
  mkdirSync(join(dir, 'cue.mod', 'pkg', 'example.com', 'fleetmembers'), { recursive: true });
  writeFileSync(join(dir, 'cue.mod', 'module.cue'), MODULE_CUE);
  writeFileSync(join(dir, MEMBERS_PATH), members(clusters));
}

const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;

beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "basecuemod"' },
    { from: 'namespace: "shop"', to: `namespace: "${NAMESPACE}"` },
  ]);
});

describe('the base runtime is evaluated from the base commit alone', () => {
  it('a pull request that changes only cue.mod shows the cluster it drops leaving the fleet (action)', async () => {
    const baseSha = fakeSha('basecuemod-base');
    // The head (the workspace): the same runtime.cue, cue.mod's package with two clusters.
    writeFileSync(join(stage.workdir, 'runtime.cue'), RUNTIME);
    writeCueMod(stage.workdir, TWO);
    // The base: the same runtime.cue, cue.mod's package with three.
    stage.github.state.putFiles(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, baseSha, {
      'bundle.cue': 'bundle: {}\n',
      'runtime.cue': RUNTIME,
      'cue.mod/module.cue': MODULE_CUE,
      [MEMBERS_PATH]: members(THREE),
    });
    const pr = stage.openPullRequest(3101);
    const result = await runAction({
      event: pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha, baseSha }),
      githubApiUrl: stage.github.url,
      token: stage.github.token,
      workdir: stage.workdir,
      inputs: { ...stage.inputs },
      env: stage.env,
      timeoutMs: 110_000,
    });
    expect(result.exitCode, result.log).toBe(0);

    const changeSet = changes(result);
    expect(changeSet.clusters.map((cluster) => [cluster.name, cluster.membership ?? null])).toEqual([
      ['staging-1', null],
      ['production-eu', null],
      ['production-us', 'leaves'],
    ]);
    expect(changeSet.membership?.from).toMatch(
      /^runtime\.cue at base commit [0-9a-f]{7} \(the pull request's base\), read with the GitHub API$/,
    );
    // The package was read at the base commit, not taken from the workspace.
    expect(stage.github.state.requestsTo('GET', /\/contents\//).map((request) => request.path)).toContain(
      `/repos/${repository}/contents/${MEMBERS_PATH}?ref=${baseSha}`,
    );
    expect(result.log).toContain('fleet membership: base runtime runtime.cue at base commit');
    expect(result.log).toContain('clusters staging-1, production-eu, production-us');
    const body = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number).at(-1)?.body;
    expect(body).toContain('production-us');
    expect(body).toMatch(/leaves the fleet/);
  });

  it('diff --base-ref HEAD reads cue.mod as HEAD has it, not the work tree (CLI)', async () => {
    const suffix = randomBytes(4).toString('hex');
    const repo = scratchDir('base-cue-mod');
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, ...args], {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@e',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@e',
        },
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(
      join(repo, 'bundle.cue'),
      `bundle: {
	apiVersion: "v1alpha1"
	name:       "base-cue-mod-${suffix}"
	instances: first: {
		module: url: "file://${join(repositoryRoot, 'examples', 'modules', 'webapp')}"
		namespace: "base-cue-mod-${suffix}"
		values: test: enabled: false
	}
}
`,
    );
    writeFileSync(join(repo, 'runtime.cue'), RUNTIME);
    const clusters = {
      'm-1': ['staging', 'fleet-1'],
      'm-2': ['production', 'fleet-2'],
      'm-3': ['production', 'fleet-3'],
    } satisfies Record<string, [string, string]>;
    writeCueMod(repo, clusters);
    git('add', '.');
    git('commit', '-q', '-m', 'three clusters');
    // The work tree changes only cue.mod: m-3 dropped from the package.
    const { 'm-3': _dropped, ...twoClusters } = clusters;
    writeCueMod(repo, twoClusters);

    const argv = [
      join(repositoryRoot, 'dist', 'cli', 'index.js'),
      'diff',
      '-f',
      'bundle.cue',
      '-r',
      'runtime.cue',
      '--kubeconfig',
      testFleet().kubeconfigPath,
      '--cluster-identity-record',
      `timoni-fleet-identity-base-cue-mod-${suffix}`,
      '--allow-path',
      join(repositoryRoot, 'examples', 'modules'),
      '--base-ref',
      'HEAD',
      '-o',
      'json',
    ];
    const env = { PATH: process.env.PATH ?? '', HOME: repo, XDG_CACHE_HOME: join(repo, '.cache') };
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        argv,
        { cwd: repo, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
    // The bundle is new on m-1 and m-2: changes, exit code 1.
    expect(result.code, result.stderr).toBe(1);
    const changeSet = JSON.parse(result.stdout) as ChangeSet;
    expect(changeSet.clusters.map((cluster) => [cluster.name, cluster.membership ?? null])).toEqual([
      ['m-1', null],
      ['m-2', null],
      ['m-3', 'leaves'],
    ]);
    expect(changeSet.membership?.from).toMatch(/^runtime\.cue at HEAD \([0-9a-f]{7}, --base-ref\)$/);
  });
});
