// Timoni's extraction (fluxcd/pkg/tar under Timoni's options) of well-formed and
// malformed module layers: the reference the product's module puller must match.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  absolutePathLayer,
  hardlinkLayer,
  notGzipLayer,
  oversizedLayer,
  parentTraversalLayer,
  symlinkLayer,
  tarGzip,
} from './malformed-layers.js';
import { buildTimoniModule } from './timoni-module.js';
import { timoniReferenceExtract } from './reference-extract.js';
import { sampleModuleFiles, writeSampleModule } from './sample-module.js';

let root: string;
let counter = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'timoni-fleet-extract-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
const target = () => join(root, `out-${++counter}`);

describe('Timoni reference extraction', () => {
  it('puts the vendor and module layers of a pushed module back together', async () => {
    const moduleDir = await writeSampleModule();
    try {
      const built = await buildTimoniModule({ moduleDir, version: '1.0.0', gitMetadata: false });
      const result = await timoniReferenceExtract(
        built.layers.map((layer) => layer.gzip),
        target(),
      );
      expect(result.error).toBeUndefined();
      const files = result.paths.filter((path) => path.type === 'file');
      const expected = Object.keys(sampleModuleFiles).filter(
        (path) => !['debug_values.cue', 'build_tool.cue'].includes(path),
      );
      expect(files.map((file) => file.path).sort()).toEqual(expected.sort());
      expect(files.every((file) => file.mode === 0o644)).toBe(true);
      expect(
        result.paths.filter((path) => path.type === 'directory').every((dir) => (dir.mode & 0o700) === 0o700),
      ).toBe(true);
    } finally {
      await rm(moduleDir, { recursive: true, force: true });
    }
  });

  it('refuses a parent-directory escape and an absolute path', async () => {
    const traversal = await timoniReferenceExtract([parentTraversalLayer()], target());
    expect(traversal).toMatchObject({ failedLayer: 0 });
    expect(traversal.error).toMatch(/invalid name.*\.\.\/escaped\.txt/);
    const absolute = await timoniReferenceExtract([absolutePathLayer('/tmp/timoni-fleet-absolute.txt')], target());
    expect(absolute.error).toMatch(/invalid name.*\/tmp\/timoni-fleet-absolute\.txt/);
  });

  it('skips symlinks, so a file "through" one lands in a real folder inside', async () => {
    const result = await timoniReferenceExtract([symlinkLayer({ name: 'templates', target: '/etc' })], target());
    expect(result.error).toBeUndefined();
    expect(result.paths.map((path) => [path.path, path.type])).toEqual([
      ['templates', 'directory'],
      ['templates/through-symlink.cue', 'file'],
      ['timoni.cue', 'file'],
      ['values.cue', 'file'],
    ]);
  });

  it('turns a hard link into an empty regular file', async () => {
    const result = await timoniReferenceExtract([hardlinkLayer('/etc/passwd')], target());
    expect(result.error).toBeUndefined();
    expect(result.paths.find((path) => path.path === 'passwd')).toMatchObject({ type: 'file', size: 0 });
  });

  it('stops past 100 MiB of content, and at a layer that is not gzip', async () => {
    const oversized = await timoniReferenceExtract([oversizedLayer()], target());
    expect(oversized.error).toMatch(/bigger than max archive size of 104857600 bytes/);
    const notGzip = await timoniReferenceExtract(
      [tarGzip([{ name: 'ok.cue', type: 'file', content: 'package main\n' }]), notGzipLayer()],
      target(),
    );
    expect(notGzip).toMatchObject({ failedLayer: 1 });
    expect(notGzip.error).toMatch(/gzip/);
    expect(notGzip.paths.map((path) => path.path)).toEqual(['ok.cue']);
  });

  it('refuses special files', async () => {
    const result = await timoniReferenceExtract([tarGzip([{ name: 'pipe', type: 'fifo' }])], target());
    expect(result.error).toMatch(/unsupported file type/);
    expect(result.paths).toEqual([]);
  });
});
