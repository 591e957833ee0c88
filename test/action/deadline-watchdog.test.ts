// The deadline watchdog's first step: at the reserve it stops the native CUE engine from its
// own thread, while this thread is blocked in an evaluation that would run for minutes; the
// blocked call ends with CueEngineStopped (not a crash), and later calls fail the same way.
import { describe, expect, it } from 'vitest';
import { startDeadlineWatchdog } from '../../src/action/deadline-watchdog.js';
import { CueEngineStopped, isEngineStopped, startCueEngine } from '../../src/cue/index.js';

const BURNING = `package main

import "list"

x: len([for i in list.Range(0, 3000, 1) for j in list.Range(0, 10000, 1) if i*j < 0 {i}])
`;

describe('the deadline watchdog', () => {
  it('stops the native engine in the middle of a blocking evaluation at the given time', async () => {
    const engine = await startCueEngine('native');
    expect(engine.stopper).toBeDefined();
    // A deadline far away: only the engine's stop may fire in this test.
    const watchdog = startDeadlineWatchdog(600_000, () => 'unused');
    try {
      const started = Date.now();
      watchdog.stopEngineAt(started + 1_500, engine.stopper!);
      let thrown: unknown;
      try {
        engine
          .load({ files: { 'a.cue': BURNING }, package: 'main' })
          .lookup('x')
          .toJSON();
      } catch (error) {
        thrown = error;
      }
      const elapsed = Date.now() - started;
      expect(thrown).toBeInstanceOf(CueEngineStopped);
      expect(isEngineStopped(new Error('wrapped', { cause: thrown }))).toBe(true);
      expect((thrown as Error).message).toContain('its evaluation was abandoned');
      expect(elapsed).toBeGreaterThanOrEqual(1_400);
      expect(elapsed).toBeLessThan(10_000);
      // The engine stays stopped: a later call fails the same way, at once.
      expect(() => engine.compile('1 + 1')).toThrow(CueEngineStopped);
    } finally {
      watchdog.stop();
    }
  }, 30_000);
});
