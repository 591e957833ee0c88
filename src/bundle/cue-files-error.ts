// An error in the user's CUE, JSON or YAML files, with every CUE diagnostic (message,
// field path, file, line and column) kept so that the CLI can print them and the action
// can turn them into annotations on the file and line.
import type { CueDiagnostic } from '../cue/index.js';

export function formatDiagnostic(diagnostic: CueDiagnostic): string {
  const position = diagnostic.positions[0];
  const where = position ? `${position.file}:${position.line}:${position.column}: ` : '';
  const path = diagnostic.path ? `${diagnostic.path}: ` : '';
  return `${where}${path}${diagnostic.message}`;
}

export class CueFilesError extends Error {
  constructor(
    readonly summary: string,
    readonly diagnostics: CueDiagnostic[],
  ) {
    super(diagnostics.length > 0 ? `${summary}:\n${diagnostics.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}` : summary);
    this.name = 'CueFilesError';
  }
}
