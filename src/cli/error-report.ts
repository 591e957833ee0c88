// Turns a failed command into what the user reads: the message on stderr, every CUE
// diagnostic with its file, line and field, and, inside GitHub Actions, an annotation on
// the file and line for each.
import { ClusterEvaluationError, CueFilesError } from '../bundle/index.js';
import { CueError, type CueDiagnostic } from '../cue/index.js';
import { formatAnnotation } from '../github/workflow-commands.js';
import type { CommandIO } from './command-io.js';

function diagnosticsOf(error: unknown): CueDiagnostic[] {
  if (error instanceof ClusterEvaluationError) return diagnosticsOf(error.cause);
  if (error instanceof CueFilesError || error instanceof CueError) return error.diagnostics;
  return [];
}

export function reportError(error: unknown, io: CommandIO): void {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`✗ ${message}\n`);
  if (io.env.GITHUB_ACTIONS !== 'true') return;
  const diagnostics = diagnosticsOf(error);
  for (const diagnostic of diagnostics) {
    const position = diagnostic.positions[0];
    io.stdout(
      formatAnnotation({
        level: 'error',
        title: diagnostic.path ? `CUE error at ${diagnostic.path}` : 'CUE error',
        message: diagnostic.message,
        ...(position ? { file: position.file, line: position.line, column: position.column } : {}),
      }),
    );
  }
  if (diagnostics.length === 0) io.stdout(formatAnnotation({ level: 'error', message }));
}
