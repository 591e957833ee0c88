// The engines as startCueEngine and loadCueEngine give them (src/cue/engine.ts): chosen by
// TIMONI_FLEET_CUE_ENGINE, the same in both builds, quiet in a process, and found beside a bundle.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { engineChoice } from '../../src/cue/engine.js';
import type { CueEngine } from '../../src/cue/index.js';
import { nativePlatform } from '../../src/cue/native-runtime.js';
import { engine, engineKinds } from './engines.js';
import { fixturesDir, readFixture } from './fixture-files.js';

describe('which engine a process gets', () => {
  const run = promisify(execFile);
  /** Node with tsx loaded in-process (the tsx command runs Node as a child of its own). */
  const node = (script: string, ...args: string[]) =>
    [process.execPath, ['--import', 'tsx', join(fixturesDir, 'child', script), ...args]] as const;
  const hostDir = mkdtempSync(join(tmpdir(), 'timoni-fleet-host-'));
  afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

  describe('the native engine process', () => {
    it('is chosen by TIMONI_FLEET_CUE_ENGINE (auto by default)', () => {
      expect(engineChoice({})).toBe('auto');
      expect(engineChoice({ TIMONI_FLEET_CUE_ENGINE: 'wasm' })).toBe('wasm');
      expect(engineChoice({ TIMONI_FLEET_CUE_ENGINE: ' native ' })).toBe('native');
      expect(() => engineChoice({ TIMONI_FLEET_CUE_ENGINE: 'fast' })).toThrow(
        'TIMONI_FLEET_CUE_ENGINE must be auto, native or wasm, not "fast"',
      );
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
      const forced = await run(command, args, {
        env: { ...process.env, TIMONI_FLEET_CUE_ENGINE: 'native' },
        timeout: 60_000,
      }).catch((error: unknown) => error as { code: number; stderr: string });
      expect(forced).toMatchObject({ code: 1 });
      expect((forced as { stderr: string }).stderr).toContain(noTemp);
    });
  });
});

describe('both builds of the shim', () => {
  // The native engine and the WebAssembly one are the same Go shim: every export of a
  // module with the Kubernetes schemas must be byte for byte the same.
  interface Exports {
    json: string;
    yaml: string;
    cue: string;
    fields: string;
    diagnostics: string;
  }

  function exports(cue: CueEngine, name: string): Exports {
    const root = cue.load({
      files: readFixture('k8s-app'),
      package: 'main',
      tags: [`name=${name}`, 'namespace=apps'],
      tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
    });
    try {
      const timoni = root.lookup('timoni');
      const out: Exports = {
        json: JSON.stringify(timoni.toJSON()),
        yaml: timoni.toYAML(),
        cue: timoni.toCUE(),
        fields: JSON.stringify(root.fields({ hidden: true, definitions: true, optional: true })),
        diagnostics: JSON.stringify(root.fill('values.replicas', 'many').validate({ concrete: true })),
      };
      timoni.free();
      return out;
    } finally {
      root.free();
    }
  }

  describe('native and WebAssembly engines', () => {
    it('export a module with the Kubernetes schemas byte for byte the same', async () => {
      const [native, wasm] = [await engine('native'), await engine('wasm')];
      expect(native.kind).toBe('native');
      expect(wasm.kind).toBe('wasm');
      const ours = exports(native, 'podinfo');
      expect(ours.json.length).toBeGreaterThan(1000);
      expect(JSON.parse(ours.diagnostics)).not.toEqual([]);
      expect(ours).toEqual(exports(wasm, 'podinfo'));
      // Twice in a row (a warm engine) gives the same bytes again.
      expect(exports(native, 'podinfo')).toEqual(ours);
    });
  });
});

describe('the engine in a process', () => {
  const run = promisify(execFile);
  const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');

  describe.each(engineKinds)('the %s engine in a Node process', (kind) => {
    it('writes nothing to standard output, sends Go output to standard error, and lets the process exit by itself', async () => {
      const started = Date.now();
      // No explicit exit in the workload: execFile resolves only when the process ends on its own.
      const { stdout, stderr } = await run(tsx, [join(fixturesDir, 'child', 'workload.ts')], {
        timeout: 60_000,
        env: { ...process.env, TIMONI_FLEET_CUE_ENGINE: kind },
      });
      expect(stdout).toBe('');
      expect(stderr).toContain('::error::written by Go to fd 1');
      const report = JSON.parse(stderr.split('\n').find((line) => line.startsWith('{')) ?? '{}') as Record<
        string,
        unknown
      >;
      expect(report.json).toEqual({ x: 1, y: 2 });
      expect(report.kind).toBe(kind);
      expect(Object.values(report).filter((v) => typeof v === 'string' && v.includes("expected '}'"))).toHaveLength(1);
      expect(report.injected).toContain('"::warning::not a command"');
      expect(Date.now() - started).toBeLessThan(60_000);
    });
  });
});

describe('the engine in a bundle', () => {
  const run = promisify(execFile);
  const root = process.cwd();
  const out = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-bundle-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  /** Bundles the fixture entry with ncc (as scripts/build.mjs does) into `dir`. */
  async function bundle(dir: string): Promise<string> {
    await run(
      join(root, 'node_modules', '.bin', 'ncc'),
      ['build', join(fixturesDir, 'bundled', 'entry.ts'), '-o', dir, '--quiet', '--transpile-only'],
      {
        cwd: root,
        timeout: 300_000,
      },
    );
    return join(dir, 'index.js');
  }

  describe('the engine bundled with ncc', () => {
    it('finds cue.wasm.gz and native/<platform>/cue-shim.gz beside dist/index.js and one level above dist/cli/index.js', async () => {
      const platform = nativePlatform();
      if (!platform) throw new Error(`no native engine for ${process.platform}-${process.arch}`);
      copyFileSync(join(root, 'dist', 'cue.wasm.gz'), join(out, 'cue.wasm.gz'));
      mkdirSync(join(out, 'native', platform), { recursive: true });
      copyFileSync(join(root, 'dist', 'native', platform, 'cue-shim.gz'), join(out, 'native', platform, 'cue-shim.gz'));
      const [action, cli] = await Promise.all([bundle(out), bundle(join(out, 'cli'))]);
      // The bundles carry their own copy of nothing but JavaScript: the engines stay single.
      expect(readdirSync(out).filter((name) => name.endsWith('.gz'))).toEqual(['cue.wasm.gz']);
      expect(existsSync(join(out, 'cli', 'cue.wasm.gz'))).toBe(false);
      expect(existsSync(join(out, 'cli', 'native'))).toBe(false);
      for (const entry of [action, cli]) {
        for (const kind of ['native', 'wasm']) {
          const { stdout, stderr } = await run(process.execPath, [entry], {
            timeout: 60_000,
            env: { ...process.env, TIMONI_FLEET_CUE_ENGINE: kind },
          });
          expect(stdout).toBe('');
          expect(JSON.parse(stderr)).toEqual({
            kind,
            version: { cue: 'v0.17.1', go: expect.stringMatching(/^go1\.26/) },
            value: { a: 1, b: 2 },
          });
        }
      }
    });
  });
});
