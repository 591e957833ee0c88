// The package as Node users install it: `npm pack` of this repository, then `npm install -g`
// of the tarball into a prefix of the test's own, offline. The installed `timoni-fleet` must
// run from there alone (dist/ is bundled: no runtime dependency to fetch), find its CUE
// engine (WebAssembly and native) inside the package, and validate the example bundle.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../harness/support/go-binary.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without what `npm test` sets for its scripts (npm_config_*, npm_package_*, ...), so that the npm run here reads only its flags. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: cleanEnv(options.env ?? {}), timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

const work = mkdtempSync(join(tmpdir(), 'timoni-fleet-package-'));
const prefix = join(work, 'prefix');
const npmCache = join(work, 'npm-cache');
const installed = join(prefix, 'bin', 'timoni-fleet');
let packed: PackResult | undefined;

beforeAll(async () => {
  const pack = await run(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', work, '--cache', npmCache],
    { cwd: repositoryRoot },
  );
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as PackResult[])[0];
  expect(packed?.filename).toMatch(/^timoni-fleet-\d+\.\d+\.\d+\.tgz$/);
  const install = await run(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--offline',
      '--ignore-scripts',
      '--cache',
      npmCache,
      join(work, packed?.filename ?? 'missing.tgz'),
    ],
    { cwd: work },
  );
  expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('npm pack + npm install -g', () => {
  it('packs dist/ with the CLI and its CUE engine, and no sources or tests', () => {
    const paths = (packed?.files ?? []).map((file) => file.path);
    expect(paths).toContain('dist/cli/index.js');
    expect(paths).toContain('dist/cue.wasm.gz');
    expect(paths.some((path) => /^dist\/native\/[a-z0-9]+-[a-z0-9]+\/cue-shim\.gz$/.test(path))).toBe(true);
    expect(
      paths.filter((path) => !path.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(path)),
    ).toEqual([]);
  });

  it('installs a `timoni-fleet` command that needs no runtime dependency', () => {
    expect(existsSync(installed)).toBe(true);
    const manifest = JSON.parse(
      readFileSync(join(prefix, 'lib', 'node_modules', 'timoni-fleet', 'package.json'), 'utf8'),
    ) as { bin?: Record<string, string>; dependencies?: Record<string, string> };
    expect(manifest.bin).toEqual({ 'timoni-fleet': 'dist/cli/index.js' });
    // Everything the CLI runs is bundled into dist/ by ncc; a dependency here would be fetched for nothing (or fail offline).
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(
      readFileSync(join(prefix, 'lib', 'node_modules', 'timoni-fleet', 'dist', 'cli', 'index.js'), 'utf8').split(
        '\n',
      )[0],
    ).toBe('#!/usr/bin/env node');
  });

  it('runs `timoni-fleet --help`', async () => {
    const help = await run(installed, ['--help'], { cwd: work });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: timoni-fleet <command> -f bundle.cue [-r runtime.cue] [flags]');
    for (const command of ['vet', 'build', 'diff', 'apply', 'status', 'delete'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });

  it.each(['wasm', 'native'])(
    'validates the example bundle with the %s CUE engine from the installed package',
    async (engine) => {
      if (
        engine === 'native' &&
        !['linux-x64', 'linux-arm64', 'darwin-arm64'].includes(`${process.platform}-${process.arch}`)
      )
        return;
      const vet = await run(installed, ['vet', '-f', 'examples/bundle.cue', '-r', 'examples/runtime.cue'], {
        cwd: repositoryRoot,
        env: { TIMONI_FLEET_CUE_ENGINE: engine, XDG_CACHE_HOME: join(work, `cache-${engine}`) },
      });
      expect(vet.code, vet.stderr).toBe(0);
      expect(`${vet.stdout}${vet.stderr}`).toContain('b:shop > bundle is valid');
    },
  );
});
