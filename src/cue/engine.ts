import type { AsyncBridge, Bridge, CueEngineKind } from './bridge.js';
import { deferFrees } from './deferred-frees.js';
import { FileSets, isUnknownSet, splitFiles } from './file-sets.js';
import { startNative } from './native-runtime.js';
import { exactJson, invoke, invokeEncoded, invokeLater, type HandleResult } from './protocol.js';
import { BridgeCueValue } from './value.js';
import { startWasm } from './wasm-runtime.js';
import type {
  CompileOptions,
  CueEngine,
  CueValue,
  EngineStopper,
  LoadOptions,
  InstanceValues,
  InstanceValuesOptions,
  RuntimeAttribute,
} from './types.js';

/** Splits the caller's files into text and base64 (bytes) for the JSON request. */
function encodeFiles(files: LoadOptions['files']): {
  files: Record<string, string>;
  binaryFiles: Record<string, string>;
} {
  const text: Record<string, string> = {};
  const binary: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === 'string') text[path] = content;
    else if (content instanceof Uint8Array)
      binary[path] = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64');
    else throw new TypeError(`file ${JSON.stringify(path)}: content must be a string or a Uint8Array`);
  }
  return { files: text, binaryFiles: binary };
}

/** The blocking call offered as one answered through the event loop (the WebAssembly engine runs on this thread). */
function answeredAtOnce(bridge: Bridge): AsyncBridge {
  return (method, request) => new Promise((resolve) => resolve(bridge(method, request)));
}

/** The CUE engine backed by cuelang.org/go: the Go shim, native or compiled to WebAssembly. */
export class BridgeCueEngine implements CueEngine {
  readonly #bridge: Bridge;
  readonly #later: AsyncBridge;
  readonly kind: CueEngineKind;
  readonly stopper?: EngineStopper;

  constructor(bridge: Bridge, later: AsyncBridge, kind: CueEngineKind, stopper?: EngineStopper) {
    this.#bridge = bridge;
    this.#later = later;
    this.kind = kind;
    if (stopper) this.stopper = stopper;
  }

  readonly #fileSets = new FileSets();

  /** The engine's number for these cue.mod files, sending them when it has none. */
  #fileSet(shared: LoadOptions['files'], digest: string): number {
    const known = this.#fileSets.known(digest);
    if (known !== undefined) return known;
    const { fileSet } = invoke<{ fileSet: number }>(this.#bridge, 'putFiles', encodeFiles(shared));
    this.#fileSets.remember(digest, fileSet);
    return fileSet;
  }

  load(options: LoadOptions): CueValue {
    const first = this.#loadRequest(options);
    let answer: HandleResult;
    try {
      answer = invoke<HandleResult>(this.#bridge, 'load', first.request);
    } catch (error) {
      answer = invoke<HandleResult>(this.#bridge, 'load', this.#requestAgain(options, first, error));
    }
    return new BridgeCueValue(this.#bridge, answer.handle);
  }

  async loadAsync(options: LoadOptions): Promise<CueValue> {
    const first = this.#loadRequest(options);
    let answer: HandleResult;
    try {
      answer = await invokeLater<HandleResult>(this.#later, 'load', first.request);
    } catch (error) {
      answer = await invokeLater<HandleResult>(this.#later, 'load', this.#requestAgain(options, first, error));
    }
    return new BridgeCueValue(this.#bridge, answer.handle);
  }

  /** The load's request made again when the engine lost its cue.mod files (they are sent anew); else rethrows. */
  #requestAgain(options: LoadOptions, first: { digest?: string }, error: unknown): object {
    if (!first.digest || !isUnknownSet(error)) throw error;
    this.#fileSets.forget(first.digest);
    return this.#loadRequest(options).request;
  }

  /**
   * The load's request: a module's cue.mod files go once per engine (file-sets.ts) and are
   * named by number; the load sends its own. `digest` names the cue.mod files, if any.
   */
  #loadRequest(options: LoadOptions): { request: object; digest?: string } {
    const { shared, own } = splitFiles(options.files);
    const digest = Object.keys(shared).length === 0 ? undefined : this.#fileSets.digest(shared);
    const fileSet = digest === undefined ? 0 : this.#fileSet(shared, digest);
    const { files, binaryFiles } = encodeFiles(digest === undefined ? options.files : own);
    const request = {
      files,
      binaryFiles,
      fileSet,
      dir: options.dir ?? '.',
      moduleRoot: options.moduleRoot ?? '',
      args: options.args ?? [],
      package: options.package ?? '',
      tags: options.tags ?? [],
      tagVars: options.tagVars ?? {},
      dataFiles: options.dataFiles ?? false,
      acceptLegacyModules: options.acceptLegacyModules ?? true,
      displayNames: options.displayNames ?? {},
    };
    return digest === undefined ? { request } : { request, digest };
  }

  compile(source: string, options: CompileOptions = {}): CueValue {
    const { handle } = invoke<HandleResult>(this.#bridge, 'compile', {
      source,
      filename: options.filename ?? '',
      scope: options.scope ?? null,
    });
    return new BridgeCueValue(this.#bridge, handle);
  }

  injectRuntimeValues(filename: string, content: string, values: Record<string, string>): string {
    return invoke<string>(this.#bridge, 'injectRuntimeValues', { filename, content, values });
  }

  listRuntimeAttributes(filename: string, content: string): RuntimeAttribute[] {
    return invoke<RuntimeAttribute[]>(this.#bridge, 'listRuntimeAttributes', { filename, content });
  }

  mergeInstanceValues(options: InstanceValuesOptions): InstanceValues {
    return invoke<InstanceValues>(this.#bridge, 'mergeInstanceValues', {
      base: options.base,
      overlays: options.overlays,
      package: options.packageName ?? 'main',
    });
  }

  objectsYaml(objects: readonly unknown[]): string {
    return invokeEncoded<string>(this.#bridge, 'objectsYAML', `{"objects":${exactJson(objects)}}`);
  }

  version(): { cue: string; go: string } {
    return invoke<{ cue: string; go: string }>(this.#bridge, 'version', {});
  }

  liveValues(): number {
    return invoke<{ handles: number }>(this.#bridge, 'stats', {}).handles;
  }
}

/** Forces an engine: `native`, `wasm`, or `auto` (the default: native where it runs). */
export const ENGINE_VARIABLE = 'TIMONI_FLEET_CUE_ENGINE';

export type CueEngineChoice = CueEngineKind | 'auto';

/** The engine asked for by TIMONI_FLEET_CUE_ENGINE (default auto). */
export function engineChoice(env: NodeJS.ProcessEnv = process.env): CueEngineChoice {
  const value = (env[ENGINE_VARIABLE] ?? '').trim() || 'auto';
  if (value === 'auto' || value === 'native' || value === 'wasm') return value;
  throw new Error(`${ENGINE_VARIABLE} must be auto, native or wasm, not ${JSON.stringify(value)}`);
}

export interface EngineOptions {
  /** Ceiling on the engine's memory in MiB; applies when this call starts that engine. */
  memoryLimitMiB?: number;
}

/** Why the native engine is not used by `auto`, once it was tried (for diagnostics and the bench). */
let nativeUnavailable: string | undefined;

export function nativeEngineUnavailable(): string | undefined {
  return nativeUnavailable;
}

const started = new Map<CueEngineKind, Promise<CueEngine>>();

/**
 * The process's engine of one kind, started on first use and shared afterwards (the
 * WebAssembly engine can only run once per process). Throws when it cannot start.
 */
export function startCueEngine(kind: CueEngineKind, options: EngineOptions = {}): Promise<CueEngine> {
  let engine = started.get(kind);
  if (!engine) {
    engine =
      kind === 'native'
        ? startNative(options).then((native) => {
            const calls = deferFrees(native.bridge, native.later);
            return new BridgeCueEngine(calls.bridge, calls.later, 'native', native.stopper);
          })
        : startWasm(options).then((bridge) => {
            const calls = deferFrees(bridge, answeredAtOnce(bridge));
            return new BridgeCueEngine(calls.bridge, calls.later, 'wasm');
          });
    started.set(kind, engine);
    engine.catch(() => started.delete(kind));
  }
  return engine;
}

let chosen: Promise<CueEngine> | undefined;

/**
 * The process's engine, started on first use (native where this platform has a working
 * build, else WebAssembly; TIMONI_FLEET_CUE_ENGINE forces one) and shared afterwards.
 * `memoryLimitMiB` applies when this call starts it (the action passes its
 * `cue-memory-limit` input before anything else loads it).
 */
export function loadCueEngine(options: EngineOptions = {}): Promise<CueEngine> {
  chosen ??= (async () => {
    const choice = engineChoice();
    if (choice !== 'auto') return startCueEngine(choice, options);
    try {
      return await startCueEngine('native', options);
    } catch (error) {
      nativeUnavailable = (error as Error).message;
      return startCueEngine('wasm', options);
    }
  })().catch((error: unknown) => {
    chosen = undefined;
    throw error;
  });
  return chosen;
}
