// Layers a well-behaved module never holds, for tests of the product's module puller:
// each helper returns a gzip tarball (wrap it with pushArtifact and buildManifest).
// What Timoni does with each (fluxcd/pkg/tar, see reference-extract.test.ts): refuses
// names starting with '/' or holding '../', skips symlinks, writes hard links as empty
// files, refuses other special files, and stops past 100 MiB of content.
import { gzipLayer } from './module-layers.js';
import { writeTar, type TarEntry } from './tar-writer.js';

/** Timoni's extraction limit (fluxcd/pkg/tar DefaultMaxUntarSize): 100 MiB uncompressed. */
export const timoniMaxUntarSize = 100 * 1024 * 1024;

/** A gzip tarball of exactly these entries (names and links written as given). */
export function tarGzip(entries: TarEntry[]): Buffer {
  return gzipLayer(writeTar(entries));
}

const minimalModule: TarEntry[] = [
  { name: 'timoni.cue', type: 'file', content: 'package main\n' },
  { name: 'values.cue', type: 'file', content: 'package main\nvalues: {}\n' },
];

/** A file that climbs out of the extraction folder: `../<name>` (or deeper with `depth`). */
export function parentTraversalLayer(name = 'escaped.txt', depth = 1): Buffer {
  return tarGzip([
    ...minimalModule,
    { name: `${'../'.repeat(depth)}${name}`, type: 'file', content: 'written outside the module folder\n' },
  ]);
}

/** A file with an absolute path, e.g. `/tmp/timoni-fleet-absolute.txt`. */
export function absolutePathLayer(path = '/tmp/timoni-fleet-absolute.txt'): Buffer {
  if (!path.startsWith('/')) throw new Error(`absolutePathLayer: ${path} is not absolute`);
  return tarGzip([...minimalModule, { name: path, type: 'file', content: 'absolute path entry\n' }]);
}

/** A symlink `name` pointing at `target` (default outside the folder), then a file written through it. */
export function symlinkLayer(options: { name?: string; target?: string; writeThrough?: boolean } = {}): Buffer {
  const name = options.name ?? 'templates';
  const entries: TarEntry[] = [...minimalModule, { name, type: 'symlink', linkname: options.target ?? '/etc' }];
  if (options.writeThrough ?? true)
    entries.push({ name: `${name}/through-symlink.cue`, type: 'file', content: 'package main\n' });
  return tarGzip(entries);
}

/** A hard link to a path outside the folder. */
export function hardlinkLayer(target = '/etc/passwd'): Buffer {
  return tarGzip([...minimalModule, { name: 'passwd', type: 'hardlink', linkname: target }]);
}

/**
 * A layer whose content unpacks to `uncompressedBytes` (default 1 MiB over Timoni's
 * limit) of zeros in one file; it compresses to about a thousandth of that.
 */
export function oversizedLayer(uncompressedBytes = timoniMaxUntarSize + 1024 * 1024): Buffer {
  return tarGzip([...minimalModule, { name: 'padding.bin', type: 'file', content: Buffer.alloc(uncompressedBytes) }]);
}

/** Bytes that are not gzip at all, under a gzip media type. */
export function notGzipLayer(): Buffer {
  return Buffer.from('this is not a gzip stream\n');
}
