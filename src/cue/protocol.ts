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

/** Runs one method whose request is JSON text already (see `exactJson`). */
export function invokeEncoded<T>(bridge: Bridge, method: string, requestJson: string): T {
  return resultOf<T>(method, bridge(method, requestJson));
}

/**
 * JSON text of plain data (what JSON.parse gives) in which every whole number below 1e21
 * is written with all its digits, as the JSON it was read from had them: JSON.stringify
 * writes 2 ** 60 as 1152921504606847000, another integer for Go's int64. Other numbers,
 * strings and keys are written as JSON.stringify writes them.
 */
export function exactJson(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1e21) return BigInt(value).toString();
  if (Array.isArray(value))
    return `[${value.map((item: unknown) => (item === undefined ? 'null' : exactJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const fields = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${fields.map(([key, item]) => `${JSON.stringify(key)}:${exactJson(item)}`).join(',')}}`;
  }
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) throw new TypeError(`a ${typeof value} cannot be sent to the CUE engine as JSON`);
  return text;
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
    throw new Error(`the CUE engine answered ${method} with malformed JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (response.error) throw new CueError(response.error.diagnostics);
  if (!('result' in response)) throw new Error(`the CUE engine answered ${method} without a result`);
  return response.result as T;
}
