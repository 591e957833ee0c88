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
    globalSetup: [${JSON.stringify(join(repositoryRoot, 'test', 'fleet', 'global-setup.ts'))}],
  },
};
`;
}

describe('global setup', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops the fleet when the run gets %s', { timeout: 240_000 }, async (signal) => {
    const root = scratchDir(`nested-${signal.toLowerCase()}`);
    writeFileSync(join(root, 'waits.test.mjs'), nestedTest);
    writeFileSync(join(root, 'vitest.config.mjs'), nestedConfig(root));
    const env: NodeJS.ProcessEnv = { ...process.env, TIMONI_FLEET_CLUSTERS: '1', TMPDIR: root };
    delete env.TIMONI_FLEET_DIR;
    const child = spawn(join(repositoryRoot, 'node_modules', '.bin', 'vitest'), ['run', '--config', join(root, 'vitest.config.mjs')], {
      cwd: repositoryRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    const deadline = Date.now() + 180_000;
    while (!output.includes('NESTED TEST RUNNING')) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`the nested run did not reach its test:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const fleetDir = /starting 1 cluster in (\S+)/.exec(output)?.[1];
    expect(fleetDir, output).toBeDefined();
    expect(fleetDir?.startsWith(root)).toBe(true);
    const marker = `${fleetDir}/`;
    expect(processesMentioning(marker).length).toBe(3);

    child.kill(signal);
    await exited;
    expect(processesMentioning(marker), output).toEqual([]);
    expect(existsSync(fleetDir ?? ''), output).toBe(false);
  });
});
