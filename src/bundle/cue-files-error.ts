// An error in the user's CUE, JSON or YAML files, with every CUE diagnostic (message,
// field path, file, line and column) kept so that the CLI can print them and the action
// can turn them into annotations on the file and line. Positions in the user's own files
// come first; positions in files timoni-fleet generates (the schema) come last.
import type { CueDiagnostic, SourcePosition } from '../cue/index.js';

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
