// The fleet's progress in the Actions log: lines on stdout, one collapsible group per
// cluster, every registered secret redacted before it is printed (the runner masks them
// too; redacting here also covers values registered after a line was composed), and every
// line escaped by the runner's own rule (escapeLogText in runner.ts) so that text from the
// user's files can never be read as a workflow command, and with its control characters
// shown escaped, so that no ANSI sequence from a value is interpreted by the log viewer.
//
// Each failure is said once, as an error annotation with a title: a failure line of the
// fleet (FAILURE_MARK) becomes one, titled by the cluster's group; a CUE error becomes one
// per diagnostic on the user's file and line (`annotateErrorLines`), and its failure line is
// then not said again; what the run annotates at its end skips what was told (`hasTold`). A
// warning line of the fleet (WARNING_MARK: an instance's history not written) becomes a
// warning annotation.
import { FAILURE_MARK, WARNING_MARK, type FleetLog } from '../fleet/fleet-run.js';
import { diagnosticAnnotations } from '../error-annotations.js';
import { escapeLogText, formatAnnotation, formatGroupStart, type Annotation } from '../workflow-commands.js';

export class ActionLog implements FleetLog {
  private group: string | undefined;
  private readonly told: string[] = [];
  private readonly placesTold = new Set<string>();
  /** The title of a failure told outside any cluster's group (`timoni-fleet status`). */
  runTitle = 'timoni-fleet';

  constructor(
    private readonly write: (text: string) => void,
    private readonly redact: (text: string) => string,
  ) {}

  line(text: string): void {
    if (text.startsWith(FAILURE_MARK)) {
      const message = text.slice(FAILURE_MARK.length);
      if (!this.hasTold(message)) this.annotate({ level: 'error', title: this.group ?? this.runTitle, message });
      return;
    }
    if (text.startsWith(WARNING_MARK)) {
      this.annotate({ level: 'warning', title: this.group ?? this.runTitle, message: text.slice(WARNING_MARK.length) });
      return;
    }
    this.write(`${escapeLogText(this.redact(text))}\n`);
  }

  /** An annotation (error, warning, notice): message and title escaped as command data. */
  annotate(annotation: Annotation): void {
    const redacted = {
      ...annotation,
      message: this.redact(annotation.message),
      ...(annotation.title ? { title: this.redact(annotation.title) } : {}),
    };
    this.told.push(annotation.message);
    this.write(formatAnnotation(redacted));
  }

  /**
   * A CUE error as annotations on the user's files and lines, each place once; nothing for
   * another error (its failure line tells it). A failure line holding a message told here
   * is then not said again.
   */
  annotateErrorLines(error: unknown): void {
    for (const { key, message, command } of diagnosticAnnotations(error)) {
      if (this.placesTold.has(key)) continue;
      this.placesTold.add(key);
      this.told.push(message);
      this.write(this.redact(command));
    }
  }

  /** Whether a failure with this text was told already (one text holds the other). */
  hasTold(text: string): boolean {
    return text !== '' && this.told.some((told) => told.includes(text) || text.includes(told));
  }

  startGroup(title: string): void {
    this.group = title;
    this.write(formatGroupStart(this.redact(title)));
  }

  endGroup(): void {
    this.group = undefined;
    this.write('::endgroup::\n');
  }
}
