// A fleet run's progress and time limits: one cluster's lines buffered and printed as one
// group; a cluster's work not waited for past its deadline (the deadline's answer instead),
// and waited for without limit when there is no deadline.
import { describe, expect, it } from 'vitest';
import { BufferedLog, withinDeadline, type FleetLog } from '../../src/fleet/run.js';

describe('BufferedLog', () => {
  it('prints its lines inside one group, in order', () => {
    const printed: string[] = [];
    const target: FleetLog = { line: (text) => printed.push(text), startGroup: (title) => printed.push(`start ${title}`), endGroup: () => printed.push('end') };
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
