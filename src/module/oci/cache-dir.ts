// Where pulled modules are kept: one folder for every run, keyed by manifest digest, so
// that no run leaves a folder of its own behind. In GitHub Actions the runner's temporary
// folder (RUNNER_TEMP, emptied after each job); elsewhere $XDG_CACHE_HOME/timoni-fleet/
// modules, else ~/.cache/timoni-fleet/modules. Modules are code that the build executes:
// the folder is created private (0700) and refused when another user owns it or others
// may write to it, since whoever can write there chooses what the next build runs.
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export class ModuleCacheDirError extends Error {
  constructor(dir: string, reason: string) {
    super(`module cache folder ${dir}: ${reason}`);
    this.name = 'ModuleCacheDirError';
  }
}

/** The default module cache folder for this environment. */
export function defaultModuleCacheDir(env: Record<string, string | undefined> = process.env, home: string = homedir()): string {
  if (env.GITHUB_ACTIONS === 'true' && env.RUNNER_TEMP && isAbsolute(env.RUNNER_TEMP)) return join(env.RUNNER_TEMP, 'timoni-fleet', 'modules');
  // The XDG base directory rules: a relative XDG_CACHE_HOME is invalid and ignored.
  const cacheHome = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(cacheHome, 'timoni-fleet', 'modules');
}

/**
 * Creates `dir` (and its parents) when missing, the folder itself with mode 0700, and checks
 * it: a real folder (not a link), owned by this user, not writable by group or others.
 */
export function prepareModuleCacheDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ModuleCacheDirError(dir, `cannot create it: ${error instanceof Error ? error.message : String(error)}`);
  }
  const info = lstatSync(dir);
  if (info.isSymbolicLink()) throw new ModuleCacheDirError(dir, 'is a symbolic link; refusing to keep modules where the link points');
  if (!info.isDirectory()) throw new ModuleCacheDirError(dir, 'is not a folder');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && info.uid !== uid) {
    throw new ModuleCacheDirError(dir, `is owned by user ${info.uid}, not by this user (${uid}); refusing to build modules another user can change`);
  }
  if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
    throw new ModuleCacheDirError(dir, `can be written by others (mode ${(info.mode & 0o777).toString(8)}); make it private (chmod 700) or remove it`);
  }
  return dir;
}
