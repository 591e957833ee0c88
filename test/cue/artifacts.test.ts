// Where the engine's artifacts are found (src/cue/artifacts.ts): in dist/, their one copy,
// from the bundles (dist/index.js, dist/cli/index.js) and from the sources (src/cue).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findEngineArtifact } from '../../src/cue/artifacts.js';
import { locateNative, nativePlatform } from '../../src/cue/native-runtime.js';
import { locateWasm } from '../../src/cue/wasm-runtime.js';

describe('the engine artifacts', () => {
  const tree = mkdtempSync(join(tmpdir(), 'timoni-fleet-artifacts-'));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));
  const dist = join(tree, 'dist');
  mkdirSync(join(dist, 'native', 'linux-amd64'), { recursive: true });
  writeFileSync(join(dist, 'cue.wasm.gz'), '');
  writeFileSync(join(dist, 'native', 'linux-amd64', 'cue-shim.gz'), '');
  // Copies beside the sources, where the tree had them before: never looked at.
  mkdirSync(join(tree, 'src', 'cue', 'native', 'linux-amd64'), { recursive: true });
  writeFileSync(join(tree, 'src', 'cue', 'cue.wasm.gz'), 'stray');
  writeFileSync(join(tree, 'src', 'cue', 'native', 'linux-amd64', 'cue-shim.gz'), 'stray');
  const from = (...path: string[]) => pathToFileURL(join(tree, ...path)).href;

  it('are found in dist/ from the action bundle, the CLI bundle and the sources', () => {
    for (const module of [
      from('dist', 'index.js'),
      from('dist', 'cli', 'index.js'),
      from('src', 'cue', 'artifacts.ts'),
    ]) {
      expect(findEngineArtifact('cue.wasm.gz', module).found, module).toBe(join(dist, 'cue.wasm.gz'));
      expect(findEngineArtifact(join('native', 'linux-amd64', 'cue-shim.gz'), module).found, module).toBe(
        join(dist, 'native', 'linux-amd64', 'cue-shim.gz'),
      );
    }
  });

  it('say where they were looked for when missing', () => {
    const search = findEngineArtifact(
      join('native', 'darwin-arm64', 'cue-shim.gz'),
      from('src', 'cue', 'artifacts.ts'),
    );
    expect(search.found).toBeUndefined();
    expect(search.tried).toEqual([join(dist, 'native', 'darwin-arm64', 'cue-shim.gz')]);
    const bundled = findEngineArtifact(join('native', 'darwin-arm64', 'cue-shim.gz'), from('dist', 'cli', 'index.js'));
    expect(bundled.tried).toEqual(
      [join(dist, 'cli'), dist].map((folder) => join(folder, 'native', 'darwin-arm64', 'cue-shim.gz')),
    );
  });

  it('of this repository are the ones in its dist/', () => {
    const root = process.cwd();
    expect(locateWasm()).toBe(join(root, 'dist', 'cue.wasm.gz'));
    expect(locateNative()).toBe(join(root, 'dist', 'native', nativePlatform() ?? 'none', 'cue-shim.gz'));
  });
});
