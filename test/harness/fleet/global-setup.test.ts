// The global setup stops its fleet when the test run is interrupted: a nested vitest run
// (one cluster) is sent SIGINT or SIGTERM while its test is running, and afterwards no
// process of its fleet is left and its folder is gone.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/go-binary.js';
import { processesMentioning } from './processes.js';
import { scratchDir } from './test-context.js';

const nestedTest = `
test('waits until the run is interrupted', async () => {
  console.log('NESTED TEST RUNNING');
  await new Promise((resolve) => setTimeout(resolve, 600_000));
}, 700_000);
`;

function nestedConfig(root: string): string {
  return `export default {
  test: {
    root: ${JSON.stringify(root)},
    include: ['*.test.mjs'],
    globals: true,
    globalSetup: [${JSON.stringify(join(repositoryRoot, 'test', 'harness', 'fleet', 'global-setup.ts'))}],
  },
};
`;
}

interface NestedRun {
  output: () => string;
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
  /** Resolves once the output contains `text`; rejects if the run ends first or after 180 s. */
  waitFor: (text: string) => Promise<void>;
}

function startNestedRun(name: string): NestedRun {
  const root = scratchDir(name);
  writeFileSync(join(root, 'waits.test.mjs'), nestedTest);
  writeFileSync(join(root, 'vitest.config.mjs'), nestedConfig(root));
  const env: NodeJS.ProcessEnv = { ...process.env, TIMONI_FLEET_CLUSTERS: '1', TMPDIR: root };
  delete env.TIMONI_FLEET_DIR;
  const child = spawn(
    join(repositoryRoot, 'node_modules', '.bin', 'vitest'),
    ['run', '--config', join(root, 'vitest.config.mjs')],
    {
      cwd: repositoryRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    kill: (signal) => child.kill(signal),
    async waitFor(text) {
      const deadline = Date.now() + 180_000;
      while (!output.includes(text)) {
        if (child.exitCode !== null || Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`the nested run did not print ${JSON.stringify(text)}:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

function fleetDirOf(run: NestedRun): string {
  const dir = /starting 1 cluster in (\S+)/.exec(run.output())?.[1];
  if (!dir) throw new Error(`the nested run did not say where its fleet is:\n${run.output()}`);
  return dir;
}

describe('global setup', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops the fleet when the run gets %s',
    { timeout: 240_000 },
    async (signal) => {
      const run = startNestedRun(`nested-${signal.toLowerCase()}`);
      await run.waitFor('NESTED TEST RUNNING');
      const marker = `${fleetDirOf(run)}/`;
      expect(processesMentioning(marker).length).toBe(3);

      run.kill(signal);
      await run.exited;
      expect(processesMentioning(marker), run.output()).toEqual([]);
      expect(existsSync(fleetDirOf(run)), run.output()).toBe(false);
    },
  );

  it(
    'stops what was started when the run is interrupted while the fleet is still starting',
    { timeout: 240_000 },
    async () => {
      const run = startNestedRun('nested-starting');
      await run.waitFor('etcd ready');
      const marker = `${fleetDirOf(run)}/`;
      expect(run.output()).not.toContain('fleet of 1 ready');
      expect(processesMentioning(marker).length).toBeGreaterThan(0);

      run.kill('SIGINT');
      await run.exited;
      expect(processesMentioning(marker), run.output()).toEqual([]);
      expect(existsSync(fleetDirOf(run)), run.output()).toBe(false);
    },
  );
});
