// The bundle layer: bundle and runtime files, runtime values, per-cluster evaluation.
export * from './types.js';
export {
  readSourceFiles,
  readCueModuleFiles,
  SourceFileError,
  CueFilesError,
  formatDiagnostic,
  type SourceFile,
} from './sources.js';
export { loadRuntime, defaultRuntime } from './runtime.js';
export { RuntimeQueryError, parseRuntimeQuery, extractQueryValues, type QueryObjectReader } from './runtime-queries.js';
export { evaluateBundle, type EvaluatedBundle } from './bundle.js';
export {
  selectClusters,
  NoClusterMatchesError,
  evaluateForCluster,
  evaluateForClusters,
  ClusterEvaluationError,
  bundleErrorWithoutCluster,
  type ClusterSelector,
  type ClusterEvaluationOptions,
} from './clusters.js';
