// Evaluates the bundle once per selected cluster of the runtime, in runtime order: reads the
// runtime value queries from that cluster (through a reader the caller provides), merges the
// runtime values in Timoni's order, and evaluates the bundle with them.
import type { CueEngine } from '../cue/index.js';
import { evaluateBundle } from './bundle-evaluation.js';
import { selectClusters, type ClusterSelector } from './cluster-selection.js';
import { RuntimeQueryError } from './runtime-query.js';
import { extractQueryValues } from './runtime-query-evaluation.js';
import { mergeRuntimeValues, plainValues, type QueriedValue } from './runtime-values.js';
import type { SourceFile } from './source-files.js';
import type { ClusterBundle, Runtime, RuntimeCluster, RuntimeQuery } from './types.js';

/** Reads the object a query names from a cluster; resolves to undefined when it does not exist. */
export type QueryObjectReader = (cluster: RuntimeCluster, query: RuntimeQuery) => Promise<Record<string, unknown> | undefined>;

export interface ClusterEvaluationOptions {
  bundleFiles: SourceFile[];
  moduleFiles: Record<string, string>;
  runtime: Runtime;
  selector: ClusterSelector;
  /** The environment, given only with --runtime-from-env. */
  environment?: Record<string, string | undefined>;
  readObject?: QueryObjectReader;
  /**
   * When set, runtime value queries that read a v1 Secret are refused with this reason
   * before anything is read (the action sets it on pull requests: masking cannot stop a
   * bundle's author who transforms a value).
   */
  secretQueryRefusal?: string;
}

export class ClusterEvaluationError extends Error {
  constructor(
    readonly cluster: RuntimeCluster,
    cause: unknown,
  ) {
    super(`cluster ${cluster.name}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ClusterEvaluationError';
  }
}

async function queryValues(
  engine: CueEngine,
  runtime: Runtime,
  cluster: RuntimeCluster,
  readObject: QueryObjectReader | undefined,
  secretQueryRefusal: string | undefined,
): Promise<QueriedValue[]> {
  const values: QueriedValue[] = [];
  for (const query of runtime.queries) {
    if (secretQueryRefusal !== undefined && query.apiVersion === 'v1' && query.kind === 'Secret') {
      throw new RuntimeQueryError(query.query, secretQueryRefusal);
    }
    if (!readObject) {
      throw new RuntimeQueryError(
        query.query,
        `runtime "${runtime.name}" has value queries, which need access to cluster ${cluster.name}; this command does not connect to clusters`,
      );
    }
    const object = await readObject(cluster, query);
    if (object === undefined) {
      if (query.optional) continue;
      throw new RuntimeQueryError(query.query, `not found in cluster ${cluster.name} (set optional: true to skip a missing object)`);
    }
    values.push(...extractQueryValues(engine, query, object));
  }
  return values;
}

/** Names of the runtime values the bundle's attributes ask for. */
function attributeNames(engine: CueEngine, files: SourceFile[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    if (file.format !== 'cue') continue;
    for (const attribute of engine.listRuntimeAttributes(file.path, file.content)) names.add(attribute.name);
  }
  return names;
}

/** Evaluates the bundle for one cluster of the runtime. */
export async function evaluateForCluster(engine: CueEngine, options: Omit<ClusterEvaluationOptions, 'selector'>, cluster: RuntimeCluster): Promise<ClusterBundle> {
  try {
    const queried = await queryValues(engine, options.runtime, cluster, options.readObject, options.secretQueryRefusal);
    const values = mergeRuntimeValues(cluster, options.environment, queried);
    const evaluated = evaluateBundle(engine, {
      files: options.bundleFiles,
      moduleFiles: options.moduleFiles,
      values: plainValues(values),
      context: `cluster ${cluster.name}`,
    });
    // Only values that reach the bundle are secrets worth masking: with --runtime-from-env
    // every environment variable is offered, but only those named by an attribute are used.
    const used = attributeNames(engine, options.bundleFiles);
    const secretEntries = [...values].filter(([name, v]) => v.secret && used.has(name));
    return {
      cluster,
      ...evaluated,
      secretValueNames: secretEntries.map(([name]) => name),
      secretValues: secretEntries.map(([, v]) => v.value).filter((value) => value !== ''),
      clusterSecretValues: secretEntries.filter(([, v]) => v.source === 'query').map(([, v]) => v.value).filter((value) => value !== ''),
    };
  } catch (error) {
    throw new ClusterEvaluationError(cluster, error);
  }
}

/** Evaluates the bundle for every selected cluster, in runtime order. */
export async function evaluateForClusters(engine: CueEngine, options: ClusterEvaluationOptions): Promise<ClusterBundle[]> {
  const results: ClusterBundle[] = [];
  for (const cluster of selectClusters(options.runtime, options.selector)) results.push(await evaluateForCluster(engine, options, cluster));
  return results;
}
