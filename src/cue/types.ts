// The public types of the CUE engine (cuelang.org/go compiled to WebAssembly).

/** A place in a source file, named by the caller's display name for that file. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** One CUE error: what went wrong, at which CUE path, and where in the sources. */
export interface CueDiagnostic {
  message: string;
  /** CUE path of the value concerned, e.g. `bundle.instances.podinfo`; '' when none. */
  path: string;
  /** Source positions involved, primary one first; empty when unknown. */
  positions: SourcePosition[];
  /** The error has no position of its own; `positions` are only where its value comes from. */
  inputPositionsOnly?: boolean;
}

export interface LoadOptions {
  /** Virtual posix path relative to the root -> content. Nothing else is readable. */
  files: Record<string, string | Uint8Array>;
  /** Instance directory inside `files` (default '.'); also where cue.mod is searched from. */
  dir?: string;
  /** Module root inside `files`, when it is not found by searching upwards from `dir`. */
  moduleRoot?: string;
  /** Explicit file arguments instead of a directory (like `cue eval a.cue b.cue`), relative to `dir`. */
  args?: string[];
  /** Package to load, e.g. 'main', '_' (anonymous: used for bundles), '*'. */
  package?: string;
  /** Tags for `@tag(name)`, e.g. ['name=podinfo', 'namespace=apps']. */
  tags?: string[];
  /** Tag variables for `@tag(x, var=moduleVersion)`, e.g. { moduleVersion: '1.0.0' }. */
  tagVars?: Record<string, string>;
  /** Include data files (.json, .yaml) of the directory (load.Config.DataFiles). */
  dataFiles?: boolean;
  /** Accept cue.mod/module.cue without `language: version` (default true, as Timoni). */
  acceptLegacyModules?: boolean;
  /** Virtual path -> name shown in errors and positions (default: the virtual path). */
  displayNames?: Record<string, string>;
}

export interface FieldInfo {
  /** Selector text, quoted if needed, without `?` or `!`. */
  label: string;
  /** Unquoted name. */
  name: string;
  position?: SourcePosition;
  optional: boolean;
  /** Declared with `!`. */
  required: boolean;
  hidden: boolean;
  definition: boolean;
  /** Field attributes, e.g. { name: 'timoni', body: 'runtime:string:NAME' }. */
  attributes: { name: string; body: string }[];
}

/** A `@timoni(runtime:<type>:<NAME>)` attribute found in a source file. */
export interface RuntimeAttribute {
  name: string;
  type: string;
  /** Dotted label path of the field carrying it. */
  field: string;
  position?: SourcePosition;
}

export type CueKind =
  | 'bottom'
  | 'null'
  | 'bool'
  | 'int'
  | 'float'
  | 'number'
  | 'string'
  | 'bytes'
  | 'struct'
  | 'list'
  | 'top'
  | 'incomplete';

export interface CompileOptions {
  /** Name used in positions and errors (default `<expression>`). */
  filename?: string;
  /** JSON values bound as identifiers, e.g. { obj: kubernetesObject }. */
  scope?: Record<string, unknown>;
}

export interface InstanceValuesOptions {
  /** Text of the module's values.cue. */
  base: string;
  /** CUE text of the bundle's values for the instance (as `toCUE()` prints them), laid over the base in order. */
  overlays: string[];
  /** Package clause of the result (default 'main'). */
  packageName?: string;
}

export interface InstanceValues {
  /** The values.cue the instance is built with (`package <packageName>\nvalues: ...`). */
  source: string;
  /** The values as Timoni's instance record stores them: the evaluated struct, as CUE text. */
  values: string;
}

export interface FieldsOptions {
  hidden?: boolean;
  definitions?: boolean;
  optional?: boolean;
}

export interface ValidateOptions {
  concrete?: boolean;
  final?: boolean;
}

export interface CueEngine {
  /** Loads a CUE instance from in-memory files; throws CueError. */
  load(options: LoadOptions): CueValue;
  /**
   * The same load answered through the event loop: the native engine evaluates while this
   * thread goes on (a blocking call made meanwhile waits for it); WebAssembly answers at once.
   */
  loadAsync(options: LoadOptions): Promise<CueValue>;
  /** Compiles an expression or file text; `scope` JSON values are bound as identifiers. */
  compile(source: string, options?: CompileOptions): CueValue;
  /**
   * Timoni's runtime injection on source text (.cue, .json, .yaml/.yml by the extension of
   * `filename`): every field whose `@timoni(runtime:<type>:<NAME>)` NAME is in `values` gets
   * that value as a literal; returns formatted CUE text. Errors never contain a value.
   */
  injectRuntimeValues(filename: string, content: string, values: Record<string, string>): string;
  /** Every runtime attribute of the source, in source order. */
  listRuntimeAttributes(filename: string, content: string): RuntimeAttribute[];
  /**
   * Timoni's bundle path for an instance's values (OverlayValuesFileWithDefaults, then
   * GetDefaultValues): values.cue and the bundle's values as CUE text, compiled without
   * file names (field order depends on it), merged as values_builder.go's MergeValue does
   * (structs field by field, the overlay's scalars win, lists pair by index). Throws CueError.
   */
  mergeInstanceValues(options: InstanceValuesOptions): InstanceValues;
  /**
   * Objects (JSON values) as Timoni v0.33's `timoni build` and `bundle build` print them:
   * each decoded as Kubernetes decodes an unstructured object (whole numbers as integers)
   * and marshalled by sigs.k8s.io/yaml, the library Timoni links, with `---\n` between
   * two documents; '' for none. Throws CueError where go-yaml refuses a value (control
   * characters in a string).
   */
  objectsYaml(objects: readonly unknown[]): string;
  version(): { cue: string; go: string };
  /** Number of live value handles (for leak checks). */
  liveValues(): number;
  /** Which build of the engine runs: the native program or the WebAssembly. */
  readonly kind: 'native' | 'wasm';
  /**
   * What lets another thread stop the engine in the middle of a call (the native engine's
   * child process); undefined for the WebAssembly engine, which runs on the calling thread.
   */
  readonly stopper?: EngineStopper;
}

/**
 * How another thread (the action's deadline watchdog) stops the native engine while this
 * thread waits for it: it stores STOPPED_FROM_OUTSIDE in the first Int32 of `state` (so that
 * the call then fails with CueEngineStopped rather than as a crash), then sends SIGKILL to
 * `pid`. This thread's blocking read of the call's answer then ends.
 */
export interface EngineStopper {
  pid: number;
  state: SharedArrayBuffer;
}

/** The value of EngineStopper.state's first Int32 once another thread stopped the engine. */
export const STOPPED_FROM_OUTSIDE = 1;

export interface CueValue {
  /** CUE path syntax: 'bundle.instances', 'a."b-c"', '#Def'; '' is the value itself. */
  lookup(path: string): CueValue;
  exists(): boolean;
  kind(): CueKind;
  /** FillPath with a JSON value ('' = root). */
  fill(path: string, json: unknown): CueValue;
  fillValue(path: string, other: CueValue): CueValue;
  unify(other: CueValue): CueValue;
  /** All errors of the value; [] when valid. */
  validate(options?: ValidateOptions): CueDiagnostic[];
  /** Defaults resolved; the value must be concrete, else CueError. Keys in CUE field order. */
  toJSON(): unknown;
  toYAML(): string;
  /**
   * Whether `toYAML` would write a bytes value (`!!binary`) anywhere in the value: the walk
   * of an export, without the export. Call it on a value `toJSON` exported.
   */
  hasBytes(): boolean;
  /** Formatted CUE text of the value (like fmt.Sprint(v) in Go). */
  toCUE(): string;
  /** Fields in declaration order. */
  fields(options?: FieldsOptions): FieldInfo[];
  position(): SourcePosition | undefined;
  /** Releases the Go side of this value; using it afterwards throws. */
  free(): void;
}
