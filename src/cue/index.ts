// The CUE engine: cuelang.org/go v0.17.1 compiled to WebAssembly (src/cue/shim),
// behind a typed face. Knows nothing of Timoni, Kubernetes or GitHub.
export { loadCueEngine } from './engine.js';
export { CueError, formatDiagnostic } from './error.js';
export type {
  CompileOptions,
  CueDiagnostic,
  CueEngine,
  CueKind,
  CueValue,
  FieldInfo,
  FieldsOptions,
  LoadOptions,
  MergeValuesOptions,
  RuntimeAttribute,
  SourcePosition,
  ValidateOptions,
} from './types.js';
