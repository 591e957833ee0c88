// The engines shared by the tests of test/cue: one of each kind per test process, as in
// production. Every test runs against both builds of the shim (native and WebAssembly),
// which must behave identically.
import { startCueEngine, type CueEngine, type CueEngineKind } from '../../src/cue/index.js';

/** Both engines, for describe.each. */
export const engineKinds: CueEngineKind[] = ['native', 'wasm'];

export function engine(kind: CueEngineKind): Promise<CueEngine> {
  return startCueEngine(kind);
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
