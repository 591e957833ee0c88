// `file://` modules: a folder on disk, relative URLs resolved against the working
// directory (the bundle layer has already made them relative to the declaring file).
// Like Timoni, the folder must hold cue.mod/module.cue, timoni.cue and values.cue; the
// version is 0.0.0-devel and the digest is unknown.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { CueEngine } from '../cue/index.js';
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

export function loadLocalModule(url: string, cwd: string, engine: CueEngine): ModuleSource {
  const path = url.slice(LOCAL_PREFIX.length);
  const root = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new LocalModuleError(url, `no module folder at ${root}`);
  for (const required of REQUIRED_FILES) {
    if (!existsSync(join(root, required))) throw new LocalModuleError(url, `required file not found: ${join(root, required)}`);
  }
  const files = readModuleFiles(root);
  const name = moduleNameOf(engine, files);
  if (!name) throw new LocalModuleError(url, `cue.mod/module.cue in ${root} declares no module name`);
  return { url, version: DEVEL_VERSION, digest: LOCAL_DIGEST, name, files, root };
}
