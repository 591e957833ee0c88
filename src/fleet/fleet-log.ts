// Where the fleet layer reports progress: plain lines and groups (one per cluster). The
// CLI prints lines; the action turns groups into collapsible log groups.
export interface FleetLog {
  line(text: string): void;
  startGroup(title: string): void;
  endGroup(): void;
}

/** Collects one cluster's lines while clusters run at once, to print them together. */
export class BufferedLog {
  readonly lines: string[] = [];

  line(text: string): void {
    this.lines.push(text);
  }

  flushInto(log: FleetLog, title: string): void {
    log.startGroup(title);
    for (const text of this.lines) log.line(text);
    log.endGroup();
  }
}

export const silentLog: FleetLog = { line: () => undefined, startGroup: () => undefined, endGroup: () => undefined };
