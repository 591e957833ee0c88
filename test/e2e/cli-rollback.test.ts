// End to end: `timoni-fleet rollback` through the CLI as a user runs it (`node dist/cli/index.js`)
// on the local fleet. A module of this file's own is pushed to a registry of its own as 1.0.0
// and 1.1.0; one instance is applied three times (1.0.0 m1, 1.0.0 m2, 1.1.0 m3). Then:
// `rollback --dry-run` diffs revision 2 against the live 3 and changes nothing; `rollback`
// puts revision 2 back (ConfigMap, Timoni's record, a 4th revision `rollback to 2`);
// `rollback --to 1` puts revision 1 back; a missing revision, an unknown instance and a
// revision that is no number each exit 2 and leave the cluster as it was. Last, a bundle whose
// message is a runtime secret (APP_TOKEN) applied with an old token then a new one: the
// dry-run rollback to the old token's revision masks both tokens (the history's `secrets`).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { pushTimoniModule, startRegistry } from '../harness/registry/index.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(4).toString('hex');
const bundleName = `rollback-${suffix}`;
const namespace = `rollback-${suffix}`;
const secretBundleName = `rollback-secret-${suffix}`;
const secretNamespace = `rollback-secret-${suffix}`;
const record = `timoni-fleet-identity-rollback-${suffix}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const CLUSTER = 'rb-1';
const messages = [1, 2, 3].map((n) => `m${n}-${suffix}`);
const [m1, m2, m3] = messages as [string, string, string];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface HistoryJson {
  clusters: Array<{
    name: string;
    error: string | null;
    instances: Array<{
      name: string;
      revisions: Array<{
        revision: number;
        module: { url: string; version: string; digest: string };
        current: boolean;
        rollbackTo?: number;
      }>;
    }>;
  }>;
}

interface ChangeSetJson {
  mode: string;
  rollback?: { instance?: string; revision?: number };
  clusters: Array<{
    name: string;
    status: string;
    instances: Array<{
      name: string;
      revision?: { to: number; from?: number };
      changes: Array<{ kind: string; name: string; action: string; diff: string }>;
    }>;
  }>;
}

let dir: string;
let moduleUrl: string;
const digests: Record<string, string> = {};

/** A bundle of one instance of the pushed module; `message` is CUE (a quoted string or an attribute). */
function bundle(version: string, message: string, name = bundleName, instance = 'web', ns = namespace): string {
  return `bundle: {
	apiVersion: "v1alpha1"
	name:       "${name}"
	instances: ${instance}: {
		module: url:     "${moduleUrl}"
		module: version: "${version}"
		namespace: "${ns}"
		values: {
			message: ${message}
			test: enabled: false
		}
	}
}
`;
}

function timoniFleet(args: string[], options: { bundle?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const [command = '', ...rest] = args;
  const argv = [
    cli,
    command,
    '-f',
    join(dir, options.bundle ?? 'bundle.cue'),
    '-r',
    join(dir, 'runtime.cue'),
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity-record',
    record,
    ...rest,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), ...options.env };
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

const common = ['--wait=false', '--cluster-identity', 'record'];

async function apply(version: string, message: string): Promise<void> {
  writeFileSync(join(dir, 'bundle.cue'), bundle(version, `"${message}"`));
  const result = await timoniFleet(['apply', ...common]);
  expect(result.code, result.stderr).toBe(0);
}

async function configMapMessage(ns = namespace, name = 'web'): Promise<string | undefined> {
  const map = await clusterClient(1).get<KubeObject & { data?: Record<string, string> }>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: ns,
    name,
  });
  return map.data?.message;
}

async function revisions(): Promise<Array<[number, string, boolean, number | undefined]>> {
  const result = await timoniFleet(['history', '-o', 'json', '--instance', 'web']);
  expect(result.code, result.stderr).toBe(0);
  const parsed = JSON.parse(result.stdout) as HistoryJson;
  expect(parsed.clusters.map((c) => [c.name, c.error])).toEqual([[CLUSTER, null]]);
  return parsed.clusters[0]!.instances[0]!.revisions.map((r) => [
    r.revision,
    r.module.version,
    r.current,
    r.rollbackTo,
  ]);
}

beforeAll(async () => {
  dir = scratchDir('cli-rollback');
  const registry = await startRegistry({ auth: 'anonymous' });
  for (const tag of ['1.0.0', '1.1.0']) {
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: `modules/rollback-${suffix}`,
      tag,
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    });
    moduleUrl = pushed.url;
    digests[tag] = pushed.digest;
  }
  writeFileSync(
    join(dir, 'runtime.cue'),
    `runtime: {
	apiVersion: "v1alpha1"
	name:       "rollback"
	clusters: "${CLUSTER}": {group: "staging", kubeContext: "fleet-2"}
}
`,
  );
  return async () => {
    await registry.stop();
    for (const ns of [namespace, secretNamespace])
      await clusterClient(1)
        .delete({ apiVersion: 'v1', kind: 'Namespace', name: ns })
        .catch(() => undefined);
    await clusterClient(1)
      .delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record })
      .catch(() => undefined);
  };
}, 60_000);

describe('timoni-fleet rollback', () => {
  it('diffs a rollback to the previous revision without touching the cluster (--dry-run)', async () => {
    await apply('1.0.0', m1);
    await apply('1.0.0', m2);
    await apply('1.1.0', m3);
    expect(await revisions()).toEqual([
      [3, '1.1.0', true, undefined],
      [2, '1.0.0', false, undefined],
      [1, '1.0.0', false, undefined],
    ]);

    const dry = await timoniFleet(['rollback', '--dry-run', '-o', 'json', ...common]);
    expect(dry.code, dry.stderr).toBe(1);
    const changeSet = JSON.parse(dry.stdout) as ChangeSetJson;
    expect(changeSet.mode).toBe('diff');
    expect(changeSet.rollback).toEqual({});
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([[CLUSTER, 'changed']]);
    const instance = changeSet.clusters[0]!.instances.find((i) => i.name === 'web')!;
    expect(instance.revision).toEqual({ to: 2, from: 3 });
    const configMap = instance.changes.find((c) => c.kind === 'ConfigMap' && c.name === 'web')!;
    expect(configMap.action).toBe('configured');
    expect(configMap.diff).toContain(m2);

    expect(await configMapMessage()).toBe(m3);
    expect((await revisions()).map((r) => r[0])).toEqual([3, 2, 1]);
  });

  it('puts the previous revision back and records it as a new revision', async () => {
    const result = await timoniFleet(['rollback', ...common]);
    expect(result.code, result.stderr).toBe(0);
    expect(await configMapMessage()).toBe(m2);

    const secret = await clusterClient(1).get<KubeObject & { data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: 'timoni.web',
    });
    const instance = JSON.parse(Buffer.from(secret.data.instance!, 'base64').toString('utf8')) as {
      module: { repository: string; version: string; digest: string };
      values: string;
    };
    expect(instance.module.version).toBe('1.0.0');
    expect(instance.module.digest).toBe(digests['1.0.0']);
    expect(instance.values).toContain(m2);
    expect(instance.values).not.toContain(m3);

    expect(await revisions()).toEqual([
      [4, '1.0.0', true, 2],
      [3, '1.1.0', false, undefined],
      [2, '1.0.0', false, undefined],
      [1, '1.0.0', false, undefined],
    ]);
    const table = await timoniFleet(['history']);
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/));
    expect(rows.map((row) => [row[2], row.slice(8).join(' ')])).toEqual([
      ['4', 'rollback to 2'],
      ['3', 'apply'],
      ['2', 'apply'],
      ['1', 'apply'],
    ]);
  });

  it('puts a named revision back (--to 1)', async () => {
    const result = await timoniFleet(['rollback', '--to', '1', ...common]);
    expect(result.code, result.stderr).toBe(0);
    expect(await configMapMessage()).toBe(m1);
    const listed = await revisions();
    expect(listed.slice(0, 2)).toEqual([
      [5, '1.0.0', true, 1],
      [4, '1.0.0', false, 2],
    ]);
    expect(listed).toHaveLength(5);
  });

  it.each([
    [['--to', '9'], 'has no revision 9 in its history (revisions kept: 5, 4, 3, 2, 1)'],
    [['--instance', 'nope'], 'the bundle lists no instance nope'],
    [['--to', 'abc'], '--to must be a revision number'],
  ])('refuses rollback %j (exit 2) and leaves the cluster as it was', async (flags, message) => {
    const result = await timoniFleet(['rollback', ...flags, ...common]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout + result.stderr).toContain(message);
    expect(await configMapMessage()).toBe(m1);
    expect((await revisions()).map((r) => [r[0], r[2]])).toEqual([
      [5, true],
      [4, false],
      [3, false],
      [2, false],
      [1, false],
    ]);
  });

  it('masks a rotated secret of the revision put back, and leaves an instance with nothing to go back to', async () => {
    writeFileSync(
      join(dir, 'secret.cue'),
      bundle('1.0.0', 'string @timoni(runtime:string:APP_TOKEN)', secretBundleName, 'vault', secretNamespace),
    );
    const oldToken = `old-${randomBytes(12).toString('hex')}`;
    const newToken = `new-${randomBytes(12).toString('hex')}`;
    const withToken = (token: string) => ({ bundle: 'secret.cue', env: { APP_TOKEN: token } });
    const secretFlags = ['--runtime-env', 'APP_TOKEN', ...common];

    const first = await timoniFleet(['apply', ...secretFlags], withToken(oldToken));
    expect(first.code, first.stderr).toBe(0);
    expect(await configMapMessage(secretNamespace, 'vault')).toBe(oldToken);

    // One revision only: nothing to go back to, said so, no change.
    const nothing = await timoniFleet(['rollback', '--dry-run', ...secretFlags], withToken(oldToken));
    expect(nothing.code, nothing.stdout + nothing.stderr).toBe(0);
    expect(nothing.stdout + nothing.stderr).toContain('left as it is');

    const second = await timoniFleet(['apply', ...secretFlags], withToken(newToken));
    expect(second.code, second.stderr).toBe(0);
    expect(await configMapMessage(secretNamespace, 'vault')).toBe(newToken);

    const text = await timoniFleet(['rollback', '--dry-run', ...secretFlags], withToken(newToken));
    const json = await timoniFleet(['rollback', '--dry-run', '-o', 'json', ...secretFlags], withToken(newToken));
    expect(text.code, text.stderr).toBe(1);
    expect(json.code, json.stderr).toBe(1);
    const instance = (JSON.parse(json.stdout) as ChangeSetJson).clusters[0]!.instances.find((i) => i.name === 'vault')!;
    expect(instance.revision).toEqual({ to: 1, from: 2 });
    const configMap = instance.changes.find((c) => c.kind === 'ConfigMap' && c.name === 'vault')!;
    expect(configMap.action).toBe('configured');
    const outputs = {
      'text stdout': text.stdout,
      'text stderr': text.stderr,
      'json stdout': json.stdout,
      'json stderr': json.stderr,
    };
    for (const [where, output] of Object.entries(outputs)) {
      expect(output, `the rotated (old) token, in ${where}`).not.toContain(oldToken);
      expect(output, `the current (new) token, in ${where}`).not.toContain(newToken);
    }
    expect(configMap.diff).toMatch(/^-\s+message: \*\*\*$/m);
    expect(configMap.diff).toMatch(/^\+\s+message: \*\*\*$/m);
    // The dry-run wrote nothing.
    expect(await configMapMessage(secretNamespace, 'vault')).toBe(newToken);
  });
});
