// The fleet's progress in the Actions log: lines on stdout, one collapsible group per
// cluster, every registered secret redacted before it is printed (the runner masks them
// too; redacting here also covers values registered after a line was composed), and every
// line escaped by the runner's own rule (escapeLogText in runner.ts) so that text from the
// user's files can never be read as a workflow command, and with its control characters
// shown escaped, so that no ANSI sequence from a value is interpreted by the log viewer.
import type { FleetLog } from '../fleet/fleet-run.js';
import { escapeLogText, formatAnnotation, formatGroupStart, type Annotation } from './runner.js';

export class ActionLog implements FleetLog {
  constructor(
    private readonly write: (text: string) => void,
    private readonly redact: (text: string) => string,
  ) {}

  line(text: string): void {
    this.write(`${escapeLogText(this.redact(text))}\n`);
  }

  /** An annotation (error, warning, notice): message and title escaped as command data. */
  annotate(annotation: Annotation): void {
    const redacted = { ...annotation, message: this.redact(annotation.message), ...(annotation.title ? { title: this.redact(annotation.title) } : {}) };
    this.write(formatAnnotation(redacted));
  }

  startGroup(title: string): void {
    this.write(formatGroupStart(this.redact(title)));
  }

  endGroup(): void {
    this.write('::endgroup::\n');
  }
}
