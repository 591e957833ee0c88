// Turns a failed command into what the user reads: the message on stderr, every CUE
// diagnostic with its file, line and field, and, inside GitHub Actions, an annotation on
// the file and line for each.
import { errorAnnotations } from '../github/error-annotations.js';
import type { CommandIO } from './command-io.js';

export function reportError(error: unknown, io: CommandIO): void {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`✗ ${message}\n`);
  if (io.env.GITHUB_ACTIONS === 'true') io.stdout(errorAnnotations(error));
}
