// Exit codes CI can trust, as a user's workflow runs the CLI (`node dist/cli/index.js`) on
// the local fleet: every command, against every kind of failure to do its job. The commands
// that reach clusters (diff, apply, status, delete) exit 2 on each, so that their 1 keeps its
// one meaning (diff: drift; status: not all deployed); vet and build exit 1, as `timoni
// bundle vet|build` do (Timoni exits 1 on every error, a bad flag included).
//
// The bundle (one instance of the example module, copied beside it) has a name and a
// namespace of this file's own, so that a command that runs when it should have refused
// (today's `--runtime-from-env false`, a stray word) touches nothing of the other tests on
// the shared fleet; apply does not wait. The refused identity is a record of this file's
// own name on the fleet's third cluster, naming another runtime cluster. Both are deleted at
// the end.
import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  identityRecordObject,
  IDENTITY_FIELD_MANAGER,
  IDENTITY_NAMESPACE,
} from '../../src/kube/connect/cluster-identity.js';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { createNamespace, type TestNamespace } from '../harness/fleet/namespace.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';
import { runBuiltCli, type CliResult } from './run-cli.js';

const suffix = randomBytes(4).toString('hex');
const record = `timoni-fleet-identity-exit-${suffix}`;
const COMMANDS = ['vet', 'build', 'diff', 'apply', 'status', 'delete'] as const;
type Command = (typeof COMMANDS)[number];
/** The code of a failure to do the job, per command. */
const FAILURE: Record<Command, number> = { vet: 1, build: 1, diff: 2, apply: 2, status: 2, delete: 2 };

let dir: string;
let namespace: TestNamespace;

/** Flags that keep each command from waiting or recording (none of them is a failure). */
const quiet: Record<Command, string[]> = {
  vet: [],
  build: [],
  diff: [],
  apply: ['--wait=false'],
  status: [],
  delete: ['--wait=false'],
};

/** `timoni-fleet <command> -f <bundle> -r <runtime> --kubeconfig <kubeconfig> <extra>`, in the test's folder. */
function command(
  name: Command,
  options: { bundle?: string | null; runtime?: string; kubeconfig?: string; extra?: string[] },
): Promise<CliResult> {
  const bundle = options.bundle === null ? [] : ['-f', options.bundle ?? 'bundle.cue'];
  const argv = [
    name,
    ...bundle,
    '-r',
    options.runtime ?? 'runtime.cue',
    '--kubeconfig',
    options.kubeconfig ?? 'kubeconfig',
    '--cluster-identity-record',
    record,
    ...quiet[name],
    ...(options.extra ?? []),
  ];
  return runBuiltCli(argv, dir);
}

const runtime = (clusters: string) =>
  `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "exit-codes"\n\tclusters: {\n${clusters}\n\t}\n}\n`;

beforeAll(async () => {
  dir = scratchDir('cli-exit-codes');
  const fleet = testFleet();
  namespace = await createNamespace(clusterClient(0), { prefix: 'cli-exit-codes' });
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), join(dir, 'webapp'), { recursive: true });
  writeFileSync(
    join(dir, 'bundle.cue'),
    `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "exit-codes-${suffix}"\n\tinstances: web: {\n\t\tmodule: url: "file://./webapp"\n\t\tnamespace: "${namespace.name}"\n\t\tvalues: test: enabled: false\n\t}\n}\n`,
  );
  writeFileSync(join(dir, 'runtime.cue'), runtime('\t\t"mine": {group: "staging", kubeContext: "fleet-1"}'));
  // A cluster name Timoni refuses, and one cluster defined twice with other values.
  writeFileSync(
    join(dir, 'runtime-bad-name.cue'),
    runtime('\t\t"Staging_1!": {group: "staging", kubeContext: "fleet-1"}'),
  );
  writeFileSync(
    join(dir, 'runtime-duplicate.cue'),
    runtime(
      '\t\t"mine": {group: "staging", kubeContext: "fleet-1"}\n\t\t"mine": {group: "production", kubeContext: "fleet-2"}',
    ),
  );
  writeFileSync(
    join(dir, 'runtime-unreachable.cue'),
    runtime('\t\t"gone": {group: "staging", kubeContext: "unreachable"}'),
  );
  writeFileSync(join(dir, 'runtime-refused.cue'), runtime('\t\t"mine": {group: "staging", kubeContext: "fleet-3"}'));

  // The fleet's kubeconfig, with one more context on a port nothing listens on.
  const config = parse(readFileSync(fleet.kubeconfigPath, 'utf8')) as {
    clusters: Array<Record<string, unknown>>;
    contexts: Array<{ name: string; context: Record<string, string> }>;
  };
  config.clusters.push({
    name: 'unreachable',
    cluster: { server: 'https://127.0.0.1:9', 'insecure-skip-tls-verify': true },
  });
  config.contexts.push({
    name: 'unreachable',
    context: { cluster: 'unreachable', user: config.contexts[0]?.context.user ?? '' },
  });
  writeFileSync(join(dir, 'kubeconfig'), stringify(config), { mode: 0o600 });
  writeFileSync(join(dir, 'kubeconfig-broken'), 'apiVersion: v1\nclusters: [\n  - name: x\n kind: Config\n', {
    mode: 0o600,
  });

  // The fleet's third cluster, recorded as another runtime cluster under this file's record name.
  const third = clusterClient(2);
  const kubeSystem = await third.get<KubeObject>({
    apiVersion: 'v1',
    kind: 'Namespace',
    namespace: '',
    name: IDENTITY_NAMESPACE,
  });
  const uid = kubeSystem.metadata.uid as string;
  await third.apply(
    identityRecordObject(record, {
      runtimeCluster: 'someone-else',
      uid,
      recordedAt: new Date().toISOString(),
    }) as KubeObject,
    { fieldManager: IDENTITY_FIELD_MANAGER, force: true },
  );
});

afterAll(async () => {
  await command('delete', {}).catch(() => undefined);
  await namespace?.delete().catch(() => undefined);
  await clusterClient(2)
    .delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: IDENTITY_NAMESPACE, name: record })
    .catch(() => undefined);
});

/** Runs every command of `commands` on one kind of failure; expects each command's failure code and the message. */
async function expectFailure(
  commands: readonly Command[],
  options: Parameters<typeof command>[1],
  message: string | RegExp,
): Promise<void> {
  const runs = await Promise.all(commands.map((name) => command(name, options)));
  const codes = Object.fromEntries(commands.map((name, index) => [name, runs[index]?.code]));
  const failures = Object.fromEntries(commands.map((name) => [name, FAILURE[name]]));
  expect(codes, runs.map((run, index) => `${commands[index]}: ${run.stderr}`).join('\n')).toEqual(failures);
  for (const [index, run] of runs.entries()) expect(run.stderr, commands[index]).toMatch(message);
}

const fleetCommands = ['diff', 'apply', 'status', 'delete'] as const;

describe('exit codes: every command against every kind of failure', { timeout: 240_000 }, () => {
  it('works first: vet and build 0, diff 1 (drift), apply 0, diff 0 (in sync), status 0, delete 0', async () => {
    const codes: Array<[string, number]> = [];
    for (const name of ['vet', 'build', 'diff', 'apply', 'diff', 'status', 'delete'] as const) {
      const run = await command(name, {});
      codes.push([name, run.code]);
      expect(run.code === 0 || run.code === 1, `${name}: ${run.stderr}`).toBe(true);
    }
    expect(codes).toEqual([
      ['vet', 0],
      ['build', 0],
      ['diff', 1],
      ['apply', 0],
      ['diff', 0],
      ['status', 0],
      ['delete', 0],
    ]);
  });

  it('no cluster matches --runtime-group', async () => {
    await expectFailure(
      COMMANDS,
      { extra: ['--runtime-group', 'nope'] },
      'no cluster of runtime "exit-codes" matches group "nope"',
    );
  });

  it('a bundle file that does not exist', async () => {
    await expectFailure(COMMANDS, { bundle: 'nope.cue' }, 'nope.cue: no such file');
  });

  it('no bundle file given', async () => {
    await expectFailure(COMMANDS, { bundle: null }, 'pass one or more files with -f');
  });

  it('an invalid runtime cluster name', async () => {
    await expectFailure(COMMANDS, { runtime: 'runtime-bad-name.cue' }, 'runtime cluster name "Staging_1!" is invalid');
  });

  it('a runtime cluster defined twice', async () => {
    await expectFailure(COMMANDS, { runtime: 'runtime-duplicate.cue' }, /conflicting values/);
  });

  it('an unknown flag', async () => {
    await expectFailure(COMMANDS, { extra: ['--runtime-grup', 'staging'] }, 'unknown flag --runtime-grup');
  });

  it('a boolean flag followed by a separate true|false', async () => {
    await expectFailure(COMMANDS, { extra: ['--runtime-from-env', 'false'] }, 'write --runtime-from-env=false');
  });

  it('a stray word', async () => {
    await expectFailure(COMMANDS, { extra: ['junk', 'more'] }, 'unexpected argument "junk"');
  });

  it('a kubeconfig with a YAML syntax error', async () => {
    await expectFailure(fleetCommands, { kubeconfig: 'kubeconfig-broken' }, /kubeconfig-broken is not valid YAML/);
  });

  it('a kubeconfig that does not exist', async () => {
    await expectFailure(
      fleetCommands,
      { kubeconfig: 'no-such-kubeconfig' },
      /cannot read kubeconfig .*no-such-kubeconfig/,
    );
  });

  it('a cluster that cannot be reached', async () => {
    await expectFailure(fleetCommands, { runtime: 'runtime-unreachable.cue' }, /gone/);
    const json = await command('status', { runtime: 'runtime-unreachable.cue', extra: ['-o', 'json'] });
    expect(json.code, json.stderr).toBe(2);
  });

  it('a cluster refused on its identity', async () => {
    await expectFailure(
      fleetCommands,
      { runtime: 'runtime-refused.cue' },
      'reaches the cluster recorded as "someone-else"',
    );
    const json = await command('status', { runtime: 'runtime-refused.cue', extra: ['-o', 'json'] });
    expect(json.code, json.stderr).toBe(2);
  });

  it('a duration that is not one', async () => {
    await expectFailure(['apply', 'delete'], { extra: ['--timeout', 'soon'] }, '--timeout must be a duration');
  });
});
