// vitest globalSetup: starts the local fleet (3 clusters, in parallel) once per test run,
// provides its description to the tests as `inject('fleet')`, and stops it at teardown, or
// on exit, SIGINT or SIGTERM if the run ends another way.
//
// TIMONI_FLEET_CLUSTERS=N starts N clusters instead of 3. The fleet of the test run has no
// fake nodes: tests make workloads ready with readiness.ts.
// TIMONI_FLEET_DIR=DIR reuses a fleet already started with `npm run fleet -- up --dir DIR`
// (much faster while iterating on tests); that fleet is left running afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { describeState, startFleet, type Fleet, type FleetDescription } from './fleet.js';
import { isRunning, sweepProcessesSync } from './processes.js';
import { processesToStop, readState } from './state.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The local fleet of this test run; see test/harness/fleet/fleet.ts and test/harness/fleet/test-context.ts. */
    fleet: FleetDescription;
  }
}

const log = (line: string) => process.stderr.write(`fleet: ${line}\n`);

function reusedFleet(dir: string): FleetDescription {
  const state = readState(dir);
  if (!state)
    throw new Error(`TIMONI_FLEET_DIR=${dir} holds no fleet: start one with \`npm run fleet -- up --dir ${dir}\``);
  const stopped = processesToStop(state).filter((record) => !isRunning(record));
  if (stopped.length > 0 || state.clusters.some((cluster) => !cluster.version)) {
    throw new Error(
      `the fleet in TIMONI_FLEET_DIR=${dir} is not fully running (${stopped.map((record) => record.component).join(', ') || 'incomplete'}): run \`npm run fleet -- down --dir ${dir}\` and up again`,
    );
  }
  return describeState(state);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const reuseDir = process.env.TIMONI_FLEET_DIR;
  if (reuseDir) {
    const description = reusedFleet(reuseDir);
    log(`using the running fleet in ${description.dir} (TIMONI_FLEET_DIR)`);
    project.provide('fleet', description);
    return async () => undefined;
  }

  const clusters = Number(process.env.TIMONI_FLEET_CLUSTERS ?? '3');
  // The folder is made here, not by startFleet, so that an interruption while the fleet is
  // still starting can already sweep whatever was started in it.
  const dir = mkdtempSync(join(tmpdir(), 'timoni-fleet-'));
  let fleet: Fleet | undefined;
  const cleanUpSync = () => {
    if (fleet) fleet.stopSync();
    else sweepProcessesSync(`${dir}/`);
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUpSync();
    // Only end the process if nobody else (vitest) handles the signal.
    if (process.listenerCount(signal) === 1) process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', cleanUpSync);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const removeHandlers = () => {
    process.off('exit', cleanUpSync);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };

  try {
    fleet = await startFleet({ clusters, dir, log });
  } catch (error) {
    removeHandlers();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const { stop: _stop, stopSync: _stopSync, kubeconfig: _kubeconfig, ...description } = fleet;
  project.provide('fleet', description);

  const started = fleet;
  return async () => {
    removeHandlers();
    await started.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
