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

/**
 * A call the engine could not finish because another thread stopped the engine's process
 * (the action's deadline watchdog, through the engine's `stopper`): the evaluation was
 * abandoned, and every later call fails the same way.
 */
export class CueEngineStopped extends Error {
  constructor(readonly method: string) {
    super(`the CUE engine was stopped from outside while running ${method}: its evaluation was abandoned`);
    this.name = 'CueEngineStopped';
  }
}

/** True when `error`, or an error it was caused by, is a CueEngineStopped. */
export function isEngineStopped(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++)
    if (at instanceof CueEngineStopped) return true;
  return false;
}
