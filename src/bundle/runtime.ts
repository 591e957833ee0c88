// The runtime (`-r runtime.cue`) and the values its clusters give to `@timoni(runtime:...)`
// attributes. The runtime is read as Timoni reads it: leniently, as its own anonymous
// package (it may be the bundle file itself), clusters in declaration order, value queries
// parsed; without clusters one `_default` cluster stands in, using the kube context given
// on the command line or the kubeconfig's current one.
import type { CueEngine, CueValue } from '../cue/index.js';
import { isSecretEnvironmentValue } from './runtime-environment.js';
import { parseRuntimeQuery, type QueriedValue } from './runtime-queries.js';
import { CueFilesError, loadSourcePackage, type SourceFile } from './sources.js';
import { DEFAULT_RUNTIME_NAME, type Runtime, type RuntimeCluster, type RuntimeQuery } from './types.js';
import { quote } from '../display-text.js';

export function defaultCluster(kubeContext: string): RuntimeCluster {
  return { name: DEFAULT_RUNTIME_NAME, group: DEFAULT_RUNTIME_NAME, kubeContext };
}

export function defaultRuntime(kubeContext: string): Runtime {
  return { name: DEFAULT_RUNTIME_NAME, clusters: [defaultCluster(kubeContext)], queries: [], isDefault: true };
}

function exportedAt(value: CueValue, path: string): unknown {
  const field = value.lookup(path);
  try {
    return field.exists() ? field.toJSON() : undefined;
  } finally {
    field.free();
  }
}

function fieldError(value: CueValue, path: string, message: string): CueFilesError {
  const field = value.lookup(path);
  const position = field.exists() ? field.position() : undefined;
  field.free();
  return new CueFilesError(message, [{ message, path, positions: position ? [position] : [] }]);
}

// Timoni's v1alpha1 #Runtime: cluster names are lowercase DNS-like names of 1 to 63
// characters. Groups are free strings there; here they may not hold control characters,
// which would break log lines and reports (a name is printed in both).
const CLUSTER_NAME = /^(([a-z0-9][-a-z0-9_.]*)?[a-z0-9])?$/;
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function checkCluster(clusters: CueValue, label: string, name: string, group: string, kubeContext: string): void {
  if (name.length < 1 || [...name].length > 63 || !CLUSTER_NAME.test(name)) {
    throw fieldError(
      clusters,
      label,
      `runtime cluster name ${quote(name)} is invalid: use lowercase letters, digits, "-", "_" and "." (1-63 characters, starting and ending with a letter or digit), as Timoni requires`,
    );
  }
  for (const [field, value] of [
    ['group', group],
    ['kubeContext', kubeContext],
  ] as const) {
    if (CONTROL_CHARACTERS.test(value)) {
      throw fieldError(
        clusters,
        `${label}.${field}`,
        `runtime cluster "${name}": ${field} ${quote(value)} must be text without control characters (line breaks, escapes)`,
      );
    }
  }
}

function readClusters(runtime: CueValue): RuntimeCluster[] {
  const clusters = runtime.lookup('clusters');
  try {
    if (!clusters.exists()) return [];
    return clusters.fields().map((field) => {
      const group = exportedAt(clusters, `${field.label}.group`);
      const kubeContext = exportedAt(clusters, `${field.label}.kubeContext`);
      if (typeof group !== 'string' || typeof kubeContext !== 'string') {
        throw fieldError(
          clusters,
          field.label,
          `runtime cluster ${quote(field.name)} needs string fields "group" and "kubeContext"`,
        );
      }
      checkCluster(clusters, field.label, field.name, group, kubeContext);
      return { name: field.name, group, kubeContext };
    });
  } finally {
    clusters.free();
  }
}

interface QueryValue {
  query?: unknown;
  for?: unknown;
  optional?: unknown;
}

function readQueries(runtime: CueValue): RuntimeQuery[] {
  const values = exportedAt(runtime, 'values');
  if (values === undefined) return [];
  if (!Array.isArray(values)) throw fieldError(runtime, 'values', 'runtime "values" must be a list of queries');
  return values.map((entry: QueryValue, index) => {
    const path = `values[${index}]`;
    if (typeof entry.query !== 'string') throw fieldError(runtime, path, `runtime.${path}.query must be a string`);
    const expressions = Object.entries((entry.for ?? {}) as Record<string, unknown>).map(([name, expression]) => {
      if (typeof expression !== 'string') {
        throw fieldError(runtime, path, `runtime.${path}.for.${name} must be a CUE expression in a string`);
      }
      return { name, expression };
    });
    return parseRuntimeQuery(entry.query, expressions, entry.optional === true);
  });
}

/** Loads the runtime from its files; `kubeContext` names the context of the default cluster. */
export function loadRuntime(
  engine: CueEngine,
  files: SourceFile[],
  moduleFiles: Record<string, string>,
  kubeContext: string,
): Runtime {
  if (files.length === 0) return defaultRuntime(kubeContext);
  const root = loadSourcePackage(engine, {
    workspace: 'runtime',
    files,
    moduleFiles,
    values: {},
    extraFiles: {},
    context: `runtime ${files.map((f) => f.path).join(', ')}`,
  });
  try {
    const runtime = root.lookup('runtime');
    try {
      if (!runtime.exists())
        throw new CueFilesError(`no "runtime" field in ${files.map((f) => f.path).join(', ')}`, []);
      const name = exportedAt(runtime, 'name');
      if (typeof name !== 'string') throw fieldError(root, 'runtime', 'runtime.name must be a concrete string');
      const clusters = readClusters(runtime);
      const queries = readQueries(runtime);
      if (clusters.length === 0) return { name, clusters: [defaultCluster(kubeContext)], queries, isDefault: true };
      return { name, clusters, queries, isDefault: false };
    } finally {
      runtime.free();
    }
  } finally {
    root.free();
  }
}

// The values that `@timoni(runtime:...)` attributes receive for one cluster, merged in
// Timoni's order (later wins): the environment (only what runtime-environment.ts offers),
// then the runtime's value queries, then TIMONI_CLUSTER_NAME and TIMONI_CLUSTER_GROUP (only
// when the runtime declares clusters). Each value remembers whether it is secret, so that
// reports hide it: a value read from a cluster Secret, or an environment value that
// runtime-environment.ts says is a credential. Any other value (a registry host, a region)
// is shown as it is.

export interface RuntimeValue {
  value: string;
  secret: boolean;
  /** Where the value came from, for messages that must not show the value itself. */
  source: 'environment' | 'query' | 'cluster';
}

export type RuntimeValues = Map<string, RuntimeValue>;

export function mergeRuntimeValues(
  cluster: RuntimeCluster,
  environment: Record<string, string | undefined> | undefined,
  queried: QueriedValue[],
): RuntimeValues {
  const values: RuntimeValues = new Map();
  for (const [name, value] of Object.entries(environment ?? {})) {
    if (value !== undefined)
      values.set(name, { value, secret: isSecretEnvironmentValue(name, value), source: 'environment' });
  }
  for (const { name, value, secret } of queried) values.set(name, { value, secret, source: 'query' });
  if (cluster.name !== DEFAULT_RUNTIME_NAME) {
    values.set('TIMONI_CLUSTER_NAME', { value: cluster.name, secret: false, source: 'cluster' });
    values.set('TIMONI_CLUSTER_GROUP', { value: cluster.group, secret: false, source: 'cluster' });
  }
  return values;
}

/** The plain name -> value map the CUE engine's injection takes. */
export function plainValues(values: RuntimeValues): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, { value }] of values) plain[name] = value;
  return plain;
}
