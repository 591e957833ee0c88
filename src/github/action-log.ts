// The fleet's progress in the Actions log: lines on stdout, one collapsible group per
// cluster, every registered secret redacted before it is printed (the runner masks them
// too; redacting here also covers values registered after a line was composed).
import type { FleetLog } from '../fleet/fleet-log.js';
import { escapeData } from './workflow-commands.js';

export class ActionLog implements FleetLog {
  constructor(
    private readonly write: (text: string) => void,
    private readonly redact: (text: string) => string,
  ) {}

  line(text: string): void {
    this.write(`${this.redact(text)}\n`);
  }

  startGroup(title: string): void {
    this.write(`::group::${escapeData(this.redact(title))}\n`);
  }

  endGroup(): void {
    this.write('::endgroup::\n');
  }
}
