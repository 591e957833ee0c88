// A run's cancellation by a signal. Ctrl-C sends SIGINT; GitHub cancels a step (a newer
// merge with `concurrency: cancel-in-progress`, or the Cancel button) with SIGINT, then
// SIGTERM about 7.5 s later, then SIGKILL. Work that can stop cleanly (a rollout: start
// nothing new, let the object being applied finish, write Timoni's records of what was
// applied, report) runs inside `whileGraceful`: the first SIGINT or SIGTERM then aborts
// `signal`, whose reason is a RunCancelled naming the signal, and the work ends by itself.
// A second signal stops the process at once with exit code 130. Outside graceful work the
// process does not listen to these signals at all, so that their default (the process ends
// at once) holds, even while a CUE evaluation holds the event loop: a diff has nothing to
// finish.

/** The exit code of a run stopped by a signal (128 + SIGINT's number, as shells report Ctrl-C). */
export const CANCELLED_EXIT_CODE = 130;

/** The abort reason of a cancelled run: which signal cancelled it. */
export class RunCancelled extends Error {
  override name = 'RunCancelled';
  constructor(readonly signalName: string) {
    super(`the run was cancelled (${signalName})`);
  }
}

/** The RunCancelled of an aborted signal, if it was aborted by a cancellation. */
export function cancellationOf(signal: AbortSignal | undefined): RunCancelled | undefined {
  return signal?.aborted && signal.reason instanceof RunCancelled ? signal.reason : undefined;
}

export interface CancellationOutlets {
  /** Told once, at the first signal received inside graceful work (what happens now). */
  notice(text: string): void;
  /** Ends the process at once with CANCELLED_EXIT_CODE, after writing `text`. */
  stopNow(text: string): void;
}

/** How a Cancellation hears signals: `listen` while graceful work runs, `stopListening` after. */
export interface SignalSource {
  listen(receive: (signalName: string) => void): void;
  stopListening(): void;
}

export class Cancellation {
  private readonly controller = new AbortController();
  private graceful = 0;

  constructor(
    private readonly outlets: CancellationOutlets,
    private readonly source?: SignalSource,
  ) {}

  /** Aborted by the first signal received inside graceful work; its reason is a RunCancelled. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): RunCancelled | undefined {
    return cancellationOf(this.controller.signal);
  }

  /** Runs work that ends cleanly once `signal` aborts; a signal received outside such work stops the process at once. */
  async whileGraceful<T>(work: () => Promise<T>): Promise<T> {
    const release = this.hold();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** The same as whileGraceful, from now until the function returned is called. */
  hold(): () => void {
    this.graceful += 1;
    if (this.graceful === 1) this.source?.listen((name) => this.receive(name));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.graceful -= 1;
      if (this.graceful === 0) this.source?.stopListening();
    };
  }

  /** A signal arrived (the process's handler calls this). */
  receive(signalName: string): void {
    const first = this.cancelled;
    if (first) {
      this.outlets.stopNow(
        `received ${signalName} after ${first.signalName}: stopped at once; the cluster being applied may be left with its objects applied and Timoni's instance record not written`,
      );
      return;
    }
    if (this.graceful === 0) {
      this.outlets.stopNow(`received ${signalName}: stopped`);
      return;
    }
    this.outlets.notice(
      `received ${signalName}: cancelling the run: nothing new is started, the object being applied finishes, Timoni's records of what was applied are written, then the report (send a second signal to stop at once)`,
    );
    this.controller.abort(new RunCancelled(signalName));
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** A Cancellation fed by this process's SIGINT and SIGTERM while graceful work runs (which then do not end the process by themselves). */
export function cancellationOnSignals(outlets: CancellationOutlets): Cancellation {
  const handlers = new Map<string, () => void>();
  return new Cancellation(outlets, {
    listen: (receive) => {
      for (const name of SIGNALS) {
        const handler = () => receive(name);
        handlers.set(name, handler);
        process.on(name, handler);
      }
    },
    stopListening: () => {
      for (const [name, handler] of handlers) process.off(name, handler);
      handlers.clear();
    },
  });
}

/**
 * A signal that aborts `afterMs` after `cancel` does (never, if it never does): a bound on
 * what is left to do once the run is cancelled, such as publishing its report.
 */
export function abortedAfterCancel(cancel: AbortSignal, afterMs: number): AbortSignal {
  const bound = new AbortController();
  const start = () => {
    const timer = setTimeout(
      () => bound.abort(new Error(`no time left: the run was cancelled ${Math.round(afterMs / 100) / 10} s ago`)),
      afterMs,
    );
    timer.unref();
  };
  if (cancel.aborted) start();
  else cancel.addEventListener('abort', start, { once: true });
  return bound.signal;
}
