// The clusters a command works on and the bundle evaluated for each: clusters are selected
// as `--runtime-cluster` and `--runtime-group` select them in Timoni, and for each, in
// runtime order, the runtime value queries are read from that cluster (through a reader the
// caller provides), the runtime values are merged in Timoni's order, and the bundle is
// evaluated with them.
import type { CueEngine } from '../cue/index.js';
import { checkBundle, evaluateBundle, type EvaluatedBundle } from './bundle.js';
import { mergeRuntimeValues, plainValues } from './runtime.js';
import { readQueryValues, type QueryObjectReader } from './runtime-queries.js';
import { CueFilesError, type SourceFile } from './sources.js';
import { DEFAULT_RUNTIME_NAME, type ClusterBundle, type Runtime, type RuntimeCluster } from './types.js';
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
    const message = cause instanceof Error ? cause.message : String(cause);
    // Each fact once: a message that already names the cluster is not prefixed with it again.
    super(namesCluster(message, cluster.name) ? message : `cluster ${cluster.name}: ${message}`, { cause });
    this.name = 'ClusterEvaluationError';
  }
}

function namesCluster(message: string, name: string): boolean {
  const at = message.indexOf(`cluster ${name}`);
  const after = message.charAt(at + `cluster ${name}`.length);
  return at >= 0 && !/[\w.-]/.test(after);
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

/** Whether CUE found a value it could not make concrete (what a runtime attribute left without a value gives). */
function incompleteValues(error: CueFilesError): boolean {
  return error.diagnostics.some((d) => /non-concrete value|incomplete value/.test(d.message));
}

/**
 * The bundle's error said in the user's terms when it reads runtime values that nothing
 * gave it: `@timoni(runtime:...)` fields left as types (`string`) are what CUE's
 * `non-concrete value string in operand to ==` is about.
 */
function withMissingRuntimeValues(error: unknown, runtime: Runtime, missing: readonly string[]): unknown {
  if (!(error instanceof CueFilesError) || missing.length === 0) return error;
  const names = missing.join(', ');
  const why =
    runtime.name === DEFAULT_RUNTIME_NAME
      ? "no runtime was given (-r runtime.cue, or the action's runtime input)"
      : runtime.isDefault
        ? `runtime ${quote(runtime.name)} declares no clusters and nothing else gives them`
        : 'neither the runtime (its clusters and value queries) nor the environment (--runtime-env, --runtime-from-env) gives them';
  return new CueFilesError(
    `the bundle reads runtime values (${names}) but ${why}; ${error.summary}`,
    error.diagnostics,
  );
}

/** Evaluates the bundle for one cluster of the runtime. */
export async function evaluateForCluster(
  engine: CueEngine,
  options: Omit<ClusterEvaluationOptions, 'selector'>,
  cluster: RuntimeCluster,
): Promise<ClusterBundle> {
  try {
    const queried = await readQueryValues(
      engine,
      options.runtime,
      cluster,
      options.readObject,
      options.secretQueryRefusal,
    );
    const values = mergeRuntimeValues(cluster, options.environment, queried);
    let evaluated: EvaluatedBundle;
    try {
      evaluated = evaluateBundle(engine, {
        files: options.bundleFiles,
        moduleFiles: options.moduleFiles,
        values: plainValues(values),
        context: `cluster ${cluster.name}`,
      });
    } catch (error) {
      // The files loaded far enough to be evaluated, so their attributes can be listed.
      const missing =
        error instanceof CueFilesError && incompleteValues(error)
          ? [...attributeNames(engine, options.bundleFiles)].filter((name) => !values.has(name))
          : [];
      throw withMissingRuntimeValues(error, options.runtime, missing);
    }
    // Only values that reach the bundle are secrets worth masking: with --runtime-from-env
    // every environment variable is offered, but only those named by an attribute are used.
    const used = attributeNames(engine, options.bundleFiles);
    const secretEntries = [...values].filter(([name, v]) => v.secret && used.has(name));
    return {
      cluster,
      ...evaluated,
      secretValueNames: secretEntries.map(([name]) => name),
      secretValues: secretEntries.map(([, v]) => v.value).filter((value) => value !== ''),
      clusterSecretValues: secretEntries
        .filter(([, v]) => v.source === 'query')
        .map(([, v]) => v.value)
        .filter((value) => value !== ''),
    };
  } catch (error) {
    throw new ClusterEvaluationError(cluster, error);
  }
}

/** Evaluates the bundle for every selected cluster, in runtime order. */
export async function evaluateForClusters(
  engine: CueEngine,
  options: ClusterEvaluationOptions,
): Promise<ClusterBundle[]> {
  const results: ClusterBundle[] = [];
  for (const cluster of selectClusters(options.runtime, options.selector))
    results.push(await evaluateForCluster(engine, options, cluster));
  return results;
}

/**
 * The bundle's errors that no cluster can change, found once before any cluster is
 * reached: the files loaded with the values known without a cluster (the environment's)
 * and checked as far as they can be without the others (CUE reports what is wrong; what is
 * only incomplete waits for each cluster's values). A syntax error, a misspelled field,
 * a value of the wrong type for the schema: the same for every cluster. Defaults of
 * runtime attributes stand in for the values a cluster gives; so that a default can never
 * fail a bundle whose clusters all give a value, the error is confirmed on the first
 * selected cluster when its values need no cluster to be read (no runtime value queries).
 * Undefined when the bundle may be fine.
 */
export async function bundleErrorWithoutCluster(
  engine: CueEngine,
  options: ClusterEvaluationOptions,
): Promise<CueFilesError | undefined> {
  const error = checkBundle(engine, {
    files: options.bundleFiles,
    moduleFiles: options.moduleFiles,
    values: plainValues(
      mergeRuntimeValues({ name: DEFAULT_RUNTIME_NAME, group: '', kubeContext: '' }, options.environment, []),
    ),
    context: 'the bundle',
  });
  if (!error || options.runtime.queries.length > 0) return error;
  const [first] = selectClusters(options.runtime, options.selector);
  if (!first) return error;
  try {
    await evaluateForCluster(
      engine,
      { ...options, readObject: () => Promise.reject(new Error('no cluster is read before the bundle is checked')) },
      first,
    );
    return undefined;
  } catch {
    return error;
  }
}
