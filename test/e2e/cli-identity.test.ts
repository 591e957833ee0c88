// End to end: never the wrong cluster, in every command of the CLI as a user runs it
// (`node dist/cli/index.js`). Cluster A (the fleet's second API server) is applied and
// recorded as runtime cluster `stage-1`; then a runtime whose `prod-1` context reaches A is
// refused by `delete` (stage-1's objects stay, the exit code is not 0), by `status` with and
// without `-o json`, and by `vet` and `build` before they read the runtime's value queries,
// each naming both runtime names. `--repin-cluster prod-1` lets status and delete reach A as
// prod-1 without rewriting the record; `--cluster-identity record` is refused there (only an
// apply records). The record has a name of this file's own (`--cluster-identity-record`),
// deleted at the end, so that the other tests on the shared fleet never see it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteIdentityRecord, readIdentityRecord } from '../../src/kube/connect/cluster-identity.js';
import { openCluster, type KubeCluster } from '../../src/kube/connect/cluster.js';
import { loadKubeconfig } from '../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../src/secrets.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { createNamespace, type TestNamespace } from '../harness/fleet/namespace.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

/** Cluster A: both runtime names reach it through this context. */
const CONTEXT = 'fleet-2';
const suffix = randomBytes(4).toString('hex');
const record = `timoni-fleet-identity-cli-${suffix}`;
/** A bundle name of this file's own: a delete removes every instance of the bundle on the cluster, and the fleet is shared. */
const bundleName = `cli-identity-${suffix}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let namespaces: [TestNamespace, TestNamespace];
let clusterA: KubeCluster;

function runtime(name: string, group: string, withQuery: boolean): string {
  const query = withQuery
    ? `\n\tvalues: [{query: "k8s:v1:ConfigMap:${namespaces[0].name}:first", for: {STAGE_MESSAGE: "obj.data.message"}}]`
    : '';
  return `runtime: {
	apiVersion: "v1alpha1"
	name:       "cli-identity"
	clusters: "${name}": {group: "${group}", kubeContext: "${CONTEXT}"}${query}
}
`;
}

/** Two instances of the example module, in the test's two namespaces. */
function bundle(): string {
  const instance = (namespace: string) => `{
			module: url: "file://${join(repositoryRoot, 'examples', 'modules', 'webapp')}"
			namespace: "${namespace}"
			values: test: enabled: false
		}`;
  return `bundle: {
	apiVersion: "v1alpha1"
	name:       "${bundleName}"
	instances: {
		first: ${instance(namespaces[0].name)}
		second: ${instance(namespaces[1].name)}
	}
}
`;
}

/** `timoni-fleet <command> <flags>` on the test's bundle, the runtime file given by name. */
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

/** The sentinel objects of stage-1's bundle on A: each instance's ConfigMap and Timoni's instance Secret. */
async function sentinels(): Promise<string[]> {
  const client = clusterClient(CONTEXT);
  const found: string[] = [];
  for (const [namespace, instance] of [
    [namespaces[0].name, 'first'],
    [namespaces[1].name, 'second'],
  ] as const) {
    if (await client.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: instance }))
      found.push(`ConfigMap/${instance}`);
    if (await client.getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace, name: `timoni.${instance}` }))
      found.push(`Secret/timoni.${instance}`);
  }
  return found;
}

const ALL = ['ConfigMap/first', 'Secret/timoni.first', 'ConfigMap/second', 'Secret/timoni.second'];

/** The refusal as diff words it: the context, the recorded name, the name it was reached as. */
function expectRefusal(text: string, uid: string): void {
  expect(text).toContain(
    `cluster prod-1: context "${CONTEXT}" reaches the cluster recorded as "stage-1" (kube-system uid ${uid}`,
  );
  expect(text).toContain('not "prod-1"');
  // The CLI names its own flag, not the action's input.
  expect(text).toContain('run timoni-fleet apply --repin-cluster prod-1');
  expect(text).not.toContain('repin-clusters:');
}

beforeAll(async () => {
  dir = scratchDir('cli-identity');
  namespaces = await Promise.all([
    createNamespace(clusterClient(CONTEXT), { prefix: 'cli-identity-a' }),
    createNamespace(clusterClient(CONTEXT), { prefix: 'cli-identity-b' }),
  ]);
  const secrets = new SecretRegistry();
  clusterA = openCluster(
    loadKubeconfig([{ text: readFileSync(testFleet().kubeconfigPath, 'utf8') }], secrets),
    CONTEXT,
    { secrets, name: CONTEXT },
  );
  writeFileSync(join(dir, 'bundle.cue'), bundle());
  writeFileSync(join(dir, 'stage.cue'), runtime('stage-1', 'staging', false));
  writeFileSync(join(dir, 'prod.cue'), runtime('prod-1', 'production', false));
  writeFileSync(join(dir, 'stage-query.cue'), runtime('stage-1', 'staging', true));
  writeFileSync(join(dir, 'prod-query.cue'), runtime('prod-1', 'production', true));
});

afterAll(async () => {
  await deleteIdentityRecord(clusterA, record).catch(() => undefined);
  clusterA?.close();
  await Promise.allSettled((namespaces ?? []).map((namespace) => namespace.delete()));
});

describe('the CLI never reaches the wrong cluster', () => {
  let uid = '';

  it('applies stage-1 and records A as stage-1', async () => {
    const applied = await timoniFleet(
      'stage.cue',
      'apply',
      '--cluster-identity',
      'record',
      '--cluster-identity-record',
      record,
      '--wait=false',
      '--prune-removed-instances=false',
      '-o',
      'json',
    );
    expect(applied.code, applied.stderr).toBe(0);
    const recorded = await readIdentityRecord(clusterA, record);
    expect(recorded?.runtimeCluster).toBe('stage-1');
    uid = recorded?.uid ?? '';
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await sentinels()).toEqual(ALL);
  });

  it("refuses prod-1's delete on A: stage-1's objects stay, the exit code is 2, the error names both", async () => {
    for (const output of ['text', 'json']) {
      const refused = await timoniFleet(
        'prod.cue',
        'delete',
        '--cluster-identity-record',
        record,
        '--timeout',
        '30s',
        '-o',
        output,
      );
      expect(refused.code, refused.stderr).toBe(2);
      expectRefusal(refused.stderr, uid);
      // Printed once, as diff prints it.
      expect(refused.stderr.split('reaches the cluster recorded as').length - 1).toBe(1);
      expect(refused.stderr).not.toContain('deleting instance');
      if (output === 'json') {
        const [cluster] = (
          JSON.parse(refused.stdout) as {
            clusters: Array<{ name: string; instances: unknown[]; error: string | null }>;
          }
        ).clusters;
        expect(cluster).toMatchObject({ name: 'prod-1', instances: [] });
        expectRefusal(cluster?.error ?? '', uid);
      }
      expect(await sentinels()).toEqual(ALL);
    }
  });

  it("refuses prod-1's status on A, with and without -o, reading nothing there", async () => {
    const timoniLines = await timoniFleet('prod.cue', 'status', '--cluster-identity-record', record);
    expect(timoniLines.code).toBe(2);
    expect(timoniLines.stdout).not.toContain('last applied');
    expect(timoniLines.stdout).toContain(
      `b:${bundleName} > c:prod-1 > ✗ cluster prod-1: context "${CONTEXT}" reaches the cluster recorded as "stage-1"`,
    );
    expectRefusal(timoniLines.stderr, uid);

    const json = await timoniFleet('prod.cue', 'status', '--cluster-identity-record', record, '-o', 'json');
    expect(json.code).toBe(2);
    const state = JSON.parse(json.stdout) as {
      instances: Array<{ cluster: string; state: string; module: unknown; reason: string }>;
    };
    expect(state.instances.map((row) => [row.cluster, row.state, row.module])).toEqual([
      ['prod-1', 'unknown', null],
      ['prod-1', 'unknown', null],
    ]);
    for (const row of state.instances) expectRefusal(row.reason, uid);

    // The recorded name itself reads A.
    const own = await timoniFleet('stage.cue', 'status', '--cluster-identity-record', record);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain('c:stage-1 > i:first > last applied');
  });

  it("refuses prod-1's vet and build before they read the runtime's value queries on A", async () => {
    for (const command of ['vet', 'build']) {
      const refused = await timoniFleet('prod-query.cue', command, '--cluster-identity-record', record);
      expect(refused.code, `${command}: ${refused.stderr}`).toBe(1);
      expect(refused.stdout).toBe('');
      expectRefusal(refused.stderr, uid);
      const own = await timoniFleet('stage-query.cue', command, '--cluster-identity-record', record);
      expect(own.code, `${command}: ${own.stderr}`).toBe(0);
    }
  });

  it('offers no recording to status and delete, and lets a re-pin reach A as prod-1 without rewriting the record', async () => {
    for (const command of ['status', 'delete']) {
      const recording = await timoniFleet(
        'prod.cue',
        command,
        '--cluster-identity',
        'record',
        '--cluster-identity-record',
        record,
      );
      expect(recording.code).toBe(2);
      expect(recording.stderr).toContain('--cluster-identity must be one of check, off, not "record"');
    }
    expect(await sentinels()).toEqual(ALL);

    const status = await timoniFleet(
      'prod.cue',
      'status',
      '--cluster-identity-record',
      record,
      '--repin-cluster',
      'prod-1',
    );
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('c:prod-1 > i:first > last applied');
    expect(status.stderr).toContain('recorded as "stage-1"; re-pinned as "prod-1" by an apply with this re-pin');

    const removed = await timoniFleet(
      'prod.cue',
      'delete',
      '--cluster-identity-record',
      record,
      '--repin-cluster',
      'prod-1',
      '--timeout',
      '60s',
    );
    expect(removed.code, removed.stderr).toBe(0);
    expect(await sentinels()).toEqual([]);
    expect((await readIdentityRecord(clusterA, record))?.runtimeCluster).toBe('stage-1');
  });
});
