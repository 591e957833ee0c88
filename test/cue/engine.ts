// The engine shared by the tests of test/cue: one per test process, as in production.
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';

export function engine(): Promise<CueEngine> {
  return loadCueEngine();
}

/** Runs `fn` and returns the CueError-like failure it throws (fails when it does not throw). */
export function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure, but the call succeeded');
}
