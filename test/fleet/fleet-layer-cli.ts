// Runs `timoni-fleet <command>` in-process on the fixtures of this folder: the bundle of two
// instances of the example module, their namespaces and the runtime given by the test.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChangeSet } from '../../src/changeset.js';
import { runCliCaptured, type CliResult } from '../cli/run-cli.js';

export const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface FleetLayerRun {
  kubeconfigPath: string;
  /** A file of fixtures/ (runtime-fleet-3.cue, runtime-outage.cue). */
  runtime: string;
  namespaces: [string, string];
}

export interface FleetLayerResult extends CliResult {
  /** The ChangeSet printed with `-o json` (diff and apply). */
  changeSet: ChangeSet;
  elapsedMs: number;
}

export async function fleetLayerCli(
  command: 'diff' | 'apply',
  run: FleetLayerRun,
  ...extra: string[]
): Promise<FleetLayerResult> {
  const started = Date.now();
  const result = await runCliCaptured(
    [
      command,
      '-f',
      'two-instances.cue',
      '-r',
      run.runtime,
      '--kubeconfig',
      run.kubeconfigPath,
      '--runtime-from-env',
      '-o',
      'json',
      ...extra,
    ],
    { cwd: fixtures, env: { FLEET_LAYER_NS_A: run.namespaces[0], FLEET_LAYER_NS_B: run.namespaces[1] } },
  );
  const elapsedMs = Date.now() - started;
  let changeSet: ChangeSet;
  try {
    changeSet = JSON.parse(result.stdout) as ChangeSet;
  } catch {
    throw new Error(
      `timoni-fleet ${command} printed no ChangeSet (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return { ...result, changeSet, elapsedMs };
}
