// End to end: `--base-ref REF` through the CLI as a user runs it (`node dist/cli/index.js`)
// on the local fleet. The bundle and runtime live in a git repository (a scratch clone);
// the runtime is committed with three clusters and applied, then m-3 is removed from the
// work tree's runtime.cue (not committed). `diff --base-ref HEAD` reads the runtime as
// HEAD has it with git and shows m-3 leaving the fleet; `apply --base-ref HEAD` deletes the
// bundle from fleet-3 and leaves fleet-1 and fleet-2 as they were. Run from a folder below
// the repository root, with -r relative to it: the repository path is worked out. A REF git
// does not know is refused (exit 2) before any cluster is reached.
// On main, --base-ref is not a flag: every step but the first fails there (exit 2).
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(4).toString('hex');
const bundleName = `base-ref-${suffix}`;
const namespace = `base-ref-${suffix}`;
const record = `timoni-fleet-identity-base-ref-${suffix}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const CONTEXTS = ['fleet-1', 'fleet-2', 'fleet-3'] as const;

let repo: string;
let deploy: string;

function runtime(names: string[]): string {
  const contexts: Record<string, string> = { 'm-1': 'fleet-1', 'm-2': 'fleet-2', 'm-3': 'fleet-3' };
  const lines = names.map(
    (name) =>
      `\t\t"${name}": {group: "${name === 'm-1' ? 'staging' : 'production'}", kubeContext: "${contexts[name] ?? ''}"}`,
  );
  return `runtime: {\n\tapiVersion: "v1alpha1"\n\tname:       "base-ref"\n\tclusters: {\n${lines.join('\n')}\n\t}\n}\n`;
}

const bundle = `bundle: {
	apiVersion: "v1alpha1"
	name:       "${bundleName}"
	instances: first: {
		module: url: "file://${join(repositoryRoot, 'examples', 'modules', 'webapp')}"
		namespace: "${namespace}"
		values: test: enabled: false
	}
}
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `timoni-fleet <command> -f bundle.cue -r runtime.cue ...` run in deploy/, a folder below the repository root. */
function timoniFleet(command: string, ...rest: string[]): Promise<Run> {
  const argv = [
    cli,
    command,
    '-f',
    'bundle.cue',
    '-r',
    'runtime.cue',
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity-record',
    record,
    '--allow-path',
    join(repositoryRoot, 'examples', 'modules'),
    ...rest,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: repo, XDG_CACHE_HOME: join(repo, '.cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: deploy, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

async function installed(context: string): Promise<string[]> {
  const client = clusterClient(context);
  const found: string[] = [];
  if (await client.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'first' }))
    found.push('ConfigMap/first');
  if (await client.getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'timoni.first' }))
    found.push('Secret/timoni.first');
  return found;
}

const BOTH = ['ConfigMap/first', 'Secret/timoni.first'];

beforeAll(() => {
  repo = scratchDir('cli-base-ref');
  deploy = join(repo, 'deploy');
  mkdirSync(deploy, { recursive: true });
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
  writeFileSync(join(deploy, 'bundle.cue'), bundle);
  writeFileSync(join(deploy, 'runtime.cue'), runtime(['m-1', 'm-2', 'm-3']));
  git('add', 'deploy');
  git('commit', '-q', '-m', 'three clusters');
});

afterAll(async () => {
  await Promise.allSettled(
    CONTEXTS.flatMap((context) => [
      clusterClient(context).delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace }),
      clusterClient(context).delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record }),
    ]),
  );
});

describe('--base-ref', () => {
  it('applies the committed runtime to three clusters', async () => {
    const applied = await timoniFleet('apply', '--wait=false');
    expect(applied.code, applied.stderr).toBe(0);
    for (const context of CONTEXTS) expect(await installed(context)).toEqual(BOTH);
  });

  it('diff --base-ref HEAD shows the cluster removed from the work tree leaving the fleet', async () => {
    writeFileSync(join(deploy, 'runtime.cue'), runtime(['m-1', 'm-2']));
    const json = await timoniFleet('diff', '--base-ref', 'HEAD', '-o', 'json');
    expect(json.code, json.stderr).toBe(1);
    const changeSet = JSON.parse(json.stdout) as ChangeSet;
    expect(changeSet.clusters.map((cluster) => [cluster.name, cluster.membership ?? null])).toEqual([
      ['m-1', null],
      ['m-2', null],
      ['m-3', 'leaves'],
    ]);
    expect(changeSet.membership?.from).toMatch(/^runtime\.cue at HEAD \([0-9a-f]{7}, --base-ref\)$/);
    expect(await installed('fleet-3')).toEqual(BOTH);
  });

  it('refuses a REF git does not know, before reaching any cluster', async () => {
    const refused = await timoniFleet('diff', '--base-ref', 'no-such-branch');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--base-ref: git does not know "no-such-branch"');
  });

  it('apply --base-ref HEAD deletes the bundle from the leaving cluster and leaves the others untouched', async () => {
    const before = await clusterClient('fleet-1').getOrNull({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      name: 'first',
    });
    const applied = await timoniFleet('apply', '--base-ref', 'HEAD', '--wait=false');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('# m-3 · leaves the fleet');
    expect(await installed('fleet-3')).toEqual([]);
    expect(await installed('fleet-1')).toEqual(BOTH);
    expect(await installed('fleet-2')).toEqual(BOTH);
    const after = await clusterClient('fleet-1').getOrNull({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      name: 'first',
    });
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });
});
