import { invoke, type HandleResult } from './protocol.js';
import { WasmCueValue } from './value.js';
import { startWasm, type Bridge } from './wasm-runtime.js';
import type { CompileOptions, CueEngine, CueValue, LoadOptions, MergeValuesOptions, RuntimeAttribute } from './types.js';

/** Splits the caller's files into text and base64 (bytes) for the JSON request. */
function encodeFiles(files: LoadOptions['files']): { files: Record<string, string>; binaryFiles: Record<string, string> } {
  const text: Record<string, string> = {};
  const binary: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === 'string') text[path] = content;
    else if (content instanceof Uint8Array) binary[path] = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64');
    else throw new TypeError(`file ${JSON.stringify(path)}: content must be a string or a Uint8Array`);
  }
  return { files: text, binaryFiles: binary };
}

/** The CUE engine backed by cuelang.org/go compiled to WebAssembly. */
export class WasmCueEngine implements CueEngine {
  readonly #bridge: Bridge;

  constructor(bridge: Bridge) {
    this.#bridge = bridge;
  }

  load(options: LoadOptions): CueValue {
    const { files, binaryFiles } = encodeFiles(options.files);
    const { handle } = invoke<HandleResult>(this.#bridge, 'load', {
      files,
      binaryFiles,
      dir: options.dir ?? '.',
      moduleRoot: options.moduleRoot ?? '',
      args: options.args ?? [],
      package: options.package ?? '',
      tags: options.tags ?? [],
      tagVars: options.tagVars ?? {},
      dataFiles: options.dataFiles ?? false,
      acceptLegacyModules: options.acceptLegacyModules ?? true,
      displayNames: options.displayNames ?? {},
    });
    return new WasmCueValue(this.#bridge, handle);
  }

  compile(source: string, options: CompileOptions = {}): CueValue {
    const { handle } = invoke<HandleResult>(this.#bridge, 'compile', {
      source,
      filename: options.filename ?? '',
      scope: options.scope ?? null,
    });
    return new WasmCueValue(this.#bridge, handle);
  }

  injectRuntimeValues(filename: string, content: string, values: Record<string, string>): string {
    return invoke<string>(this.#bridge, 'injectRuntimeValues', { filename, content, values });
  }

  listRuntimeAttributes(filename: string, content: string): RuntimeAttribute[] {
    return invoke<RuntimeAttribute[]>(this.#bridge, 'listRuntimeAttributes', { filename, content });
  }

  mergeValues(options: MergeValuesOptions): string {
    return invoke<{ source: string }>(this.#bridge, 'mergeValues', {
      base: options.base,
      baseFilename: options.baseFilename,
      overlays: options.overlays,
      package: options.packageName ?? 'main',
    }).source;
  }

  version(): { cue: string; go: string } {
    return invoke<{ cue: string; go: string }>(this.#bridge, 'version', {});
  }

  liveValues(): number {
    return invoke<{ handles: number }>(this.#bridge, 'stats', {}).handles;
  }
}

let engine: Promise<CueEngine> | undefined;

/** The process's CUE engine, started on first use (about a second) and shared afterwards. */
/**
 * The process's engine, started on first use. `memoryLimitMiB` applies when this call
 * starts it (the action passes its `cue-memory-limit` input before anything else loads it).
 */
export function loadCueEngine(options: { memoryLimitMiB?: number } = {}): Promise<CueEngine> {
  engine ??= startWasm(options).then(
    (bridge) => new WasmCueEngine(bridge),
    (error: unknown) => {
      engine = undefined;
      throw error;
    },
  );
  return engine;
}
