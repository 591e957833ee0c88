// The native engine's process: what it may reach, and that it ends with its parent.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { engineChoice } from '../../src/cue/engine.js';
import { memoryLimitMessage } from '../../src/cue/memory-limit.js';
import { locateNative, nativePlatform, startNative } from '../../src/cue/native-runtime.js';
import { engine, engineKinds, failure } from './engine.js';
import { fixturesDir } from './fixture-files.js';

const run = promisify(execFile);
/** Node with tsx loaded in-process (the tsx command runs Node as a child of its own). */
const node = (script: string, ...args: string[]) => [process.execPath, ['--import', 'tsx', join(fixturesDir, 'child', script), ...args]] as const;
const hasProc = existsSync('/proc/self/environ');
const hostDir = mkdtempSync(join(tmpdir(), 'timoni-fleet-host-'));
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

/** Whether a process runs (a zombie, dead but not reaped by its new parent, does not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!hasProc) return true;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe('the native engine process', () => {
  it('is built for this platform', () => {
    expect(nativePlatform(), `${process.platform}-${process.arch}`).toBeDefined();
    expect(locateNative()).toMatch(/native\/(linux|darwin)-(amd64|arm64)\/cue-shim\.gz$/);
  });

  it.runIf(hasProc)('runs with an empty environment in a private folder, which is removed when it stops', async () => {
    const native = await startNative();
    try {
      expect(readFileSync(`/proc/${native.pid}/environ`, 'utf8')).toBe('');
      const cwd = readFileSync(`/proc/${native.pid}/cmdline`, 'utf8').split('\0');
      expect(cwd).toContain(native.workdir);
      expect(statSync(native.workdir).mode & 0o777).toBe(0o700);
      expect(JSON.parse(native.bridge('version', '{}'))).toEqual({ result: { cue: 'v0.17.1', go: expect.stringMatching(/^go1\.26/) } });
    } finally {
      native.stop();
    }
    expect(existsSync(native.workdir)).toBe(false);
    expect(() => native.bridge('version', '{}')).toThrow(/stopped/);
  });

  it('stops an evaluation past its memory limit with the same error as the WebAssembly engine', async () => {
    const native = await startNative({ memoryLimitMiB: 128 });
    const request = { files: { 'a.cue': 'package a\nimport "list"\nn: len(list.Range(0, 200000000, 1))\n' }, binaryFiles: {}, dir: '.', moduleRoot: '', args: [], package: 'a', tags: [], tagVars: {}, dataFiles: false, acceptLegacyModules: true, displayNames: {} };
    try {
      const started = Date.now();
      expect(() => native.bridge('load', JSON.stringify(request))).toThrow(memoryLimitMessage(128));
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await until(() => !running(native.pid), 5_000)).toBe(true);
      expect(() => native.bridge('version', '{}')).toThrow(memoryLimitMessage(128));
    } finally {
      native.stop();
    }
  });

  it('fails a call, also one larger than a pipe holds, once its process was killed', async () => {
    const native = await startNative();
    try {
      process.kill(native.pid, 'SIGKILL');
      const request = JSON.stringify({ source: `x: "${'y'.repeat(1 << 20)}"`, filename: '', scope: null });
      const started = Date.now();
      expect(() => native.bridge('compile', request)).toThrow('the CUE engine stopped while running compile (signal SIGKILL)');
      expect(() => native.bridge('version', '{}')).toThrow('signal SIGKILL');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      native.stop();
    }
  });

  for (const loop of [false, true]) {
    it(`ends, and removes its folder, when its parent is killed ${loop ? 'during a call that never ends' : 'while idle'}`, async () => {
      const [command, args] = node('native-parent.ts', ...(loop ? ['--loop'] : []));
      const parent = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      const line = await new Promise<string>((resolve, reject) => {
        let text = '';
        parent.stderr.on('data', (data: Buffer) => {
          text += data.toString();
          const first = text.split('\n').find((l) => l.startsWith('{'));
          if (first) resolve(first);
        });
        parent.on('exit', (code) => reject(new Error(`the parent exited (${code}) before it reported: ${text}`)));
      });
      const { pid, workdir } = JSON.parse(line) as { pid: number; workdir: string };
      expect(running(pid)).toBe(true);
      if (loop) await new Promise((resolve) => setTimeout(resolve, 500));
      parent.kill('SIGKILL');
      expect(await until(() => !running(pid), 5_000)).toBe(true);
      expect(await until(() => !existsSync(workdir), 5_000)).toBe(true);
    });
  }

  it('sends the program\'s output to standard error, and keeps Go\'s fatal dump out of it', async () => {
    const [command, args] = node('native-output.ts');
    const { stdout, stderr } = await run(command, args, { timeout: 60_000 });
    expect(stdout).toBe('');
    expect(stderr).toContain('::error::written by the engine to fd 1\n');
    expect(stderr).toContain('a line on fd 2\n');
    expect(stderr).not.toContain('goroutine 1');
    const report = JSON.parse(stderr.split('\n').find((line) => line.startsWith('{')) ?? '{}') as { error?: string };
    expect(report.error).toBe('the CUE engine stopped while running its start check (exit code 2): fatal error: runtime: out of stack');
  });

  it('is chosen by TIMONI_FLEET_CUE_ENGINE (auto by default)', () => {
    expect(engineChoice({})).toBe('auto');
    expect(engineChoice({ TIMONI_FLEET_CUE_ENGINE: 'wasm' })).toBe('wasm');
    expect(engineChoice({ TIMONI_FLEET_CUE_ENGINE: ' native ' })).toBe('native');
    expect(() => engineChoice({ TIMONI_FLEET_CUE_ENGINE: 'fast' })).toThrow('TIMONI_FLEET_CUE_ENGINE must be auto, native or wasm, not "fast"');
  });

  it('is what a process uses by default, and the WebAssembly when asked or when the native one cannot start', async () => {
    // No temporary folder to unpack the program into (a path under a file).
    writeFileSync(join(hostDir, 'a-file'), '');
    const noTemp = join(hostDir, 'a-file', 'tmp');
    const cases: Array<[string | undefined, string[], string]> = [
      [undefined, [], 'native'],
      ['wasm', [], 'wasm'],
      ['native', [], 'native'],
      [undefined, ['--tmpdir', noTemp], 'wasm'],
    ];
    for (const [forced, extra, kind] of cases) {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.TIMONI_FLEET_CUE_ENGINE;
      if (forced) env.TIMONI_FLEET_CUE_ENGINE = forced;
      const [command, args] = node('engine-kind.ts', ...extra);
      const { stdout, stderr } = await run(command, args, { env, timeout: 60_000 });
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n').pop(), `${forced} ${extra.join(' ')}`).toBe(`${kind} {"a":1}`);
    }
    // Forced, the native engine's failure is the process's.
    const [command, args] = node('engine-kind.ts', '--tmpdir', noTemp);
    const forced = await run(command, args, { env: { ...process.env, TIMONI_FLEET_CUE_ENGINE: 'native' }, timeout: 60_000 }).catch((error: unknown) => error as { code: number; stderr: string });
    expect(forced).toMatchObject({ code: 1 });
    expect((forced as { stderr: string }).stderr).toContain(noTemp);
  });

  it('refuses an artifact that is no program of this platform', async () => {
    const fake = join(hostDir, 'not-a-program.gz');
    writeFileSync(fake, gzipSync('not an executable'));
    // execvp hands a file that is no program to the shell, which fails on it.
    await expect(startNative({ artifact: fake })).rejects.toThrow(/^the (native CUE engine could not run|CUE engine stopped while running) its start check/);
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

describe.each(engineKinds)('host files (%s engine)', (kind) => {
  const module = { 'cue.mod/module.cue': 'module: "example.com/app"\nlanguage: version: "v0.17.1"\n', 'data.json': '{"inside": true}' };
  const embed = (file: string) => ({ ...module, 'a.cue': `@extern(embed)\npackage a\nx: _ @embed(file="${file}", type=text)\n` });

  it('embeds files given in memory, and refuses a parent path and an absolute path', async () => {
    const cue = await engine(kind);
    const inside = cue.load({ files: embed('data.json'), package: 'a' });
    expect(inside.toJSON()).toEqual({ x: '{"inside": true}' });
    inside.free();
    expect(failure(() => cue.load({ files: embed('../../../../etc/passwd'), package: 'a' })).message).toBe('a.cue:3:6: @embed: cannot refer to parent directory');
    expect(failure(() => cue.load({ files: embed('/etc/passwd'), package: 'a' })).message).toBe('a.cue:3:6: @embed: only relative files are allowed');
  });

  it('reads nothing from a host folder named as the load folder, an import or an embed', async () => {
    writeFileSync(join(hostDir, 'host.cue'), 'package a\nsecret: "from the host"\n');
    writeFileSync(join(hostDir, 'host.json'), '{"secret": "from the host"}');
    const cue = await engine(kind);
    const byDir = failure(() => cue.load({ files: module, dir: hostDir, package: 'a' }));
    expect(byDir.message).not.toContain('from the host');
    const files = { ...module, 'a.cue': `@extern(embed)\npackage a\nx: _ @embed(file="host.json", type=text)\n` };
    const byEmbed = failure(() => cue.load({ files, dir: '.', package: 'a' }));
    expect(byEmbed.message).toMatch(/host\.json/);
    expect(byEmbed.message).not.toContain('from the host');
    const imported = { ...module, 'a.cue': `package a\nimport "example.com/app${hostDir}"\nx: a.secret\n` };
    expect(failure(() => cue.load({ files: imported, package: 'a' })).message).not.toContain('from the host');
  });
});
