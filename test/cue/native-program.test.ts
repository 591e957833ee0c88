// The native engine's program: the artifact unpacked, and kept in the private cache folder.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { startNative } from '../../src/cue/native-runtime.js';

const hostDir = mkdtempSync(join(tmpdir(), 'timoni-fleet-host-'));
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

describe('the native engine process', () => {
  it('refuses an artifact that is no program of this platform', async () => {
    const fake = join(hostDir, 'not-a-program.gz');
    writeFileSync(fake, gzipSync('not an executable'));
    // execvp hands a file that is no program to the shell, which fails on it.
    await expect(startNative({ artifact: fake })).rejects.toThrow(
      /^the (native CUE engine could not run|CUE engine stopped while running) its start check/,
    );
    const broken = join(hostDir, 'broken.gz');
    writeFileSync(broken, 'not gzip');
    await expect(startNative({ artifact: broken })).rejects.toThrow(`cannot unpack the native CUE engine ${broken}`);
  });

  it('keeps its program in the private cache folder for the next start, and unpacks it again when it was damaged', async () => {
    const cacheDir = join(hostDir, 'engines');
    const first = await startNative({ cacheDir });
    first.stop();
    const programs = readdirSync(cacheDir);
    expect(programs).toEqual([expect.stringMatching(/^cue-shim-[0-9a-f]{64}$/)]);
    const program = join(cacheDir, programs[0] ?? '');
    const { ino, size, mode } = statSync(program);
    expect(mode & 0o777).toBe(0o700);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const second = await startNative({ cacheDir });
    try {
      expect(statSync(program).ino).toBe(ino);
      expect(JSON.parse(second.bridge('version', '{}'))).toMatchObject({ result: { cue: 'v0.17.1' } });
    } finally {
      second.stop();
    }
    // Replaced, not written in place: the stopped engine may still be running it (ETXTBSY).
    writeFileSync(`${program}.damaged`, '#!/bin/sh\nexit 3\n', { mode: 0o700 });
    renameSync(`${program}.damaged`, program);
    const third = await startNative({ cacheDir });
    try {
      expect(JSON.parse(third.bridge('version', '{}'))).toMatchObject({ result: { cue: 'v0.17.1' } });
      expect(statSync(program).size).toBe(size);
    } finally {
      third.stop();
    }
  });

  it('unpacks its program for the run alone when the cache folder is open to others', async () => {
    const cacheDir = join(hostDir, 'open-engines');
    mkdirSync(cacheDir, { mode: 0o777 });
    chmodSync(cacheDir, 0o777);
    const native = await startNative({ cacheDir });
    try {
      expect(JSON.parse(native.bridge('version', '{}'))).toMatchObject({ result: { cue: 'v0.17.1' } });
      expect(readdirSync(cacheDir)).toEqual([]);
      expect(readdirSync(native.workdir)).not.toContain('cue-shim');
    } finally {
      native.stop();
    }
  });
});
