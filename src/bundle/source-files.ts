// Bundle and runtime files as the user names them with -f and -r: .cue, .json, .yaml or
// .yml, read once, and laid out in the CUE engine's in-memory workspace under names that
// cannot collide, while errors keep showing the user's own paths.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { FileBoundary, FileBoundaryError } from '../file-boundary.js';

export type SourceFormat = 'cue' | 'json' | 'yaml';

export interface SourceFile {
  /** The path as the user gave it; shown in errors and annotations. */
  path: string;
  absolutePath: string;
  format: SourceFormat;
  content: string;
}

export class SourceFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'SourceFileError';
  }
}

const FORMATS: Record<string, SourceFormat> = { '.cue': 'cue', '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

export function sourceFormat(path: string): SourceFormat {
  const format = FORMATS[extname(path).toLowerCase()];
  if (!format) {
    throw new SourceFileError(path, `unsupported file extension "${extname(path)}" (expected .cue, .json, .yaml or .yml)`);
  }
  return format;
}

/**
 * Reads the files in the order given; the order decides the CUE field order of the result.
 * Each must resolve, after symlinks, inside the boundary (by default the working directory).
 */
export function readSourceFiles(paths: string[], cwd: string, boundary: FileBoundary = new FileBoundary([cwd])): SourceFile[] {
  return paths.map((path) => {
    const format = sourceFormat(path);
    const absolutePath = resolve(cwd, path);
    if (!existsSync(absolutePath)) throw new SourceFileError(path, 'no such file');
    const real = checked(boundary, absolutePath, path);
    if (statSync(real).isDirectory()) throw new SourceFileError(path, 'is a directory, expected a file');
    return { path, absolutePath, format, content: readFileSync(real, 'utf8') };
  });
}

function checked(boundary: FileBoundary, path: string, shownAs: string): string {
  try {
    return boundary.check(path, shownAs);
  } catch (error) {
    throw new SourceFileError(shownAs, error instanceof Error ? error.message.replace(`${shownAs} `, '') : String(error));
  }
}

const WALK_ENTRY_LIMIT = 50_000;

/**
 * Walks a folder in name order, following symlinks that stay inside the boundary (never
 * into a folder it is already inside, so a link to a parent cannot loop) and refusing
 * those that leave it.
 * Calls `visit` with the path (as reached) and the real path of every regular file.
 */
export function walkInside(root: string, boundary: FileBoundary, visit: (path: string, real: string) => void, skip: (name: string) => boolean = () => false, shownFrom: string = root): void {
  let entries = 0;
  const walk = (dir: string, ancestors: ReadonlySet<string>): void => {
    const realDir = boundary.check(dir, relative(shownFrom, dir) || dir);
    // A link to a folder above it would walk forever; the same folder under two names is fine.
    if (ancestors.has(realDir)) return;
    const inside = new Set(ancestors).add(realDir);
    for (const name of readdirSync(dir).sort()) {
      // Links between folders can multiply the paths of a small tree; a module is never this big.
      if (++entries > WALK_ENTRY_LIMIT) throw new FileBoundaryError(`${shownFrom}: more than ${WALK_ENTRY_LIMIT} files and folders (links between folders?)`);
      const path = join(dir, name);
      const real = boundary.check(path, join(relative(shownFrom, dir), name) || path);
      const stat = statSync(real);
      if (stat.isDirectory()) {
        if (!skip(name)) walk(path, inside);
      } else if (stat.isFile()) visit(path, real);
    }
  };
  walk(root, new Set());
}

/** The name a file gets in the engine's workspace: its index keeps names unique and ordered. */
export function workspaceName(workspace: string, index: number, file: SourceFile): string {
  const stem = basename(file.path).replace(/\.(cue|json|ya?ml)$/i, '');
  return `${workspace}/${index}.${stem}.cue`;
}

/**
 * The files of the CUE module the bundle lives in (cue.mod/ under the working directory),
 * so that bundles may import packages as they can with Timoni's --workdir. Empty when the
 * working directory is not a CUE module.
 */
export function readCueModuleFiles(workdir: string, boundary: FileBoundary = new FileBoundary([workdir])): Record<string, string> {
  const root = join(workdir, 'cue.mod');
  const files: Record<string, string> = {};
  if (!existsSync(root) || !statSync(root).isDirectory()) return files;
  walkInside(root, boundary, (path, real) => {
    files[relative(workdir, path).split('\\').join('/')] = readFileSync(real, 'utf8');
  }, undefined, workdir);
  return files;
}

/** Resolves a relative `file://` module URL against the directory of the file that declared it. */
export function resolveFileModuleUrl(url: string, declaringFile: string | undefined): string {
  const prefix = 'file://';
  if (!url.startsWith(prefix)) return url;
  const path = url.slice(prefix.length);
  if (isAbsolute(path) || declaringFile === undefined) return url;
  const joined = join(declaringFile, '..', path);
  return prefix + joined;
}
