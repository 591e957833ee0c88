// Errors become annotations: each CUE diagnostic on its file and line (the user's file
// first), other errors as one plain error annotation. Both entry points give them: the
// action for every error it reports, the CLI for its failure when it runs in a workflow step.
import { CueFilesError } from './bundle/index.js';
import { CueError, type CueDiagnostic } from './cue/index.js';
import { formatAnnotation } from './workflow-commands.js';

function hasDiagnostics(error: unknown): error is { diagnostics: CueDiagnostic[] } {
  return (
    typeof error === 'object' &&
    error !== null &&
    Array.isArray((error as { diagnostics?: unknown }).diagnostics) &&
    (error as { diagnostics: unknown[] }).diagnostics.length > 0
  );
}

function diagnosticsOf(error: unknown): CueDiagnostic[] {
  if (error instanceof CueFilesError || error instanceof CueError) return error.diagnostics;
  // Other errors that carry CUE diagnostics (a module build, say).
  if (hasDiagnostics(error)) return error.diagnostics;
  if (error instanceof Error && error.cause !== undefined && error.cause !== error) return diagnosticsOf(error.cause);
  return [];
}

/** Each CUE diagnostic of the error as an annotation on its file and line: its key (message and place), its message, the command; none for another error. */
export function diagnosticAnnotations(
  error: unknown,
  title?: string,
): Array<{ key: string; message: string; command: string }> {
  return diagnosticsOf(error).map((diagnostic) => {
    const position = diagnostic.positions[0];
    const command = formatAnnotation({
      level: 'error',
      title: [title, diagnostic.path ? `CUE error at ${diagnostic.path}` : 'CUE error'].filter(Boolean).join(': '),
      message: diagnostic.message,
      ...(position ? { file: position.file, line: position.line, column: position.column } : {}),
    });
    return {
      key: `${position?.file ?? ''}:${position?.line ?? ''}:${position?.column ?? ''}:${diagnostic.message}`,
      message: diagnostic.message,
      command,
    };
  });
}

export function errorAnnotations(error: unknown, title?: string): string {
  const annotations = diagnosticAnnotations(error, title);
  if (annotations.length === 0) {
    const message = error instanceof Error ? error.message : String(error);
    return formatAnnotation({ level: 'error', message, ...(title ? { title } : {}) });
  }
  return annotations.map((annotation) => annotation.command).join('');
}
