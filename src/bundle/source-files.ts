// Bundle and runtime files as the user names them with -f and -r: .cue, .json, .yaml or
// .yml, read once, and laid out in the CUE engine's in-memory workspace under names that
// cannot collide, while errors keep showing the user's own paths.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';

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

/** Reads the files in the order given; the order decides the CUE field order of the result. */
export function readSourceFiles(paths: string[], cwd: string): SourceFile[] {
  return paths.map((path) => {
    const format = sourceFormat(path);
    const absolutePath = resolve(cwd, path);
    if (!existsSync(absolutePath)) throw new SourceFileError(path, 'no such file');
    if (statSync(absolutePath).isDirectory()) throw new SourceFileError(path, 'is a directory, expected a file');
    return { path, absolutePath, format, content: readFileSync(absolutePath, 'utf8') };
  });
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
export function readCueModuleFiles(workdir: string): Record<string, string> {
  const root = join(workdir, 'cue.mod');
  const files: Record<string, string> = {};
  if (!existsSync(root) || !statSync(root).isDirectory()) return files;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) files[relative(workdir, path).split('\\').join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
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
