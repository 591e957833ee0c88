// `file://` modules: a folder on disk, relative URLs resolved against the working
// directory (the bundle layer has already made them relative to the declaring file).
// Like Timoni, the folder must hold cue.mod/module.cue, timoni.cue and values.cue; the
// version is 0.0.0-devel and the digest is unknown.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { CueEngine } from '../cue/index.js';
import { FileBoundary } from '../file-boundary.js';
import { moduleNameOf, readModuleFiles } from './module-files.js';
import { DEVEL_VERSION, LOCAL_DIGEST, type ModuleSource } from './module-source.js';

export const LOCAL_PREFIX = 'file://';
const REQUIRED_FILES = ['cue.mod/module.cue', 'timoni.cue', 'values.cue'];

export class LocalModuleError extends Error {
  constructor(url: string, reason: string) {
    super(`module ${url}: ${reason}`);
    this.name = 'LocalModuleError';
  }
}

/**
 * Reads a local module. Its folder must resolve inside the boundary (by default the working
 * directory): a bundle may not point `file://` at `/etc` or `../../..`.
 */
export function loadLocalModule(url: string, cwd: string, engine: CueEngine, boundary: FileBoundary = new FileBoundary([cwd])): ModuleSource {
  const path = url.slice(LOCAL_PREFIX.length);
  const root = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(root)) throw new LocalModuleError(url, `no module folder at ${root}`);
  const realRoot = realpathSync(root);
  if (!boundary.contains(realRoot)) {
    const where = realRoot === resolve(root) ? root : `${root} (which points to ${realRoot})`;
    throw new LocalModuleError(url, `the module folder ${where} is outside ${boundary.describe()}; local modules must live inside it`);
  }
  if (!statSync(root).isDirectory()) throw new LocalModuleError(url, `no module folder at ${root}`);
  for (const required of REQUIRED_FILES) {
    if (!existsSync(join(root, required))) throw new LocalModuleError(url, `required file not found: ${join(root, required)}`);
  }
  let files: Record<string, string | Uint8Array>;
  try {
    files = readModuleFiles(root, boundary);
  } catch (error) {
    throw new LocalModuleError(url, error instanceof Error ? error.message.replace(`module at ${root}: `, '') : String(error));
  }
  const name = moduleNameOf(engine, files);
  if (!name) throw new LocalModuleError(url, `cue.mod/module.cue in ${root} declares no module name`);
  return { url, version: DEVEL_VERSION, digest: LOCAL_DIGEST, name, files, root, localPath: relative(cwd, root).split('\\').join('/') || '.' };
}
