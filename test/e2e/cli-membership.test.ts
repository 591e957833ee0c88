// End to end: fleet membership through the CLI as a user runs it (`node dist/cli/index.js`)
// on the local fleet. A bundle of this file's own (one instance, in a namespace of its own)
// is applied to three runtime clusters, one per API server (fleet-1, fleet-2, fleet-3). Then:
// - the runtime without `m-3`, with the old runtime as --base-runtime: diff shows m-3 leaving
//   the fleet with the objects that would be deleted (exit 1: changes), and apply deletes
//   them from fleet-3 (the instance's ConfigMap, Timoni's instance Secret) and leaves
//   fleet-1 and fleet-2 as they were;
// - `m-2` renamed `m-2-renamed`, same context: a rename, not a leave: nothing is deleted,
//   and the identity record is re-pinned to the new name by the apply;
// - a base cluster whose context is no longer in the kubeconfig: reported with the commands
//   that remove the bundle by hand, exit 0 (not a failure).
// On main, --base-runtime is not a flag: every step fails there (exit 2, unknown flag).
// The identity record has a name of this file's own, deleted at the end.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(4).toString('hex');
const bundleName = `membership-${suffix}`;
const namespace = `membership-${suffix}`;
const record = `timoni-fleet-identity-membership-${suffix}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const CONTEXTS = ['fleet-1', 'fleet-2', 'fleet-3'] as const;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;

function runtime(clusters: Record<string, { group: string; context: string }>): string {
  const lines = Object.entries(clusters).map(
    ([name, { group, context }]) => `\t\t"${name}": {group: "${group}", kubeContext: "${context}"}`,
  );
  return `runtime: {
	apiVersion: "v1alpha1"
	name:       "membership"
	clusters: {
${lines.join('\n')}
	}
}
`;
}

function bundle(): string {
  return `bundle: {
	apiVersion: "v1alpha1"
	name:       "${bundleName}"
	instances: first: {
		module: url: "file://${join(repositoryRoot, 'examples', 'modules', 'webapp')}"
		namespace: "${namespace}"
		values: test: enabled: false
	}
}
`;
}

function timoniFleet(runtimeFile: string, ...args: string[]): Promise<Run> {
  const [command = '', ...rest] = args;
  const argv = [
    cli,
    command,
    '-f',
    join(dir, 'bundle.cue'),
    '-r',
    join(dir, runtimeFile),
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity-record',
    record,
    ...rest,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: repositoryRoot, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** What of the bundle is on each API server: the instance's ConfigMap and Timoni's instance Secret. */
async function installed(context: string): Promise<string[]> {
  const client = clusterClient(context);
  const found: string[] = [];
  if (await client.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'first' }))
    found.push('ConfigMap/first');
  if (await client.getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'timoni.first' }))
    found.push('Secret/timoni.first');
  return found;
}

async function recordedAs(context: string): Promise<string | undefined> {
  const map = await clusterClient(context).getOrNull({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'kube-system',
    name: record,
  });
  return (map as { data?: Record<string, string> } | null)?.data?.runtimeCluster;
}

const BOTH = ['ConfigMap/first', 'Secret/timoni.first'];
const three = {
  'm-1': { group: 'staging', context: 'fleet-1' },
  'm-2': { group: 'production', context: 'fleet-2' },
  'm-3': { group: 'production', context: 'fleet-3' },
};
const two = { 'm-1': three['m-1'], 'm-2': three['m-2'] };

beforeAll(() => {
  dir = scratchDir('cli-membership');
  writeFileSync(join(dir, 'bundle.cue'), bundle());
  writeFileSync(join(dir, 'three.cue'), runtime(three));
  writeFileSync(join(dir, 'two.cue'), runtime(two));
  // m-1 moved to another group: not a leave.
  writeFileSync(
    join(dir, 'two-moved.cue'),
    runtime({ 'm-1': { group: 'production', context: 'fleet-1' }, 'm-2': three['m-2'] }),
  );
  writeFileSync(join(dir, 'renamed.cue'), runtime({ 'm-1': three['m-1'], 'm-2-renamed': three['m-2'] }));
  writeFileSync(
    join(dir, 'renamed-gone.cue'),
    runtime({
      'm-1': three['m-1'],
      'm-2-renamed': three['m-2'],
      'm-gone': { group: 'production', context: 'no-such-context' },
    }),
  );
});

afterAll(async () => {
  await Promise.allSettled(
    CONTEXTS.flatMap((context) => [
      clusterClient(context).delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace }),
      clusterClient(context).delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record }),
    ]),
  );
});

describe('fleet membership through the CLI', () => {
  it('applies the bundle to three clusters', async () => {
    const applied = await timoniFleet('three.cue', 'apply', '--cluster-identity', 'record', '--wait=false');
    expect(applied.code, applied.stderr).toBe(0);
    for (const context of CONTEXTS) expect(await installed(context)).toEqual(BOTH);
  });

  it('diff shows the cluster removed from the runtime leaving the fleet, with the objects that would be deleted', async () => {
    const text = await timoniFleet('two-moved.cue', 'diff', '--base-runtime', join(dir, 'three.cue'));
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(
      `# m-3 · leaves the fleet (listed in ${join(dir, 'three.cue')} (--base-runtime)): instance(s) first,`,
    );
    expect(text.stdout).toMatch(/# m-3 · first · ConfigMap\/membership-[0-9a-f]+\/first deleted/);
    // m-1 only moved group: not a leave.
    expect(text.stdout).not.toContain('# m-1 · leaves');

    const json = await timoniFleet('two.cue', 'diff', '--base-runtime', join(dir, 'three.cue'), '-o', 'json');
    expect(json.code, json.stderr).toBe(1);
    const changeSet = JSON.parse(json.stdout) as ChangeSet;
    expect(changeSet.clusters.map((cluster) => [cluster.name, cluster.status, cluster.membership ?? null])).toEqual([
      ['m-1', 'unchanged', null],
      ['m-2', 'unchanged', null],
      ['m-3', 'changed', 'leaves'],
    ]);
    const leaving = changeSet.clusters[2]!;
    expect(leaving.kubeContext).toBe('fleet-3');
    expect(leaving.instances.map((instance) => [instance.name, instance.removed])).toEqual([['first', true]]);
    expect(
      leaving.instances[0]!.changes.filter((change) => change.action === 'deleted').map(
        (change) => `${change.kind}/${change.name}`,
      ),
    ).toContain('ConfigMap/first');
    // A diff deletes nothing.
    expect(await installed('fleet-3')).toEqual(BOTH);
  });

  it('status lists the instances on the cluster no longer in the runtime as orphaned (its context still given, its identity record naming it)', async () => {
    const status = await timoniFleet('two.cue', 'status', '-o', 'json');
    const state = JSON.parse(status.stdout) as {
      instances: Array<{ cluster: string; instance: string; state: string; reason: string }>;
    };
    const orphaned = state.instances.filter((row) => row.state === 'orphaned');
    expect(orphaned.map((row) => [row.cluster, row.instance])).toEqual([['m-3', 'first']]);
    expect(orphaned[0]?.reason).toContain(`timoni bundle delete --name ${bundleName} --kube-context fleet-3`);
    expect(status.code).toBe(1);
  });

  it('apply removes the bundle from the leaving cluster and leaves the others untouched', async () => {
    const before = await clusterClient('fleet-1').getOrNull({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      name: 'first',
    });
    const applied = await timoniFleet(
      'two.cue',
      'apply',
      '--base-runtime',
      join(dir, 'three.cue'),
      '--cluster-identity',
      'record',
      '--wait=false',
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('# m-3 · leaves the fleet');
    expect(applied.stdout).toContain('instance(s) first, 4 objects deleted');
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

  it('a rename with the same context deletes nothing and re-pins the identity record on apply', async () => {
    expect(await recordedAs('fleet-2')).toBe('m-2');
    const diff = await timoniFleet('renamed.cue', 'diff', '--base-runtime', join(dir, 'two.cue'), '-o', 'json');
    expect(diff.code, diff.stderr).toBe(0);
    const changeSet = JSON.parse(diff.stdout) as ChangeSet;
    expect(changeSet.clusters.map((cluster) => [cluster.name, cluster.status, cluster.membership ?? null])).toEqual([
      ['m-1', 'unchanged', null],
      ['m-2-renamed', 'unchanged', { renamedFrom: 'm-2' }],
    ]);

    const applied = await timoniFleet(
      'renamed.cue',
      'apply',
      '--base-runtime',
      join(dir, 'two.cue'),
      '--cluster-identity',
      'record',
      '--wait=false',
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('# m-2-renamed · renamed from m-2');
    expect(await installed('fleet-2')).toEqual(BOTH);
    expect(await recordedAs('fleet-2')).toBe('m-2-renamed');
  });

  it('a leaving cluster whose context is gone is reported with the commands to remove the bundle by hand, not failed', async () => {
    for (const command of ['diff', 'apply']) {
      const run = await timoniFleet(
        'renamed.cue',
        command,
        '--base-runtime',
        join(dir, 'renamed-gone.cue'),
        ...(command === 'apply' ? ['--wait=false'] : []),
      );
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('# m-gone · leaves the fleet');
      expect(run.stdout).toContain(
        'kube context "no-such-context" is not in the kubeconfig: the bundle stays installed there',
      );
      expect(run.stdout).toContain(`timoni bundle delete --name ${bundleName} --kube-context no-such-context`);
    }
    // Selected alone: the run covers that leaving cluster only.
    const alone = await timoniFleet(
      'renamed.cue',
      'diff',
      '--base-runtime',
      join(dir, 'renamed-gone.cue'),
      '--runtime-cluster',
      'm-gone',
      '-o',
      'json',
    );
    expect(alone.code, alone.stderr).toBe(0);
    expect(
      (JSON.parse(alone.stdout) as ChangeSet).clusters.map((cluster) => [cluster.name, cluster.membership]),
    ).toEqual([['m-gone', 'leaves']]);
    expect(await installed('fleet-1')).toEqual(BOTH);
    expect(await installed('fleet-2')).toEqual(BOTH);
  });

  it('delete --cluster removes the bundle from one cluster; a base name whose cluster was renamed is refused', async () => {
    const refused = await timoniFleet(
      'renamed.cue',
      'delete',
      '--cluster',
      'm-2',
      '--base-runtime',
      join(dir, 'two.cue'),
      '--wait=false',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('reaches the cluster recorded as "m-2-renamed"');
    expect(await installed('fleet-2')).toEqual(BOTH);

    const removed = await timoniFleet('renamed.cue', 'delete', '--cluster', 'm-1', '--wait=false');
    expect(removed.code, removed.stderr).toBe(0);
    expect(await installed('fleet-1')).toEqual([]);
    expect(await installed('fleet-2')).toEqual(BOTH);
  });

  it('never takes for a rename a new name whose context reaches a cluster recorded under a name that stays', async () => {
    // m-2-renamed leaves; m-new is added with the context of m-1, whose record names m-1 (still in the runtime).
    writeFileSync(join(dir, 'before-new.cue'), runtime({ 'm-1': three['m-1'], 'm-2-renamed': three['m-2'] }));
    writeFileSync(join(dir, 'with-new.cue'), runtime({ 'm-1': three['m-1'], 'm-new': three['m-1'] }));
    const applied = await timoniFleet(
      'with-new.cue',
      'apply',
      '--base-runtime',
      join(dir, 'before-new.cue'),
      '--cluster-identity',
      'record',
      '--wait=false',
      '-o',
      'json',
    );
    expect(applied.code).toBe(2);
    const changeSet = JSON.parse(applied.stdout) as ChangeSet;
    expect(
      changeSet.clusters.map((cluster) => [
        cluster.name,
        cluster.status,
        cluster.error?.step ?? null,
        cluster.membership ?? null,
      ]),
    ).toEqual([
      ['m-1', 'applied', null, null],
      ['m-new', 'failed', 'identity', null],
      ['m-2-renamed', 'skipped', null, 'leaves'],
    ]);
    expect(await recordedAs('fleet-1')).toBe('m-1');
    // The leaving cluster is not touched after a failed rollout.
    expect(await installed('fleet-2')).toEqual(BOTH);
  });
});
