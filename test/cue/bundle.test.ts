import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturesDir } from './fixture-files.js';

const run = promisify(execFile);
const root = process.cwd();
const out = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Bundles the fixture entry with ncc (as scripts/build.mjs does) into `dir`. */
async function bundle(dir: string): Promise<string> {
  await run(join(root, 'node_modules', '.bin', 'ncc'), ['build', join(fixturesDir, 'bundled', 'entry.ts'), '-o', dir, '--quiet', '--transpile-only'], {
    cwd: root,
    timeout: 300_000,
  });
  return join(dir, 'index.js');
}

describe('the engine bundled with ncc', () => {
  it('finds cue.wasm.gz beside dist/index.js and one level above dist/cli/index.js', async () => {
    copyFileSync(join(root, 'src', 'cue', 'wasm', 'cue.wasm.gz'), join(out, 'cue.wasm.gz'));
    const [action, cli] = await Promise.all([bundle(out), bundle(join(out, 'cli'))]);
    // The bundles carry their own copy of nothing but JavaScript: the wasm stays single.
    expect(readdirSync(out).filter((name) => name.endsWith('.gz'))).toEqual(['cue.wasm.gz']);
    expect(existsSync(join(out, 'cli', 'cue.wasm.gz'))).toBe(false);
    for (const entry of [action, cli]) {
      const { stdout, stderr } = await run(process.execPath, [entry], { timeout: 60_000 });
      expect(stdout).toBe('');
      expect(JSON.parse(stderr)).toEqual({ version: { cue: 'v0.17.1', go: expect.stringMatching(/^go1\.26/) }, value: { a: 1, b: 2 } });
    }
  });
});
