// Where timoni-fleet keeps what it reuses between runs (pulled modules, the unpacked
// native CUE engine): one folder per kind under one root, so that no run leaves a folder
// of its own behind. In GitHub Actions the runner's temporary folder (RUNNER_TEMP,
// emptied after each job); elsewhere $XDG_CACHE_HOME/timoni-fleet, else
// ~/.cache/timoni-fleet. What is kept there is run (a module's code is built, the engine
// is a program): each folder is created private (0700) and refused when it is a link,
// another user owns it or others may write to it, since whoever can write there chooses
// what the next run executes.
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export class PrivateCacheDirError extends Error {
  constructor(label: string, dir: string, reason: string) {
    super(`${label} ${dir}: ${reason}`);
    this.name = 'PrivateCacheDirError';
  }
}

/** The default folder of one kind of cached things (`modules`, `engines`) for this environment. */
export function defaultCacheDir(
  kind: string,
  env: Record<string, string | undefined> = process.env,
  home: string = homedir(),
): string {
  if (env.GITHUB_ACTIONS === 'true' && env.RUNNER_TEMP && isAbsolute(env.RUNNER_TEMP))
    return join(env.RUNNER_TEMP, 'timoni-fleet', kind);
  // The XDG base directory rules: a relative XDG_CACHE_HOME is invalid and ignored.
  const cacheHome = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(cacheHome, 'timoni-fleet', kind);
}

/**
 * Creates `dir` (and its parents) when missing, the folder itself with mode 0700, and checks
 * it: a real folder (not a link), owned by this user, not writable by group or others.
 * `label` names the folder in errors ("module cache folder").
 */
export function preparePrivateCacheDir(dir: string, label: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new PrivateCacheDirError(
      label,
      dir,
      `cannot create it: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const info = lstatSync(dir);
  if (info.isSymbolicLink())
    throw new PrivateCacheDirError(label, dir, 'is a symbolic link; refusing to keep files where the link points');
  if (!info.isDirectory()) throw new PrivateCacheDirError(label, dir, 'is not a folder');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && info.uid !== uid) {
    throw new PrivateCacheDirError(
      label,
      dir,
      `is owned by user ${info.uid}, not by this user (${uid}); refusing to run what another user can change`,
    );
  }
  if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
    throw new PrivateCacheDirError(
      label,
      dir,
      `can be written by others (mode ${(info.mode & 0o777).toString(8)}); make it private (chmod 700) or remove it`,
    );
  }
  return dir;
}
