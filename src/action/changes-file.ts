// ChangeSet files: every mode writes its whole (masked) ChangeSet to a file, the
// `changes-file` output; the `changes-file` input puts it at a path in the workspace (for
// actions/upload-artifact), else it goes under RUNNER_TEMP. Report mode reads such files
// back, found by glob patterns (the `changes` input) as actions/download-artifact leaves
// them.
//
// Both stay inside the workspace: the folders a pull request's author committed may hold
// symlinks, so the folder written to is checked after symlinks and the file itself is
// opened without following one; files read are checked the same way (FileBoundary).
//
// A file read is never one the repository holds: the matrix jobs' ChangeSets are downloaded
// artifacts, so a file that git tracks in the checkout (git-index.ts), by its path or by where
// a symlink leads, was committed by someone, maybe the pull request's author, and is refused.
// When an index cannot be read, whether git tracks the file cannot be told: refused too.
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ChangeSet } from '../changeset.js';
import { UNBOUNDED, type FileBoundary } from '../file-boundary.js';
import type { ChangeSetFile } from '../fleet/merge.js';
import { GitIndexError, type GitCheckout } from './git-index.js';
import type { Environment } from './runner.js';

export class ChangesFileError extends Error {
  override name = 'ChangesFileError';
}

/** The nearest folder of `path` that exists (the path itself when it does). */
function existingAncestor(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Writes text to `path` inside the boundary: folders created, the file never reached through a symlink. */
function writeInside(path: string, text: string, boundary: FileBoundary, shownAs: string): void {
  const folder = dirname(path);
  boundary.check(existingAncestor(folder), shownAs);
  mkdirSync(folder, { recursive: true });
  boundary.check(folder, shownAs);
  if (existsSync(path) && lstatSync(path).isSymbolicLink())
    throw new ChangesFileError(`${shownAs} is a symbolic link; the ChangeSet is not written through it`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    throw new ChangesFileError(
      `${shownAs}: cannot write the ChangeSet: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export interface ChangesFileTarget {
  /** The `changes-file` input as given (relative to the workspace), or empty for RUNNER_TEMP. */
  path: string;
  workspace: string;
  boundary: FileBoundary;
}

/**
 * Writes the whole (masked) ChangeSet where the `changes-file` input says, or under
 * RUNNER_TEMP; returns the path written ('' when neither is available).
 */
export function writeChangesFile(env: Environment, changeSet: ChangeSet, target?: ChangesFileTarget): string {
  const text = `${JSON.stringify(changeSet, null, 2)}\n`;
  if (target && target.path !== '') {
    const path = resolve(target.workspace, target.path);
    writeInside(path, text, target.boundary, `changes-file ${target.path}`);
    return path;
  }
  const folder = env.RUNNER_TEMP;
  if (!folder) return '';
  const name = `timoni-fleet-changes-${(changeSet.bundle || 'bundle').replace(/[^A-Za-z0-9_.-]/g, '_')}-${env.GITHUB_RUN_ID ?? '0'}-${process.pid}.json`;
  const path = join(folder, name);
  // RUNNER_TEMP is the runner's own folder, outside the workspace and out of the author's reach.
  writeInside(path, text, UNBOUNDED, path);
  return path;
}

// ---- Globs
// A small matcher rather than fs.globSync (Node 22+; the CLI and the tests run on Node 20):
// `*` any text within one path segment, `?` one character, `**` any number of segments.
// Dot-files are matched like other files (download-artifact keeps artifact names as given).

function segmentRegex(segment: string): RegExp {
  const body = segment
    .split('')
    .map((character) =>
      character === '*' ? '[^/]*' : character === '?' ? '[^/]' : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

function walk(folder: string, segments: readonly string[], found: Set<string>): void {
  const [segment, ...rest] = segments;
  if (segment === undefined) {
    found.add(folder);
    return;
  }
  if (segment === '**') {
    walk(folder, rest, found);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(folder, entry.name), segments, found);
    }
    return;
  }
  if (!/[*?]/.test(segment)) {
    const next = join(folder, segment);
    if (existsSync(next)) walk(next, rest, found);
    return;
  }
  const regex = segmentRegex(segment);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!regex.test(entry.name)) continue;
    if (rest.length > 0 && !entry.isDirectory()) continue;
    walk(join(folder, entry.name), rest, found);
  }
}

/**
 * The files matching the glob patterns, relative to the workspace, sorted by path; a
 * pattern may not leave the workspace (each file is checked after symlinks when read).
 * Folders are skipped; `**` does not descend into symlinked folders.
 */
export function findChangesFiles(patterns: readonly string[], workspace: string): string[] {
  const found = new Set<string>();
  for (const pattern of patterns) {
    const absolute = resolve(workspace, pattern);
    const rel = relative(workspace, absolute);
    if (rel === '..' || rel.startsWith(`..${sep}`)) {
      throw new ChangesFileError(`changes pattern ${JSON.stringify(pattern)} leaves the workspace ${workspace}`);
    }
    walk(workspace, rel.split(sep).filter(Boolean), found);
  }
  return [...found].filter((path) => !lstatSync(path).isDirectory()).sort();
}

const FROM_ARTIFACT = "a ChangeSet must come from a matrix job's artifact, not from the repository";

/** Refuses a file that git tracks in the checkout, by its path or by where symlinks lead, or when that cannot be told. */
function refuseTracked(path: string, real: string, workspace: string, checkout: GitCheckout, shownAs: string): void {
  try {
    if (checkout.tracked(path))
      throw new ChangesFileError(`${shownAs}: tracked by git in the checkout; ${FROM_ARTIFACT}`);
    const target = real !== resolve(path) ? checkout.tracked(real) : null;
    if (target)
      throw new ChangesFileError(
        `${shownAs}: leads to ${relative(realpathSync(workspace), real) || real}, which git tracks in the checkout; ${FROM_ARTIFACT}`,
      );
  } catch (error) {
    if (!(error instanceof GitIndexError)) throw error;
    throw new ChangesFileError(
      `${shownAs}: cannot tell whether git tracks it in the checkout (${error.message}); a ChangeSet is read only from a file that git does not track, as a downloaded artifact`,
    );
  }
}

/**
 * Reads one ChangeSet file, inside the workspace and not tracked by git in the checkout;
 * errors name the file.
 */
export function readChangesFile(
  path: string,
  workspace: string,
  boundary: FileBoundary,
  checkout: GitCheckout,
): ChangeSetFile {
  const shownAs = relative(workspace, path) || path;
  const real = boundary.check(path, shownAs);
  refuseTracked(path, real, workspace, checkout, shownAs);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(real, 'utf8'));
  } catch (error) {
    throw new ChangesFileError(
      `${shownAs}: not a ChangeSet file: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const candidate = parsed as Partial<ChangeSet> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.bundle !== 'string' ||
    !Array.isArray(candidate.clusters) ||
    !candidate.clusters.every(
      (c: unknown) => typeof c === 'object' && c !== null && typeof (c as { name?: unknown }).name === 'string',
    )
  ) {
    throw new ChangesFileError(
      `${shownAs}: not a ChangeSet file (it needs "bundle", "mode" and "clusters" with their names, as a timoni-fleet run writes it with changes-file)`,
    );
  }
  return { file: shownAs, changeSet: candidate as ChangeSet };
}
