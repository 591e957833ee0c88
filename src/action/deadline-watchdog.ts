// The run's deadline kept by another thread. Network waits stop at the deadline by
// themselves (AbortSignal, per-request and per-cluster limits); a CUE evaluation cannot: it
// runs synchronously (in WebAssembly, or in the native engine's process while this thread
// waits for it) and holds the event loop, so no timer of the main thread fires while it
// loops. A worker thread keeps time instead, in two steps:
// - at the reserve (the part of the deadline kept to publish, run-action.ts), it stops the
//   native CUE engine (`stopEngineAt`: the engine's EngineStopper, ../cue/types.ts). The main
//   thread's blocking wait for the engine then ends with CueEngineStopped, and the run goes on
//   the normal way: the cluster in flight is reported failed at step `deadline` (which step
//   it was at, for how long), and the comment and the job summary say that this commit could
//   not be diffed, masked as everything published. The engine is stopped whether or not it is
//   busy then: no evaluation is due past the reserve (no cluster, instance or build starts
//   after it), and a cluster's work still running would otherwise start the next one while
//   the report is published. Chosen over the worker publishing by itself because the one
//   publishing path (masking, the marker, the review record, the outputs) stays the only one.
// - past the deadline and a grace period (for the run to publish what it has), it writes one
//   error annotation straight to standard output and ends the process: the last resort,
//   for the WebAssembly engine (it runs on the main thread, nothing can stop it but the
//   process's end) and for anything else that holds the event loop.
// It costs one idle thread; it never fires on a run that ends in time.
import { Worker } from 'node:worker_threads';
import { STOPPED_FROM_OUTSIDE, type EngineStopper } from '../cue/index.js';
import { formatAnnotation } from '../workflow-commands.js';

/**
 * Time the run has after its deadline to publish a report before the watchdog ends it:
 * a quarter of the deadline, between 1 and 30 seconds.
 */
export function watchdogGraceMs(deadlineMs: number): number {
  return Math.min(30_000, Math.max(1_000, Math.round(deadlineMs / 4)));
}

// The engine is stopped as EngineStopper says: STOPPED_FROM_OUTSIDE stored first, then SIGKILL.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setTimeout(() => {
  try { writeSync(1, workerData.message); } catch {}
  process.kill(process.pid, 'SIGKILL');
}, workerData.afterMs);
parentPort.on('message', ({ pid, state, at }) => {
  setTimeout(() => {
    Atomics.store(new Int32Array(state), 0, workerData.stoppedFromOutside);
    try { process.kill(pid, 'SIGKILL'); } catch {}
  }, Math.max(0, at - Date.now()));
});
`;

export interface Watchdog {
  /** Stops the native CUE engine at `at` (epoch ms), busy or not (see above). */
  stopEngineAt(at: number, stopper: EngineStopper): void;
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
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { message, afterMs: deadlineMs + graceMs, stoppedFromOutside: STOPPED_FROM_OUTSIDE },
  });
  worker.unref();
  return {
    stopEngineAt: (at, stopper) => worker.postMessage({ pid: stopper.pid, state: stopper.state, at }),
    stop: () => {
      void worker.terminate();
    },
  };
}
