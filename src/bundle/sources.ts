// The user's bundle and runtime files: read once as the user names them with -f and -r
// (.cue, .json, .yaml or .yml), laid out in the CUE engine's in-memory workspace under
// names that cannot collide, and loaded as one anonymous CUE package after the runtime
// values are injected, as Timoni's bundle and runtime builders do. Errors keep showing the
// user's own paths: a CueFilesError carries every CUE diagnostic with its file and line.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { CueError, type CueDiagnostic, type CueEngine, type CueValue, type SourcePosition } from '../cue/index.js';
import { FileBoundary, FileBoundaryError } from '../file-boundary.js';
import { quote } from '../display-text.js';

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
    throw new SourceFileError(
      path,
      `unsupported file extension ${quote(extname(path))} (expected .cue, .json, .yaml or .yml)`,
    );
  }
  return format;
}

/**
 * Reads the files in the order given; the order decides the CUE field order of the result.
 * Each must resolve, after symlinks, inside the boundary (by default the working directory).
 */
export function readSourceFiles(
  paths: string[],
  cwd: string,
  boundary: FileBoundary = new FileBoundary([cwd]),
): SourceFile[] {
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
    throw new SourceFileError(
      shownAs,
      error instanceof Error ? error.message.replace(`${shownAs} `, '') : String(error),
    );
  }
}

/** The most files and folders a walk reaches (here and when cue.mod is read at another commit: ../runtime-at-commit.ts). */
export const WALK_ENTRY_LIMIT = 50_000;

/**
 * Walks a folder in name order, following symlinks that stay inside the boundary (never
 * into a folder it is already inside, so a link to a parent cannot loop) and refusing
 * those that leave it.
 * Calls `visit` with the path (as reached) and the real path of every regular file.
 */
export function walkInside(
  root: string,
  boundary: FileBoundary,
  visit: (path: string, real: string) => void,
  skip: (name: string) => boolean = () => false,
  shownFrom: string = root,
): void {
  let entries = 0;
  const walk = (dir: string, ancestors: ReadonlySet<string>): void => {
    const realDir = boundary.check(dir, relative(shownFrom, dir) || dir);
    // A link to a folder above it would walk forever; the same folder under two names is fine.
    if (ancestors.has(realDir)) return;
    const inside = new Set(ancestors).add(realDir);
    for (const name of readdirSync(dir).sort()) {
      // Links between folders can multiply the paths of a small tree; a module is never this big.
      if (++entries > WALK_ENTRY_LIMIT)
        throw new FileBoundaryError(
          `${shownFrom}: more than ${WALK_ENTRY_LIMIT} files and folders (links between folders?)`,
        );
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
export function readCueModuleFiles(
  workdir: string,
  boundary: FileBoundary = new FileBoundary([workdir]),
): Record<string, string> {
  const root = join(workdir, 'cue.mod');
  const files: Record<string, string> = {};
  if (!existsSync(root) || !statSync(root).isDirectory()) return files;
  walkInside(
    root,
    boundary,
    (path, real) => {
      files[relative(workdir, path).split('\\').join('/')] = readFileSync(real, 'utf8');
    },
    undefined,
    workdir,
  );
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

// An error in the user's CUE, JSON or YAML files, with every CUE diagnostic (message,
// field path, file, line and column) kept so that the CLI can print them and the action
// can turn them into annotations on the file and line. Positions in the user's own files
// come first; positions in files timoni-fleet generates (the schema) come last.

const at = (position: SourcePosition): string => `${position.file}:${position.line}:${position.column}`;

export function formatDiagnostic(diagnostic: CueDiagnostic): string {
  const [first, ...others] = diagnostic.positions;
  const where = first ? `${at(first)}: ` : '';
  const path = diagnostic.path ? `${diagnostic.path}: ` : '';
  const also = others.length > 0 ? ` (also ${others.map(at).join(', ')})` : '';
  return `${where}${path}${diagnostic.message}${also}`;
}

/** The diagnostic with positions in the given user files first, in their original order otherwise. */
export function userPositionsFirst(diagnostic: CueDiagnostic, userFiles: ReadonlySet<string>): CueDiagnostic {
  const inUserFiles = diagnostic.positions.filter((p) => userFiles.has(p.file));
  const elsewhere = diagnostic.positions.filter((p) => !userFiles.has(p.file));
  return { ...diagnostic, positions: [...inUserFiles, ...elsewhere] };
}

export class CueFilesError extends Error {
  readonly diagnostics: CueDiagnostic[];

  constructor(
    readonly summary: string,
    diagnostics: CueDiagnostic[],
    userFiles: ReadonlySet<string> = new Set(),
  ) {
    const ordered = diagnostics.map((d) => userPositionsFirst(d, userFiles));
    super(ordered.length > 0 ? `${summary}:\n${ordered.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}` : summary);
    this.name = 'CueFilesError';
    this.diagnostics = ordered;
  }
}

// Loads the user's files as one anonymous CUE package in the engine's in-memory
// workspace, after injecting runtime values into each file's source, as Timoni's bundle
// and runtime builders do. Positions in errors keep the user's file names.

export interface SourcePackageInput {
  /** Folder of the workspace inside the engine's virtual file system. */
  workspace: string;
  files: SourceFile[];
  moduleFiles: Record<string, string>;
  values: Record<string, string>;
  /** Generated files added to the package, by name (placed in the workspace). */
  extraFiles: Record<string, string>;
  context: string;
}

function injectedSource(engine: CueEngine, file: SourceFile, values: Record<string, string>): string {
  // A CUE file without a runtime attribute that has a value is passed through untouched,
  // so that every position in an error is exactly the user's.
  if (file.format === 'cue') {
    const attributes = engine.listRuntimeAttributes(file.path, file.content);
    if (!attributes.some((attribute) => attribute.name in values)) return file.content;
  }
  return engine.injectRuntimeValues(file.path, file.content, values);
}

export function loadSourcePackage(engine: CueEngine, input: SourcePackageInput): CueValue {
  const files: Record<string, string> = { ...input.moduleFiles };
  const displayNames: Record<string, string> = {};
  const args: string[] = [];
  try {
    input.files.forEach((file, index) => {
      const name = workspaceName(input.workspace, index, file);
      files[name] = injectedSource(engine, file, input.values);
      displayNames[name] = file.path;
      args.push(name);
    });
    for (const [fileName, content] of Object.entries(input.extraFiles)) {
      const name = `${input.workspace}/${input.files.length}.${fileName}`;
      files[name] = content;
      displayNames[name] = fileName;
      args.push(name);
    }
    return engine.load({ files, args, package: '_', dataFiles: true, displayNames });
  } catch (error) {
    if (error instanceof CueError) {
      throw new CueFilesError(
        `cannot load ${input.files.map((f) => f.path).join(', ')} (${input.context})`,
        error.diagnostics,
        new Set(input.files.map((f) => f.path)),
      );
    }
    throw error;
  }
}
