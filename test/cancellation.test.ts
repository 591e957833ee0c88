// A run's cancellation by signals: the first SIGINT or SIGTERM inside graceful work aborts
// the run's signal with a RunCancelled naming it (and says what happens now); a second one,
// or one outside graceful work, stops at once; the bound on what is left after a cancellation.
import { describe, expect, it } from 'vitest';
import { abortedAfterCancel, Cancellation, cancellationOf, RunCancelled } from '../src/cancellation.js';

function recording(): { cancellation: Cancellation; notices: string[]; stops: string[] } {
  const notices: string[] = [];
  const stops: string[] = [];
  const cancellation = new Cancellation({ notice: (text) => notices.push(text), stopNow: (text) => stops.push(text) });
  return { cancellation, notices, stops };
}

describe('Cancellation', () => {
  it('cancels graceful work on the first signal, naming it, and stops at once on the second', async () => {
    const { cancellation, notices, stops } = recording();
    let seen: RunCancelled | undefined;
    await cancellation.whileGraceful(async () => {
      cancellation.receive('SIGINT');
      seen = cancellationOf(cancellation.signal);
      expect(stops).toEqual([]);
      cancellation.receive('SIGTERM');
    });
    expect(seen?.signalName).toBe('SIGINT');
    expect(seen?.message).toBe('the run was cancelled (SIGINT)');
    expect(cancellation.cancelled).toBe(seen);
    expect(notices).toEqual([
      expect.stringMatching(
        /^received SIGINT: cancelling the run: nothing new is started, the object being applied finishes/,
      ),
    ]);
    expect(stops).toEqual([expect.stringMatching(/^received SIGTERM after SIGINT: stopped at once/)]);
  });

  it('stops at once on a signal outside graceful work (nothing to finish), and after it ended', async () => {
    const { cancellation, notices, stops } = recording();
    cancellation.receive('SIGTERM');
    expect(stops).toEqual(['received SIGTERM: stopped']);
    expect(cancellation.signal.aborted).toBe(false);
    await cancellation.whileGraceful(async () => undefined);
    cancellation.receive('SIGINT');
    expect(stops).toHaveLength(2);
    expect(notices).toEqual([]);
  });

  it('holds graceful work until released, once', () => {
    const { cancellation, stops } = recording();
    const release = cancellation.hold();
    release();
    release();
    cancellation.receive('SIGINT');
    expect(stops).toEqual(['received SIGINT: stopped']);
  });

  it('listens to signals only while graceful work runs, so that outside it a signal keeps its default', async () => {
    const listening: boolean[] = [];
    let receive: ((name: string) => void) | undefined;
    const cancellation = new Cancellation(
      { notice: () => undefined, stopNow: () => undefined },
      {
        listen: (handler) => {
          receive = handler;
          listening.push(true);
        },
        stopListening: () => listening.push(false),
      },
    );
    const outer = cancellation.hold();
    await cancellation.whileGraceful(async () => {
      receive?.('SIGTERM');
    });
    expect(cancellation.cancelled?.signalName).toBe('SIGTERM');
    outer();
    expect(listening).toEqual([true, false]);
  });

  it('tells a cancellation from another abort', () => {
    const other = new AbortController();
    other.abort(new Error('deadline'));
    expect(cancellationOf(other.signal)).toBeUndefined();
    expect(cancellationOf(undefined)).toBeUndefined();
  });
});

describe('abortedAfterCancel', () => {
  it('aborts the given time after the cancellation, not before it', async () => {
    const cancel = new AbortController();
    const bound = abortedAfterCancel(cancel.signal, 30);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(bound.aborted).toBe(false);
    const at = Date.now();
    cancel.abort(new RunCancelled('SIGINT'));
    await new Promise<void>((resolve) => bound.addEventListener('abort', () => resolve(), { once: true }));
    expect(Date.now() - at).toBeGreaterThanOrEqual(25);
    expect((bound.reason as Error).message).toMatch(/^no time left: the run was cancelled/);
  });
});
