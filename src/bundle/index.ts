// The bundle layer: bundle and runtime files, runtime values, per-cluster evaluation.
export * from './types.js';
export { selectClusters, NoClusterMatchesError, type ClusterSelector } from './cluster-selection.js';
export { readSourceFiles, readCueModuleFiles, SourceFileError, type SourceFile } from './source-files.js';
export { loadRuntime, defaultRuntime } from './runtime-loading.js';
export { evaluateBundle, type EvaluatedBundle } from './bundle-evaluation.js';
export { evaluateForCluster, evaluateForClusters, ClusterEvaluationError, type ClusterEvaluationOptions, type QueryObjectReader } from './cluster-evaluation.js';
export { CueFilesError, formatDiagnostic } from './cue-files-error.js';
export { RuntimeQueryError, parseRuntimeQuery } from './runtime-query.js';
export { extractQueryValues } from './runtime-query-evaluation.js';
