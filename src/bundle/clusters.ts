// The clusters a command works on and the bundle evaluated for each: clusters are selected
// as `--runtime-cluster` and `--runtime-group` select them in Timoni, and for each, in
// runtime order, the runtime value queries are read from that cluster (through a reader the
// caller provides), the runtime values are merged in Timoni's order, and the bundle is
// evaluated with them.
import type { CueEngine } from '../cue/index.js';
import { evaluateBundle } from './bundle.js';
import { mergeRuntimeValues, plainValues } from './runtime.js';
import { readQueryValues, type QueryObjectReader } from './runtime-queries.js';
import type { SourceFile } from './sources.js';
import type { ClusterBundle, Runtime, RuntimeCluster } from './types.js';
import { quote } from '../display-text.js';

export interface ClusterSelector {
  cluster?: string;
  group?: string;
}

function matches(wanted: string | undefined, actual: string): boolean {
  if (wanted === undefined || wanted === '' || wanted === '*') return true;
  return wanted.toLowerCase() === actual.toLowerCase();
}

export class NoClusterMatchesError extends Error {
  constructor(runtime: Runtime, selector: ClusterSelector) {
    const asked = [
      selector.cluster && selector.cluster !== '*' ? `cluster ${quote(selector.cluster)}` : '',
      selector.group && selector.group !== '*' ? `group ${quote(selector.group)}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    const known = runtime.clusters.map((c) => `${c.name} (group ${c.group})`).join(', ');
    super(`no cluster of runtime "${runtime.name}" matches ${asked || 'the selection'}; clusters: ${known || 'none'}`);
    this.name = 'NoClusterMatchesError';
  }
}

/** The selected clusters in runtime order; throws NoClusterMatchesError when none match. */
export function selectClusters(runtime: Runtime, selector: ClusterSelector): RuntimeCluster[] {
  const selected = runtime.clusters.filter(
    (cluster) => matches(selector.cluster, cluster.name) && matches(selector.group, cluster.group),
  );
  if (selected.length === 0) throw new NoClusterMatchesError(runtime, selector);
  return selected;
}

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
    const queried = await readQueryValues(engine, options.runtime, cluster, options.readObject, options.secretQueryRefusal);
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
