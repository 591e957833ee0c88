// The CUE engine: cuelang.org/go v0.17.1 compiled to WebAssembly (src/cue/shim),
// behind a typed face. Knows nothing of Timoni, Kubernetes or GitHub.
export { ENGINE_VARIABLE, engineChoice, loadCueEngine, nativeEngineUnavailable, startCueEngine } from './engine.js';
export type { CueEngineKind } from './bridge.js';
export { CueEngineStopped, CueError, formatDiagnostic, isEngineStopped } from './error.js';
export { DEFAULT_MEMORY_LIMIT_MIB } from './memory-limit.js';
export type {
  CompileOptions,
  CueDiagnostic,
  CueEngine,
  CueKind,
  CueValue,
  EngineStopper,
  FieldInfo,
  FieldsOptions,
  InstanceValues,
  InstanceValuesOptions,
  LoadOptions,
  RuntimeAttribute,
  SourcePosition,
  ValidateOptions,
} from './types.js';
export { STOPPED_FROM_OUTSIDE } from './types.js';
