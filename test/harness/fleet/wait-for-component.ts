// Waiting for a freshly started component to answer its health check, failing early with
// its last log lines when it exits, and with a clear message when its port was taken.
import { isRunning, logTail, type ProcessRecord } from './processes.js';

export interface WaitOptions {
  /** What is waited for, e.g. `kube-apiserver of fleet-1 to answer /readyz`. */
  description: string;
  timeoutMs: number;
  intervalMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Part of the message of a start failure caused by a port that another process took first. */
export const portTakenHint = 'a port it was given is in use by another process';

function failure(record: ProcessRecord, headline: string): Error {
  const tail = logTail(record.logPath);
  const portTaken = /address already in use|bind: address/i.exec(tail);
  const hint = portTaken ? `\n(${portTakenHint}; start again to get other ports)` : '';
  return new Error(`${headline}${hint}\nlast lines of ${record.logPath}:\n${tail}`);
}

/**
 * Calls `probe` until it returns true. Rejects when the process stops running (with the end
 * of its log) or when `timeoutMs` passes (with the end of the log and the last probe error).
 */
export async function waitForComponent(
  record: ProcessRecord,
  probe: () => Promise<boolean>,
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastProblem = 'no answer yet';
  for (;;) {
    if (!isRunning(record))
      throw failure(record, `${record.component} (pid ${record.pid}) exited while waiting for ${options.description}`);
    try {
      if (await probe()) return;
      lastProblem = 'not ready yet';
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    if (Date.now() > deadline) {
      throw failure(
        record,
        `timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${options.description} (last probe: ${lastProblem})`,
      );
    }
    await sleep(options.intervalMs ?? 250);
  }
}
