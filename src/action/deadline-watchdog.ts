// The last resort of the run's deadline. Network waits stop at the deadline by themselves
// (AbortSignal, per-request and per-cluster limits); a CUE evaluation cannot: it runs
// synchronously (in WebAssembly, or in the native engine's process while this thread
// waits for it) and holds the event loop, so no timer of the main thread
// fires while it loops. A worker thread keeps time instead: past the deadline and a grace
// period (for the run to publish what it has), it writes one error annotation straight to
// standard output and ends the process. It costs one idle thread; it never fires on a run
// that ends in time.
import { Worker } from 'node:worker_threads';
import { formatAnnotation } from '../workflow-commands.js';

/**
 * Time the run has after its deadline to publish a report before the watchdog ends it:
 * a quarter of the deadline, between 1 and 30 seconds.
 */
export function watchdogGraceMs(deadlineMs: number): number {
  return Math.min(30_000, Math.max(1_000, Math.round(deadlineMs / 4)));
}

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setTimeout(() => {
  try { writeSync(1, workerData.message); } catch {}
  process.kill(process.pid, 'SIGKILL');
}, workerData.afterMs);
`;

export interface Watchdog {
  stop(): void;
}

/**
 * Starts the watchdog: `deadlineMs` from now plus the grace period, it prints the message
 * (as an error annotation) and kills the process. `describe` gets the deadline in ms.
 */
export function startDeadlineWatchdog(
  deadlineMs: number,
  describe: (deadlineMs: number) => string,
  graceMs: number = watchdogGraceMs(deadlineMs),
): Watchdog {
  const message = formatAnnotation({ level: 'error', title: 'timoni-fleet deadline', message: describe(deadlineMs) });
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { message, afterMs: deadlineMs + graceMs } });
  worker.unref();
  return {
    stop: () => {
      void worker.terminate();
    },
  };
}
