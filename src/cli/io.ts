// What a command reads and writes (CommandIO, passed in so that tests run commands
// in-process), and the fleet commands' progress on stderr (CliLog).
import { escapeLogText } from '../workflow-commands.js';
import type { Cancellation } from '../cancellation.js';
import { escapeControls } from '../display-text.js';
import type { FleetLog } from '../fleet/fleet-run.js';
import type { SecretRegistry } from '../secrets.js';

export interface CommandIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** The process's SIGINT / SIGTERM (`../cancellation.ts`); an apply stops cleanly on the first one. Absent in tests run in-process. */
  cancellation?: Cancellation;
  /**
   * The run's secrets (maskedIO): a fleet run registers there what it must never print (the
   * kubeconfig's credentials, runtime values read from Secrets or credential-named variables,
   * the secrets a history revision's values held), and both streams mask them. Absent: the
   * command makes its own registry and prints as it is (vet and build redact what they print).
   */
  secrets?: SecretRegistry;
}

/**
 * The streams of a fleet command with every secret of `secrets` masked (SecretRegistry.redact,
 * the one rule of ../secrets.ts), on stdout as on stderr: a diff or a ChangeSet holds values
 * built from runtime values, and an error may quote them. Secrets registered while the command
 * runs are masked from then on (a value is registered before anything built from it is printed).
 */
export function maskedIO(io: CommandIO, secrets: SecretRegistry): CommandIO {
  return {
    ...io,
    secrets,
    stdout: (text) => io.stdout(secrets.redact(text)),
    stderr: (text) => io.stderr(secrets.redact(text)),
  };
}

/**
 * The process's own streams. stderr carries what a person reads (progress, errors, names and
 * messages from the user's files): it is written by the action log's rule (escapeLogText,
 * ../workflow-commands.ts), control characters shown escaped so that no ANSI sequence from a
 * value colours or overwrites the terminal, and no line read as a workflow command when the CLI runs in a
 * workflow step. stdout carries data (YAML, JSON, diffs) that may be piped or redirected:
 * it is kept byte for byte, and only on a terminal are its control characters shown
 * escaped (escapeControls, the first half of the same rule; the second, a zero-width space
 * in a `::` or `##[`, concerns the runner only and would end up in what is copied from the
 * terminal).
 */
export function processIO(): CommandIO {
  const stdoutIsTerminal = process.stdout.isTTY === true;
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(stdoutIsTerminal ? escapeControls(text) : text),
    stderr: (text) => process.stderr.write(escapeLogText(text)),
  };
}

// ---- Progress
// Clusters are diffed at once and each reports its lines as one group when it is done; the
// CLI prints those groups in runtime order, as Timoni and the pull request comment list
// clusters, not in the order they finished. A group waits until every cluster before it
// has printed; lines outside a group pass at once. Every printed line is remembered, so
// that a cluster's error already logged by the fleet layer is not printed a second time in
// the closing summary.

interface Group {
  title: string;
  lines: string[];
}

export class CliLog implements FleetLog {
  private readonly printed: string[] = [];
  private readonly done = new Map<number, Group>();
  private next = 0;
  private open: { group: Group; index: number | undefined; streaming: boolean } | undefined;

  private clusters: readonly string[] = [];

  constructor(private readonly io: CommandIO) {}

  /** The selected cluster names in runtime order; groups are titled `cluster <name> (...)`. */
  order(clusters: readonly string[]): void {
    this.clusters = clusters;
  }

  line(text: string): void {
    if (this.open && !this.open.streaming) this.open.group.lines.push(text);
    else this.write(text);
  }

  startGroup(title: string): void {
    const index = this.indexOf(title);
    // A group whose turn it is (or that names no cluster of the list) is printed as it comes.
    const streaming = index === undefined || index <= this.next;
    this.open = { group: { title, lines: [] }, index, streaming };
    if (streaming) this.write(`── ${title}`);
  }

  endGroup(): void {
    const open = this.open;
    this.open = undefined;
    if (!open) return;
    if (open.streaming) {
      if (open.index === this.next) this.next += 1;
    } else this.done.set(open.index as number, open.group);
    this.release();
  }

  /** Prints the groups still held back (clusters before them never reported), in runtime order. */
  flush(): void {
    for (const index of [...this.done.keys()].sort((a, b) => a - b)) this.writeGroup(this.done.get(index) as Group);
    this.done.clear();
    this.next = this.clusters.length;
  }

  /** Whether a printed line already holds this text. */
  hasPrinted(text: string): boolean {
    return this.printed.some((line) => line.includes(text));
  }

  private indexOf(title: string): number | undefined {
    // The longest name that matches, so that `prod` does not take the group of `prod-2`.
    let found: number | undefined;
    this.clusters.forEach((name, index) => {
      if (title === `cluster ${name}` || title.startsWith(`cluster ${name} (`)) {
        if (found === undefined || name.length > (this.clusters[found] as string).length) found = index;
      }
    });
    return found;
  }

  private release(): void {
    for (let group = this.done.get(this.next); group; group = this.done.get(this.next)) {
      this.done.delete(this.next);
      this.writeGroup(group);
      this.next += 1;
    }
  }

  private writeGroup(group: Group): void {
    this.write(`── ${group.title}`);
    for (const text of group.lines) this.write(text);
  }

  private write(text: string): void {
    this.printed.push(text);
    this.io.stderr(`${text}\n`);
  }
}
