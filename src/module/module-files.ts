// Reads a module folder into memory for the CUE engine: every file under it except
// version-control folders, text as strings and the rest as bytes (CUE may embed them).
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { walkInside } from '../bundle/source-files.js';
import type { CueEngine } from '../cue/index.js';
import { FileBoundary } from '../file-boundary.js';

const SKIPPED_FOLDERS = new Set(['.git', '.hg', '.svn', 'node_modules']);
/** A module is source code; anything larger is most likely a mistake. */
export const MODULE_FILE_LIMIT_BYTES = 32 * 1024 * 1024;

export class ModuleFilesError extends Error {}

function isText(data: Buffer): boolean {
  return !data.subarray(0, 8000).includes(0);
}

/**
 * Every file of the module folder (what CUE may load or `@embed`), each checked to resolve,
 * after symlinks, inside the boundary (by default the module folder itself).
 */
export function readModuleFiles(root: string, boundary: FileBoundary = new FileBoundary([root])): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {};
  let total = 0;
  try {
    walkInside(
      root,
      boundary,
      (path, real) => {
        total += statSync(real).size;
        if (total > MODULE_FILE_LIMIT_BYTES) {
          throw new ModuleFilesError(`module at ${root} holds more than ${MODULE_FILE_LIMIT_BYTES / 1024 / 1024} MiB of files`);
        }
        const data = readFileSync(real);
        const key = relative(root, path).split('\\').join('/');
        files[key] = isText(data) ? data.toString('utf8') : new Uint8Array(data);
      },
      (name) => SKIPPED_FOLDERS.has(name),
    );
  } catch (error) {
    if (error instanceof ModuleFilesError) throw error;
    throw new ModuleFilesError(`module at ${root}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return files;
}

/** The module name declared in cue.mod/module.cue (`module: "example.com/app"`). */
export function moduleNameOf(engine: CueEngine, files: Record<string, string | Uint8Array>): string | undefined {
  const text = files['cue.mod/module.cue'];
  if (typeof text !== 'string') return undefined;
  const value = engine.compile(text, { filename: 'cue.mod/module.cue' });
  const name = value.lookup('module');
  try {
    return name.exists() && name.kind() === 'string' ? (name.toJSON() as string) : undefined;
  } finally {
    name.free();
    value.free();
  }
}
