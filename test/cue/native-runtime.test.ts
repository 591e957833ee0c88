// The native engine's process: what it may reach, and that it ends with its parent.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { memoryLimitMessage } from '../../src/cue/memory-limit.js';
import { locateNative, nativePlatform, startNative } from '../../src/cue/native-runtime.js';
import { fixturesDir } from './fixture-files.js';

const run = promisify(execFile);
/** Node with tsx loaded in-process (the tsx command runs Node as a child of its own). */
const node = (script: string, ...args: string[]) =>
  [process.execPath, ['--import', 'tsx', join(fixturesDir, 'child', script), ...args]] as const;
const hasProc = existsSync('/proc/self/environ');

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
      expect(JSON.parse(native.bridge('version', '{}'))).toEqual({
        result: { cue: 'v0.17.1', go: expect.stringMatching(/^go1\.26/) },
      });
    } finally {
      native.stop();
    }
    expect(existsSync(native.workdir)).toBe(false);
    expect(() => native.bridge('version', '{}')).toThrow(/stopped/);
  });

  it('stops an evaluation past its memory limit with the same error as the WebAssembly engine', async () => {
    const native = await startNative({ memoryLimitMiB: 128 });
    const request = {
      files: { 'a.cue': 'package a\nimport "list"\nn: len(list.Range(0, 200000000, 1))\n' },
      binaryFiles: {},
      dir: '.',
      moduleRoot: '',
      args: [],
      package: 'a',
      tags: [],
      tagVars: {},
      dataFiles: false,
      acceptLegacyModules: true,
      displayNames: {},
    };
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
      expect(() => native.bridge('compile', request)).toThrow(
        'the CUE engine stopped while running compile (signal SIGKILL)',
      );
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

  it("sends the program's output to standard error, and keeps Go's fatal dump out of it", async () => {
    const [command, args] = node('native-output.ts');
    const { stdout, stderr } = await run(command, args, { timeout: 60_000 });
    expect(stdout).toBe('');
    expect(stderr).toContain('::error::written by the engine to fd 1\n');
    expect(stderr).toContain('a line on fd 2\n');
    expect(stderr).not.toContain('goroutine 1');
    const report = JSON.parse(stderr.split('\n').find((line) => line.startsWith('{')) ?? '{}') as { error?: string };
    expect(report.error).toBe(
      'the CUE engine stopped while running its start check (exit code 2): fatal error: runtime: out of stack',
    );
  });
});
