// What Timoni v0.32 does with module layers when it pulls a module: each layer in turn is
// extracted into one folder by fluxcd/pkg/tar v1.2.0 with a 100 MiB limit and symlinks
// skipped (internal/oci/pull_module.go, extract.go); the first refused layer fails the
// pull. This runs that library (go/helper `untar`) so tests can compare the product's
// extraction with it on any layer, malformed ones included.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBinaries } from './binaries.js';

export interface ExtractedPath {
  /** '/'-separated, relative to the extraction folder. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  mode: number;
  size: number;
}

export interface ReferenceExtraction {
  /** fluxcd/pkg/tar's error for the first refused layer; undefined when all were extracted. */
  error: string | undefined;
  /** Index of the refused layer. */
  failedLayer: number | undefined;
  /** What the folder holds afterwards (a refused layer may leave part of its content). */
  paths: ExtractedPath[];
}

function untar(helper: string, layer: Buffer, dir: string): Promise<string | undefined> {
  return new Promise((resolveUntar, reject) => {
    const child = execFile(helper, ['untar', dir], { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`registry-helper untar ${dir} failed: ${stderr.trim() || error.message}`));
        return;
      }
      const result = JSON.parse(stdout) as { error: string | null };
      resolveUntar(result.error ?? undefined);
    });
    child.stdin?.on('error', () => undefined); // the helper may stop reading a refused layer early
    child.stdin?.end(layer);
  });
}

function list(dir: string, prefix = ''): ExtractedPath[] {
  const paths: ExtractedPath[] = [];
  // The folder is created with the first entry; a layer refused before that leaves none.
  if (!existsSync(dir)) return paths;
  for (const name of readdirSync(dir).sort()) {
    const absolute = join(dir, name);
    const stats = lstatSync(absolute);
    const path = prefix ? `${prefix}/${name}` : name;
    const type = stats.isFile()
      ? 'file'
      : stats.isDirectory()
        ? 'directory'
        : stats.isSymbolicLink()
          ? 'symlink'
          : 'other';
    paths.push({ path, type, mode: stats.mode & 0o7777, size: type === 'file' ? stats.size : 0 });
    if (type === 'directory') paths.push(...list(absolute, path));
  }
  return paths;
}

/** Extracts `layers` (gzip tarballs, in manifest order) into `dir` as Timoni does. */
export async function timoniReferenceExtract(layers: Buffer[], dir: string): Promise<ReferenceExtraction> {
  const { helper } = await ensureBinaries((line) => process.stderr.write(`registry: ${line}\n`));
  for (const [index, layer] of layers.entries()) {
    const error = await untar(helper, layer, dir);
    if (error !== undefined) return { error, failedLayer: index, paths: list(dir) };
  }
  return { error: undefined, failedLayer: undefined, paths: list(dir) };
}
