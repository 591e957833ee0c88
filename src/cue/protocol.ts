// The JSON protocol between the TypeScript face and the Go shim (dispatch.go): one
// call per operation, `{"result": ...}` or `{"error": {"diagnostics": [...]}}` back.
import { CueError } from './error.js';
import type { AsyncBridge, Bridge } from './bridge.js';
import type { CueDiagnostic } from './types.js';

interface Response<T> {
  result?: T;
  error?: { diagnostics: CueDiagnostic[] };
}

/** The answer of every method that creates a value. */
export interface HandleResult {
  handle: number;
}

/** Runs one method; throws CueError with the engine's diagnostics when it fails. */
export function invoke<T>(bridge: Bridge, method: string, request: object): T {
  return resultOf<T>(method, bridge(method, JSON.stringify(request)));
}

/** Runs one method answered through the event loop; rejects with CueError as `invoke` throws. */
export async function invokeLater<T>(later: AsyncBridge, method: string, request: object): Promise<T> {
  return resultOf<T>(method, await later(method, JSON.stringify(request)));
}

function resultOf<T>(method: string, text: string): T {
  let response: Response<T>;
  try {
    response = JSON.parse(text) as Response<T>;
  } catch (error) {
    throw new Error(`the CUE engine answered ${method} with malformed JSON: ${(error as Error).message}`, { cause: error });
  }
  if (response.error) throw new CueError(response.error.diagnostics);
  if (!('result' in response)) throw new Error(`the CUE engine answered ${method} without a result`);
  return response.result as T;
}
