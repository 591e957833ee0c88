// Packs a Timoni module folder into its two content layers the way `timoni mod push`
// selects files: a pre-order walk in lexical order (Go's filepath.Walk) starting with
// the root entry ".", regular files and directories only (symlinks and special files
// are skipped), directory names without a trailing slash, owner, group and times zero.
// Layer 1 `module/vendor` keeps only cue.mod/ (rules `/*`, `!/cue.mod`); layer 2
// `module` keeps the rest (timoni.ignore rules plus `cue.mod/`).
// Where this differs from Timoni: permission bits are normalised (directories and
// executable files 0755, other files 0644) instead of copied from the file system, so
// that a digest does not depend on the umask of the checkout. The caller picks the gzip
// encoder: Go's (go-gzip.ts, Timoni's bytes) or Node's zlib (same level, other bytes).
import { lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { IgnoreMatcher, parseIgnoreLines } from './ignore-patterns.js';
import { writeTar, type TarEntry } from './tar-writer.js';

export const vendorLayerRules = ['/*', '!/cue.mod'];
export const moduleLayerExtraRule = 'cue.mod/';

interface WalkedPath {
  /** '/'-separated path relative to the module root; '.' for the root. */
  relative: string;
  parts: string[];
  absolute: string;
  stats: Stats;
}

function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Every path under `root` in filepath.Walk order (root first, children sorted bytewise). */
function walk(root: string): WalkedPath[] {
  const result: WalkedPath[] = [];
  const visit = (absolute: string, parts: string[]) => {
    const stats = lstatSync(absolute);
    result.push({ relative: parts.length === 0 ? '.' : parts.join('/'), parts, absolute, stats });
    if (!stats.isDirectory()) return;
    for (const name of readdirSync(absolute).sort(byBytes)) visit(join(absolute, name), [...parts, name]);
  };
  visit(root, []);
  return result;
}

/** Permission bits as written to the layers: 0755 for directories and executables, else 0644. */
export function normalisedMode(stats: Stats): number {
  if (stats.isDirectory()) return 0o755;
  return stats.mode & 0o111 ? 0o755 : 0o644;
}

/** The tar entries of one layer: walked paths the rules keep (with no rules, every path). */
export function layerEntries(moduleDir: string, rules: string[]): TarEntry[] {
  const root = lstatSync(moduleDir, { throwIfNoEntry: false });
  if (!root?.isDirectory()) throw new Error(`module folder ${moduleDir} is not a directory`);
  const matcher = new IgnoreMatcher(rules);
  const entries: TarEntry[] = [];
  for (const path of walk(moduleDir)) {
    const isDir = path.stats.isDirectory();
    if (!isDir && !path.stats.isFile()) continue;
    if (rules.length > 0 && matcher.ignores(path.parts, isDir)) continue;
    entries.push(
      isDir
        ? { name: path.relative, type: 'directory', mode: normalisedMode(path.stats) }
        : { name: path.relative, type: 'file', mode: normalisedMode(path.stats), content: readFileSync(path.absolute) },
    );
  }
  return entries;
}

/** The rules of `timoni.ignore` at the module root, if there is one. */
export function readTimoniIgnore(moduleDir: string): string[] {
  try {
    return parseIgnoreLines(readFileSync(join(moduleDir, 'timoni.ignore'), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(`reading ${join(moduleDir, 'timoni.ignore')}: ${(error as Error).message}`);
  }
}

/** Deterministic gzip with Node's zlib: no file name, mtime 0, level 6 (Go's default level too). */
export function gzipLayer(tar: Buffer): Buffer {
  return gzipSync(tar, { level: 6 });
}

export type LayerCompressor = (tar: Buffer) => Promise<Buffer>;

export interface ModuleLayer {
  /** Value of the `sh.timoni.content.type` annotation. */
  contentType: 'module/vendor' | 'module';
  entries: TarEntry[];
  tar: Buffer;
  gzip: Buffer;
}

/** The two layers of a module folder, vendor first, compressed by `compress`. */
export async function moduleLayers(
  moduleDir: string,
  compress: LayerCompressor = async (tar) => gzipLayer(tar),
): Promise<ModuleLayer[]> {
  const specs: Array<{ contentType: ModuleLayer['contentType']; rules: string[] }> = [
    { contentType: 'module/vendor', rules: vendorLayerRules },
    { contentType: 'module', rules: [...readTimoniIgnore(moduleDir), moduleLayerExtraRule] },
  ];
  const layers: ModuleLayer[] = [];
  for (const { contentType, rules } of specs) {
    const entries = layerEntries(moduleDir, rules);
    const tar = writeTar(entries);
    layers.push({ contentType, entries, tar, gzip: await compress(tar) });
  }
  return layers;
}
