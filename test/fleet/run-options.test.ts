// The run options' contract (src/fleet/run-options.ts) is the one place their defaults are
// written: action.yml's `default:` of every input, and the `(default X)` of every flag in
// `--help` of the commands that reach clusters, must say what it says; each default's text
// reads as its value; the action and the CLI read a run without options as the contract's
// defaults, and give the same reason for the same wrong value. Changing a default in one
// place only fails here.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readActionConfig } from '../../src/action/config.js';
import { parseArguments } from '../../src/cli/arguments.js';
import { fleetFlagsFor, fleetRunFromArgs } from '../../src/cli/options.js';
import type { CueEngine } from '../../src/cue/index.js';
import { defaultFleetOptions } from '../../src/fleet/fleet-run.js';
import { allRunOptions, runOptions, type RunOption } from '../../src/fleet/run-options.js';
import { repositoryRoot } from '../harness/support/go-binary.js';
import { runCliCaptured } from '../cli/run-cli.js';

const actionInputs = (
  parse(readFileSync(join(repositoryRoot, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: unknown }> }
).inputs;

/** What --help shows as a flag's default: a boolean's only when it is true, none when empty. */
function shownCliDefault(option: RunOption): string | undefined {
  if (option.kind === 'boolean') return option.cli.value ? 'true' : undefined;
  return option.cli.text === '' ? undefined : option.cli.text;
}

/** Each flag `--help` lists, with the `(default X)` it shows (undefined: none). */
async function helpDefaults(command: string): Promise<Map<string, string | undefined>> {
  const result = await runCliCaptured([command, '--help'], { cwd: '/' });
  expect(result.code).toBe(0);
  const flags = new Map<string, string | undefined>();
  for (const line of result.stdout.split('\n')) {
    const match = /^\s+(?:-\w, )?\s*--([a-z-]+)\b.*?(?:\(default (.+)\))?$/.exec(line);
    if (match) flags.set(match[1] as string, match[2]);
  }
  return flags;
}

describe('the run options contract', () => {
  it("matches action.yml's default of every option's input", () => {
    for (const option of allRunOptions) {
      const input = actionInputs[option.input];
      expect(input, `action.yml input ${option.input}`).toBeDefined();
      expect(String(input?.default ?? ''), `action.yml ${option.input} default`).toBe(option.action.text);
    }
  });

  it.each(['diff', 'apply', 'status', 'delete', 'history', 'rollback'])(
    'matches the (default X) of every option %s --help lists',
    async (command) => {
      const flags = await helpDefaults(command);
      const listed = allRunOptions.filter((option) => flags.has(option.flag));
      // The options every command that reaches clusters takes are among them.
      for (const option of [
        runOptions.bundle,
        runOptions.runtime,
        runOptions.runtimeGroup,
        runOptions.runtimeEnv,
        runOptions.cueMemoryLimit,
        runOptions.deadline,
        runOptions.clusterIdentity,
      ]) {
        expect(flags.has(option.flag), `${command} --${option.flag}`).toBe(true);
      }
      for (const option of listed)
        expect(flags.get(option.flag), `${command} --${option.flag}`).toBe(shownCliDefault(option));
    },
  );

  it('offers every option as a flag of some command that reaches clusters', async () => {
    const flags = new Set<string>();
    for (const command of ['diff', 'apply', 'status', 'delete', 'history', 'rollback'])
      for (const flag of (await helpDefaults(command)).keys()) flags.add(flag);
    for (const option of allRunOptions) expect(flags.has(option.flag), `--${option.flag}`).toBe(true);
  });

  it("reads each default's text as its value", () => {
    for (const option of allRunOptions) {
      for (const [side, fallback] of [
        ['action', option.action],
        ['cli', option.cli],
      ] as const) {
        if (option.kind === 'boolean') expect(fallback.text, `${option.input} ${side}`).toBe(String(fallback.value));
        else if (option.kind === 'list') expect(fallback.text, `${option.input} ${side}`).toBe('');
        else if (fallback.text !== '')
          expect(option.parse(fallback.text), `${option.input} ${side}`).toEqual(fallback.value);
      }
    }
  });

  it('gives both entry points one default, unless it says why they differ', () => {
    for (const option of allRunOptions) {
      const alike = JSON.stringify(option.action) === JSON.stringify(option.cli);
      expect(alike || (option.differs ?? '').length > 0, option.input).toBe(true);
      if (option.differs) expect(alike, `${option.input} says its defaults differ`).toBe(false);
    }
    expect(allRunOptions.filter((option) => option.differs).map((option) => option.input)).toEqual([
      'deadline',
      'cluster-identity',
    ]);
  });

  it('is what the action reads from inputs left empty', () => {
    const config = readActionConfig({ INPUT_BUNDLE: 'bundle.cue' }, () => undefined);
    expect(config).toMatchObject({
      runtimeFiles: runOptions.runtime.action.value,
      runtimeGroup: runOptions.runtimeGroup.action.value,
      runtimeCluster: runOptions.runtimeCluster.action.value,
      runtimeFromEnv: runOptions.runtimeFromEnv.action.value,
      runtimeEnv: runOptions.runtimeEnv.action.value,
      wait: runOptions.wait.action.value,
      timeoutMs: runOptions.timeout.action.value,
      prune: runOptions.prune.action.value,
      pruneRemovedInstances: runOptions.pruneRemovedInstances.action.value,
      pruneRemovedClusters: runOptions.pruneRemovedClusters.action.value,
      force: runOptions.force.action.value,
      overwriteOwnership: runOptions.overwriteOwnership.action.value,
      concurrency: runOptions.concurrency.action.value,
      strategy: runOptions.strategy.action.value,
      maxParallel: runOptions.maxParallel.action.value,
      deadlineMs: runOptions.deadline.action.value,
      cueMemoryLimitMiB: runOptions.cueMemoryLimit.action.value,
      changesFile: runOptions.changesFile.action.value,
      clusterIdentity: runOptions.clusterIdentity.action.value,
      clusterIdentityRecord: runOptions.clusterIdentityRecord.action.value,
      repinClusters: runOptions.repinClusters.action.value,
      registryCreds: {},
    });
  });

  it('is what the CLI reads from flags left out, and what a fleet run is given by default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-options-'));
    writeFileSync(join(dir, 'bundle.cue'), 'bundle: {}\n');
    writeFileSync(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const args = parseArguments(['-f', 'bundle.cue', '--kubeconfig', 'kubeconfig'], fleetFlagsFor('apply'), {
      command: 'apply',
    });
    const log = { line: () => undefined, startGroup: () => undefined, endGroup: () => undefined };
    // No runtime file: nothing is evaluated, the engine is not called.
    const run = fleetRunFromArgs(
      {} as CueEngine,
      args,
      { cwd: dir, env: {}, stdout: () => undefined, stderr: () => undefined },
      log,
    );
    expect(run.options).toEqual({
      ...defaultFleetOptions,
      identity: {
        mode: runOptions.clusterIdentity.cli.value,
        recordName: runOptions.clusterIdentityRecord.cli.value,
        repin: runOptions.repinClusters.cli.value,
        repinAdvice: expect.any(Function),
      },
    });
    // The CLI's refusal of a cluster recorded under another name says its own flag.
    expect(run.options.identity?.repinAdvice?.('prod-1')).toBe('run timoni-fleet apply --repin-cluster prod-1');
    expect(run.selector).toEqual({
      cluster: runOptions.runtimeCluster.cli.value,
      group: runOptions.runtimeGroup.cli.value,
    });
    expect(run.deadlineAt).toBeUndefined();
    for (const [key, option] of Object.entries({
      force: runOptions.force,
      wait: runOptions.wait,
      timeoutMs: runOptions.timeout,
      prune: runOptions.prune,
      concurrency: runOptions.concurrency,
      strategy: runOptions.strategy,
      maxParallel: runOptions.maxParallel,
    })) {
      expect(defaultFleetOptions[key as keyof typeof defaultFleetOptions], key).toEqual(option.cli.value);
    }
  });

  it('gives the same reason for a wrong value through the action and through the CLI', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-options-'));
    writeFileSync(join(dir, 'bundle.cue'), 'bundle: {}\n');
    writeFileSync(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const wrong: Array<[RunOption, string, string]> = [
      [runOptions.timeout, 'soon', 'must be a duration such as 5m or 90s, not "soon"'],
      [runOptions.deadline, '0s', 'must be a duration such as 30m or 90s, not "0s"'],
      [runOptions.concurrency, '0', 'must be a whole number of clusters, 1 or more, not "0"'],
      [runOptions.maxParallel, '2.5', 'must be a whole number of clusters, 1 or more, not "2.5"'],
      [runOptions.cueMemoryLimit, '10', 'must be a whole number of MiB from 64 to 4096, not "10"'],
      [runOptions.strategy, 'parallel', 'must be one of sequential, waves, not "parallel"'],
      [
        runOptions.clusterIdentityRecord,
        'Not_A_Name',
        'must be a ConfigMap name (lower-case letters, digits, - and .), not "Not_A_Name"',
      ],
      [runOptions.runtimeEnv, '1X', '"1X" is not an environment variable name'],
    ];
    for (const [option, value, reason] of wrong) {
      expect(
        () =>
          readActionConfig(
            { INPUT_BUNDLE: 'bundle.cue', [`INPUT_${option.input.toUpperCase()}`]: value },
            () => undefined,
          ),
        option.input,
      ).toThrow(`input "${option.input}": ${reason}`);
      const command = option === runOptions.concurrency ? 'diff' : 'apply';
      const result = await runCliCaptured(
        [command, '-f', 'bundle.cue', '--kubeconfig', 'kubeconfig', `--${option.flag}`, value],
        { cwd: dir },
      );
      expect(result.code, option.flag).toBe(2);
      expect(result.stderr, option.flag).toContain(
        `--${option.flag}${reason.startsWith('must') ? ' ' : ': '}${reason}`,
      );
    }
  });
});
