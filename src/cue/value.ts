import { invoke, type HandleResult } from './protocol.js';
import type { Bridge } from './bridge.js';
import type {
  CueDiagnostic,
  CueKind,
  CueValue,
  FieldInfo,
  FieldsOptions,
  SourcePosition,
  ValidateOptions,
} from './types.js';

/** Frees the Go side of values that were dropped without free(). */
const dropped = new FinalizationRegistry<{ bridge: Bridge; handle: number }>(({ bridge, handle }) => {
  try {
    invoke(bridge, 'free', { handle });
  } catch {
    // The engine may be gone at exit; nothing is left to free then.
  }
});

/** A CUE value held by the Go side (WebAssembly or native) and referred to by its handle. */
export class BridgeCueValue implements CueValue {
  readonly #bridge: Bridge;
  readonly #handle: number;
  #freed = false;

  constructor(bridge: Bridge, handle: number) {
    this.#bridge = bridge;
    this.#handle = handle;
    dropped.register(this, { bridge, handle }, this);
  }

  /** Handle number on the Go side; for other values of the same engine. */
  get handle(): number {
    this.#alive('use');
    return this.#handle;
  }

  #alive(operation: string): void {
    if (this.#freed) throw new Error(`CUE value ${this.#handle} was freed; cannot ${operation} it`);
  }

  #call<T>(method: string, request: Record<string, unknown> = {}): T {
    this.#alive(method);
    return invoke<T>(this.#bridge, method, { handle: this.#handle, ...request });
  }

  #derive(method: string, request: Record<string, unknown>): CueValue {
    const { handle } = this.#call<HandleResult>(method, request);
    return new BridgeCueValue(this.#bridge, handle);
  }

  #other(other: CueValue, operation: string): number {
    if (!(other instanceof BridgeCueValue))
      throw new TypeError(`cannot ${operation} a CUE value that this engine did not create`);
    return other.handle;
  }

  lookup(path: string): CueValue {
    return this.#derive('lookup', { path });
  }

  exists(): boolean {
    return this.#call<boolean>('exists');
  }

  kind(): CueKind {
    return this.#call<CueKind>('kind');
  }

  fill(path: string, json: unknown): CueValue {
    if (json === undefined)
      throw new TypeError(`fill ${JSON.stringify(path)}: the value is undefined, which JSON cannot express`);
    return this.#derive('fill', { path, json });
  }

  fillValue(path: string, other: CueValue): CueValue {
    return this.#derive('fillValue', { path, other: this.#other(other, 'fill with') });
  }

  unify(other: CueValue): CueValue {
    return this.#derive('unify', { other: this.#other(other, 'unify with') });
  }

  validate(options: ValidateOptions = {}): CueDiagnostic[] {
    return this.#call<CueDiagnostic[]>('validate', {
      concrete: options.concrete ?? false,
      final: options.final ?? false,
    });
  }

  toJSON(): unknown {
    return this.#call<unknown>('toJSON');
  }

  toYAML(): string {
    return this.#call<string>('toYAML');
  }

  hasBytes(): boolean {
    return this.#call<boolean>('hasBytes');
  }

  toCUE(): string {
    return this.#call<string>('toCUE');
  }

  fields(options: FieldsOptions = {}): FieldInfo[] {
    return this.#call<FieldInfo[]>('fields', {
      hidden: options.hidden ?? false,
      definitions: options.definitions ?? false,
      optional: options.optional ?? false,
    });
  }

  position(): SourcePosition | undefined {
    return this.#call<SourcePosition | null>('position') ?? undefined;
  }

  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    dropped.unregister(this);
    invoke(this.#bridge, 'free', { handle: this.#handle });
  }
}
