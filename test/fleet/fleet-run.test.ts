// A fleet run's progress and time limits: one cluster's lines buffered and printed as one
// group; a cluster's work not waited for past its deadline (the deadline's answer instead),
// and waited for without limit when there is no deadline; a cancellation shortens the wait
// to a grace, and stops new work as the deadline does.
import { describe, expect, it } from 'vitest';
import { RunCancelled } from '../../src/cancellation.js';
import { BufferedLog, CANCEL_GRACE_MS, runStopped, withinDeadline, type FleetLog } from '../../src/fleet/fleet-run.js';

describe('BufferedLog', () => {
  it('prints its lines inside one group, in order', () => {
    const printed: string[] = [];
    const target: FleetLog = {
      line: (text) => printed.push(text),
      startGroup: (title) => printed.push(`start ${title}`),
      endGroup: () => printed.push('end'),
    };
    const buffer = new BufferedLog();
    buffer.line('one');
    buffer.line('two');
    expect(printed).toEqual([]);
    buffer.flushInto(target, 'cluster a (staging): changed');
    expect(printed).toEqual(['start cluster a (staging): changed', 'one', 'two', 'end']);
  });
});

describe('withinDeadline', () => {
  it('answers with the work when it ends first', async () => {
    expect(await withinDeadline(Promise.resolve('done'), Date.now() + 1_000, () => 'late')).toBe('done');
  });

  it('answers at the deadline when the work does not end', async () => {
    const started = Date.now();
    const never = new Promise<string>(() => undefined);
    expect(await withinDeadline(never, started + 50, () => 'late')).toBe('late');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits for the work without a finite deadline', async () => {
    const work = new Promise<string>((resolve) => setTimeout(() => resolve('slow'), 30));
    expect(await withinDeadline(work, Infinity, () => 'late')).toBe('slow');
  });
});

describe('a cancelled run', () => {
  it("waits for a cluster's work a grace after the cancellation, then answers for it", async () => {
    const cancel = new AbortController();
    const never = new Promise<string>(() => undefined);
    const answer = withinDeadline(never, Infinity, (why) => why, cancel.signal);
    const at = Date.now();
    cancel.abort(new RunCancelled('SIGTERM'));
    expect(await answer).toBe('cancelled');
    expect(Date.now() - at).toBeGreaterThanOrEqual(CANCEL_GRACE_MS - 50);
    expect(Date.now() - at).toBeLessThan(CANCEL_GRACE_MS + 1_000);
  });

  it('answers with the work when it ends within the grace, and keeps an earlier deadline', async () => {
    const cancel = new AbortController();
    cancel.abort(new RunCancelled('SIGINT'));
    const work = new Promise<string>((resolve) => setTimeout(() => resolve('done'), 30));
    expect(await withinDeadline(work, Infinity, (why) => why, cancel.signal)).toBe('done');
    expect(
      await withinDeadline(new Promise<string>(() => undefined), Date.now() + 20, (why) => why, cancel.signal),
    ).toBe('deadline');
  });

  it('stops new work: cancelled first, then the deadline', () => {
    const cancel = new AbortController();
    expect(runStopped({ cancel: cancel.signal, deadlineAt: Date.now() + 60_000 })).toBeUndefined();
    expect(runStopped({ deadlineAt: Date.now() - 1 })).toBe('deadline');
    cancel.abort(new RunCancelled('SIGINT'));
    expect(runStopped({ cancel: cancel.signal, deadlineAt: Date.now() - 1 })).toBe('cancelled');
  });
});
