import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { nativePlatform } from '../../src/cue/native-runtime.js';
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
  it('finds cue.wasm.gz and native/<platform>/cue-shim.gz beside dist/index.js and one level above dist/cli/index.js', async () => {
    const platform = nativePlatform();
    if (!platform) throw new Error(`no native engine for ${process.platform}-${process.arch}`);
    copyFileSync(join(root, 'src', 'cue', 'wasm', 'cue.wasm.gz'), join(out, 'cue.wasm.gz'));
    mkdirSync(join(out, 'native', platform), { recursive: true });
    copyFileSync(join(root, 'src', 'cue', 'native', platform, 'cue-shim.gz'), join(out, 'native', platform, 'cue-shim.gz'));
    const [action, cli] = await Promise.all([bundle(out), bundle(join(out, 'cli'))]);
    // The bundles carry their own copy of nothing but JavaScript: the engines stay single.
    expect(readdirSync(out).filter((name) => name.endsWith('.gz'))).toEqual(['cue.wasm.gz']);
    expect(existsSync(join(out, 'cli', 'cue.wasm.gz'))).toBe(false);
    expect(existsSync(join(out, 'cli', 'native'))).toBe(false);
    for (const entry of [action, cli]) {
      for (const kind of ['native', 'wasm']) {
        const { stdout, stderr } = await run(process.execPath, [entry], { timeout: 60_000, env: { ...process.env, TIMONI_FLEET_CUE_ENGINE: kind } });
        expect(stdout).toBe('');
        expect(JSON.parse(stderr)).toEqual({ kind, version: { cue: 'v0.17.1', go: expect.stringMatching(/^go1\.26/) }, value: { a: 1, b: 2 } });
      }
    }
  });
});
