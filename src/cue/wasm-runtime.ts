// Starts the Go WebAssembly program (src/cue/shim) once and returns the function
// through which the engine is called. The sandbox must be installed before
// wasm_exec.js runs, hence the order of these two side-effect imports.
import { goFatalOutput } from './go-sandbox.js';
import './wasm/wasm_exec.js';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { gunzipSync } from 'node:zlib';
import { findEngineArtifact } from './artifacts.js';
import type { Bridge } from './bridge.js';
import { DEFAULT_MEMORY_LIMIT_MIB, memoryLimitMessage, withMemoryLimit } from './memory-limit.js';

export type { Bridge } from './bridge.js';

/** A WebAssembly instance, opaque here (the TypeScript setup has no DOM/WebAssembly types). */
type WasmInstance = object;

/** The part of the global WebAssembly API used here. */
interface WebAssemblyApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: WasmInstance }>;
}

/** The parts of wasm_exec.js's `Go` class that are used here. */
interface GoProgram {
  argv: string[];
  env: Record<string, string>;
  importObject: object;
  exit: (code: number) => void;
  run(instance: WasmInstance): Promise<void>;
}

type GoConstructor = new () => GoProgram;

// Names shared with src/cue/shim/bridge_js.go.
const CALL_GLOBAL = '__timoniFleetCue';
const READY_GLOBAL = '__timoniFleetCueReady';

/** dist/cue.wasm.gz, found as artifacts.ts says. */
export function locateWasm(): string {
  const { found, tried } = findEngineArtifact('cue.wasm.gz');
  if (found) return found;
  throw new Error(
    `CUE engine WebAssembly (cue.wasm.gz) not found; looked at: ${tried.join(', ')}. Run \`npm run build:cue\`.`,
  );
}

/** Set to 1 to let V8 recompile hot engine code with its optimizing tier (see below). */
export const TIER_UP_VARIABLE = 'TIMONI_FLEET_CUE_WASM_TIERUP';

/**
 * Keeps V8 on its baseline WebAssembly compiler (Liftoff). Go's wasm functions are huge,
 * and V8's tier-up recompiles them with TurboFan while the first loads run: measured
 * on 2 busy cores, the first load of the Kubernetes module fixture took 5-13 s with
 * tier-up and 1.4-2.1 s without, for about half the CPU time over four loads (bench/cue.ts
 * reports both). The flag is process-wide; the only other WebAssembly in a Node process
 * is usually undici's small HTTP parser.
 */
function preferBaselineCompiler(): void {
  if (process.env[TIER_UP_VARIABLE] === '1') return;
  setFlagsFromString('--liftoff-only');
}

function goConstructor(): GoConstructor {
  const Go = (globalThis as unknown as { Go?: GoConstructor }).Go;
  if (typeof Go !== 'function')
    throw new Error('wasm_exec.js did not define globalThis.Go; the CUE engine cannot start');
  return Go;
}

export interface WasmOptions {
  /** Ceiling on the engine's memory in MiB (default DEFAULT_MEMORY_LIMIT_MIB). */
  memoryLimitMiB?: number;
}

/** The error for a call during which Go stopped: out of memory said plainly, the dump left out. */
function stoppedError(method: string, exitCode: number | undefined, limitMiB: number): Error {
  const output = goFatalOutput() ?? '';
  if (/out of memory/.test(output)) return new Error(memoryLimitMessage(limitMiB));
  const first = output.split('\n').slice(0, 2).join(' ').trim();
  return new Error(
    `the CUE engine stopped while running ${method} (exit code ${exitCode ?? 'unknown'})${first ? `: ${first}` : ''}`,
  );
}

/** Loads, instantiates and starts the engine; resolves once Go has registered its entry point. */
export async function startWasm(options: WasmOptions = {}): Promise<Bridge> {
  const memoryLimitMiB = options.memoryLimitMiB ?? DEFAULT_MEMORY_LIMIT_MIB;
  const path = locateWasm();
  let bytes: Buffer;
  try {
    bytes = gunzipSync(readFileSync(path));
  } catch (error) {
    throw new Error(`cannot read the CUE engine WebAssembly ${path}: ${(error as Error).message}`, { cause: error });
  }
  const Go = goConstructor();
  const go = new Go();
  go.argv = ['cue-shim'];
  go.env = {};
  let exitCode: number | undefined;
  go.exit = (code) => {
    exitCode = code;
  };
  preferBaselineCompiler();
  const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: WebAssemblyApi };
  const { instance } = await wasmApi.instantiate(withMemoryLimit(bytes, memoryLimitMiB), go.importObject);
  const global = globalThis as unknown as Record<string, unknown>;
  const ready = new Promise<void>((resolve) => {
    global[READY_GLOBAL] = resolve;
  });
  const exited = go.run(instance).then(() => {
    throw new Error(`the CUE engine WebAssembly exited during start-up (exit code ${exitCode ?? 'unknown'})`);
  });
  try {
    await Promise.race([ready, exited]);
  } finally {
    delete global[READY_GLOBAL];
  }
  const call = global[CALL_GLOBAL];
  if (typeof call !== 'function')
    throw new Error(`the CUE engine WebAssembly started without registering ${CALL_GLOBAL}`);
  exited.catch(() => undefined);
  return (method, request) => {
    if (exitCode !== undefined) throw stoppedError(method, exitCode, memoryLimitMiB);
    let response: unknown;
    try {
      response = (call as Bridge)(method, request);
    } catch (error) {
      if (exitCode !== undefined || goFatalOutput() !== undefined) throw stoppedError(method, exitCode, memoryLimitMiB);
      throw error;
    }
    if (exitCode !== undefined || goFatalOutput() !== undefined) throw stoppedError(method, exitCode, memoryLimitMiB);
    if (typeof response !== 'string') throw new Error(`the CUE engine returned no response to ${method}`);
    return response;
  };
}
