import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { engineKinds } from './engine.js';
import { fixturesDir } from './fixture-files.js';

const run = promisify(execFile);
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');

describe.each(engineKinds)('the %s engine in a Node process', (kind) => {
  it('writes nothing to standard output, sends Go output to standard error, and lets the process exit by itself', async () => {
    const started = Date.now();
    // No explicit exit in the workload: execFile resolves only when the process ends on its own.
    const { stdout, stderr } = await run(tsx, [join(fixturesDir, 'child', 'workload.ts')], { timeout: 60_000, env: { ...process.env, TIMONI_FLEET_CUE_ENGINE: kind } });
    expect(stdout).toBe('');
    expect(stderr).toContain('::error::written by Go to fd 1');
    const report = JSON.parse(stderr.split('\n').find((line) => line.startsWith('{')) ?? '{}') as Record<string, unknown>;
    expect(report.json).toEqual({ x: 1, y: 2 });
    expect(report.kind).toBe(kind);
    expect(Object.values(report).filter((v) => typeof v === 'string' && v.includes("expected '}'"))).toHaveLength(1);
    expect(report.injected).toContain('"::warning::not a command"');
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
