import type { CueDiagnostic } from './types.js';

/** Renders a diagnostic as `file:line:col: path: message` (parts left out when unknown). */
export function formatDiagnostic(diagnostic: CueDiagnostic): string {
  const position = diagnostic.positions[0];
  const where = position ? `${position.file}:${position.line}:${position.column}: ` : '';
  const path = diagnostic.path ? `${diagnostic.path}: ` : '';
  return `${where}${path}${diagnostic.message}`;
}

/** A failure reported by CUE, with every individual error as a diagnostic. */
export class CueError extends Error {
  readonly diagnostics: CueDiagnostic[];

  constructor(diagnostics: CueDiagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n') || 'CUE failed without a diagnostic');
    this.name = 'CueError';
    this.diagnostics = diagnostics;
  }
}
