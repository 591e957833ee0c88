// Builds one instance of a module into Kubernetes objects, as Timoni's module builder
// does: the bundle's values (CUE text) are merged onto the module's values.cue (in memory,
// as OverlayValuesFileWithDefaults does), the instance schema is added as
// timoni.schema.cue, the package is loaded with the `name` and `namespace` tags and the
// `moduleVersion` and `kubeVersion` tag variables, `timoni.instance` must be concrete, and
// the objects of each `timoni.apply` set are read in declaration order (bytes fields
// decoded as Timoni's YAML path does: apply-sets.ts). InstanceBuilds runs each distinct
// build once per run.
import { CueError, type CueDiagnostic, type CueEngine, type CueValue, type LoadOptions } from '../cue/index.js';
import { ApplySetExportError, exportApplySet, objectsOfSet, type KubeObject } from './apply-sets.js';
import { annotationDiagnostics, describeDiagnostics, InstanceBuildError } from './build-error.js';
import type { ModuleSource } from './source.js';
import { traceBuildErrors, type TracedDiagnostic } from './values-origin.js';
import type { ValueLocator } from '../bundle/value-positions.js';

export interface InstanceBuildInput {
  name: string;
  namespace: string;
  /**
   * The bundle's values for this instance as CUE text, as the bundle evaluation prints them
   * (`BundleInstance.valuesCue`); JSON is CUE too, but the layout of the text decides the
   * order of the fields in the module's config, as in Timoni.
   */
  values: string;
  /** The cluster's Kubernetes version, e.g. `1.36.3`. */
  kubeVersion: string;
  /** The module's package (`main` unless said otherwise). */
  packageName?: string;
  /**
   * Where the bundle set each value (`BundleInstance.locateValues`), asked when the build
   * fails: errors about a value point at the bundle's line instead of the merged values.cue
   * no one has. Not part of what a build is remembered by (InstanceBuilds): clusters whose
   * values are the same text share one build, and its error the first one's lines.
   */
  locateValues?: () => ValueLocator;
}

export interface ObjectSet {
  name: string;
  objects: KubeObject[];
}

export interface BuiltInstance {
  sets: ObjectSet[];
  /** Container images referenced in `timoni.instance.config`, sorted, without duplicates. */
  images: string[];
  /** The values.cue the instance was built with (merged). */
  valuesSource: string;
  /** The values as Timoni's instance record stores them: the evaluated struct as CUE text (`{...}`). */
  values: string;
}

export { InstanceBuildError };

export const DEFAULT_KUBE_VERSION = '1.36.3';

/** The Kubernetes version builds use when no cluster is involved (TIMONI_KUBE_VERSION or 1.36.3). */
export function kubeVersionWithoutCluster(env: Record<string, string | undefined>): string {
  return env.TIMONI_KUBE_VERSION || DEFAULT_KUBE_VERSION;
}

/**
 * The files the build makes up in memory (no line of theirs exists on disk): the merged
 * values.cue, unless its positions were traced back, and the instance schema.
 */
function generatedFiles(prefix: string, valuesTraced: boolean): Set<string> {
  return new Set([...(valuesTraced ? [] : [`${prefix}values.cue`]), `${prefix}${INSTANCE_SCHEMA_FILE}`]);
}

/** What a failed build needs to tell its errors: the instance, the module, and where its values came from. */
interface BuildContext {
  engine: CueEngine;
  input: InstanceBuildInput;
  module: ModuleSource;
  prefix: string;
  /** The merged values.cue, once merged (before that, no position can be in it). */
  mergedSource?: string;
  /** How the package is loaded, with the given values.cue (once the build got that far). */
  loadOptions?: (valuesSource: string) => LoadOptions;
}

/**
 * An error with CUE diagnostics, described as Timoni's describeErr does, except that
 * positions in the merged values.cue are traced back to the bundle's lines
 * (values-origin.ts): the file the user wrote, not one made up in memory.
 */
function cueFailure(context: BuildContext, step: string, diagnostics: CueDiagnostic[]): InstanceBuildError {
  const { input, module, prefix } = context;
  const traced = traceValues(context, diagnostics);
  const described = traced ?? diagnostics;
  const details = described.length > 0 ? `:\n${describeDiagnostics(described)}` : '';
  return new InstanceBuildError(
    input.name,
    module.url,
    `${step}${details}`,
    annotationDiagnostics(module, described, generatedFiles(prefix, traced !== undefined)),
  );
}

/** The diagnostics with the merged values' positions traced back; undefined when there is nothing to trace them to. */
function traceValues(context: BuildContext, diagnostics: CueDiagnostic[]): TracedDiagnostic[] | undefined {
  const { mergedSource, input, loadOptions } = context;
  const baseSource = context.module.files[`${context.prefix}values.cue`];
  if (mergedSource === undefined || !input.locateValues || !loadOptions || typeof baseSource !== 'string')
    return undefined;
  return traceBuildErrors(
    {
      engine: context.engine,
      valuesFile: `${context.prefix}values.cue`,
      mergedSource,
      baseSource,
      locateValues: input.locateValues,
      loadWithValues: (source) => context.engine.load(loadOptions(source)),
    },
    diagnostics,
  );
}

function buildFailure(context: BuildContext, step: string, error: unknown): unknown {
  if (error instanceof CueError) return cueFailure(context, step, error.diagnostics);
  if (error instanceof ApplySetExportError)
    return new InstanceBuildError(context.input.name, context.module.url, `${step}: ${error.message}`);
  return error;
}

function withCueErrors<T>(context: BuildContext, step: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw buildFailure(context, step, error);
  }
}

function requireValid(value: CueValue, context: BuildContext): void {
  const diagnostics = value.validate({ concrete: true, final: true });
  if (diagnostics.length > 0) throw cueFailure(context, 'build failed', diagnostics);
}

/**
 * Builds one instance. The package's evaluation, most of a build, is answered through the
 * event loop (`loadAsync`): with the native engine this thread goes on meanwhile (the
 * clusters' requests of a fleet run); the steps around it are blocking calls.
 */
export async function buildInstance(
  engine: CueEngine,
  module: ModuleSource,
  input: InstanceBuildInput,
): Promise<BuiltInstance> {
  const packageName = input.packageName ?? 'main';
  const packageDir = packageName === 'main' ? '.' : packageName;
  const prefix = packageDir === '.' ? '' : `${packageDir}/`;
  const valuesPath = `${prefix}values.cue`;
  const baseValues = module.files[valuesPath];
  if (typeof baseValues !== 'string')
    throw new InstanceBuildError(input.name, module.url, `the module has no ${valuesPath}`);

  const context: BuildContext = { engine, input, module, prefix };
  const merged = withCueErrors(context, 'merging values', () =>
    engine.mergeInstanceValues({ base: baseValues, overlays: [input.values], packageName }),
  );
  context.mergedSource = merged.source;
  context.loadOptions = (valuesSource) => ({
    files: {
      ...module.files,
      [valuesPath]: valuesSource,
      [`${prefix}${INSTANCE_SCHEMA_FILE}`]: instanceSchemaSource(packageName),
    },
    dir: packageDir,
    moduleRoot: '.',
    package: packageName,
    tags: [`name=${input.name}`, `namespace=${input.namespace}`],
    tagVars: { moduleVersion: module.version, kubeVersion: input.kubeVersion },
    dataFiles: true,
  });

  const root = await engine
    .loadAsync(context.loadOptions(merged.source))
    .catch((error: unknown) => Promise.reject(buildFailure(context, 'build failed', error)));
  try {
    const instance = root.lookup('timoni.instance');
    try {
      if (!instance.exists())
        throw new InstanceBuildError(input.name, module.url, 'the module defines no timoni.instance');
      requireValid(instance, context);
    } finally {
      instance.free();
    }
    const sets = withCueErrors(context, 'reading timoni.apply', () => readApplySets(root, context));
    const config = root.lookup('timoni.instance.config');
    const images = config.exists() ? collectImages(config.toJSON()) : [];
    config.free();
    return { sets, images, valuesSource: merged.source, values: merged.values };
  } finally {
    root.free();
  }
}

function readApplySets(root: CueValue, context: BuildContext): ObjectSet[] {
  const { input, module } = context;
  const apply = root.lookup('timoni.apply');
  try {
    if (!apply.exists()) throw new InstanceBuildError(input.name, module.url, 'the module defines no timoni.apply');
    requireValid(apply, context);
    const problems: string[] = [];
    const sets = apply.fields().map((field) => {
      const set = apply.lookup(field.label);
      try {
        const items = exportApplySet(set, `timoni.apply.${field.label}`);
        if (!Array.isArray(items)) {
          problems.push(`timoni.apply.${field.label} must be a list of objects`);
          return { name: field.name, objects: [] };
        }
        const { objects, problems: setProblems } = objectsOfSet(`timoni.apply.${field.label}`, items);
        problems.push(...setProblems);
        return { name: field.name, objects };
      } finally {
        set.free();
      }
    });
    if (problems.length > 0)
      throw new InstanceBuildError(input.name, module.url, `invalid objects:\n  ${problems.join('\n  ')}`);
    return sets;
  } finally {
    apply.free();
  }
}

// The container images an instance uses: every struct in `timoni.instance.config` that
// has the fields of Timoni's #Image (repository, tag, digest, reference) contributes its
// reference, in the order a walk of the value meets them; then, as Timoni records them in
// the inventory (internal/engine/module_builder.go GetContainerImages: slices.Compact, then
// slices.Sort), a repeat right after the same reference is dropped and the list sorted. A
// reference met twice with another between stays twice, as in Timoni's record.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const IMAGE_FIELDS = ['repository', 'tag', 'digest', 'reference'];

export function collectImages(config: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
      return;
    }
    if (!isRecord(value)) return;
    if (IMAGE_FIELDS.every((field) => field in value) && typeof value.reference === 'string')
      found.push(value.reference);
    Object.values(value).forEach(walk);
  };
  walk(config);
  // Go's sort.Strings order: bytewise, as JavaScript's default sort is for these ASCII references.
  return found.filter((reference, index) => index === 0 || found[index - 1] !== reference).sort();
}

// One build per distinct input in a run. A fleet of N clusters and M instances builds each
// instance for each cluster, but most clusters of a fleet give an instance the same values
// (all production clusters, say): those builds are the same CUE evaluation with the same
// result. Builds are remembered for the run by everything that decides their result (the
// module as resolved for the run, instance name and namespace, the values, the Kubernetes
// version, the package), so that the cost grows with the distinct inputs, not with N x M.
// Each caller gets its own copy of the result, so that nothing one cluster does to its
// objects reaches another. A failed build is remembered too: the same input fails the same way.

export class InstanceBuilds {
  readonly #byModule = new WeakMap<ModuleSource, Map<string, Promise<BuiltInstance>>>();
  /** The build the engine works on (or last worked on): builds go to it one at a time. */
  #last: Promise<unknown> = Promise.resolve();
  #builds = 0;
  #reused = 0;

  constructor(private readonly engine: CueEngine) {}

  /**
   * The instance built (once for each distinct input: a build in flight is shared too).
   * Builds run one after the other, in the order asked: while the engine evaluates one,
   * the blocking calls that finish the one before it would otherwise wait behind it.
   */
  async build(module: ModuleSource, input: InstanceBuildInput): Promise<BuiltInstance> {
    let outcomes = this.#byModule.get(module);
    if (!outcomes) {
      outcomes = new Map();
      this.#byModule.set(module, outcomes);
    }
    const key = JSON.stringify([
      input.name,
      input.namespace,
      input.kubeVersion,
      input.packageName ?? 'main',
      input.values,
    ]);
    let outcome = outcomes.get(key);
    if (outcome) {
      this.#reused += 1;
    } else {
      this.#builds += 1;
      outcome = this.#last.then(() => buildInstance(this.engine, module, input));
      this.#last = outcome.catch(() => undefined);
      outcomes.set(key, outcome);
    }
    return structuredClone(await outcome);
  }

  /** How many builds ran, and how many were answered from an earlier one. */
  counts(): { builds: number; reused: number } {
    return { builds: this.#builds, reused: this.#reused };
  }
}

// The instance schema a module is built against: an in-memory `timoni.schema.cue` of the
// module's package binding `timoni: #Timoni`, with the health-check definitions beside it
// so modules can use them without vendoring a newer schema. Same rules as Timoni v0.32's
// #Timoni and #HealthCheck; written here.

export const INSTANCE_SCHEMA_FILE = 'timoni.schema.cue';

const schemaBody = `#Timoni: {
	apiVersion: string & =~"^v1alpha1$"
	instance: {...}
	apply: [string]: [...]
	healthChecks?: [string]: #HealthCheck
	kubeMinorVersion?: int
}

#HealthCheck: {
	group!: string & =~"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	kind?: string
	#object: {...}
	current!:    bool
	failed?:     bool
	inProgress?: bool
	...
}

#HealthCheckForCondition: #HealthCheck & {
	conditionType:       string | *"Ready"
	failedConditionType: string | *"Stalled"

	#object: {
		metadata: {generation?: int, ...}
		status?: {
			observedGeneration?: int
			conditions?: [...{type?: string, status?: string, observedGeneration?: int, ...}]
			...
		}
		...
	}

	let _fresh = {
		#c: {...}
		out: [
			if #c.observedGeneration != _|_ {#c.observedGeneration == #object.metadata.generation},
			true,
		][0]
	}

	inProgress: [
		if #object.status.observedGeneration != _|_ {
			#object.status.observedGeneration != #object.metadata.generation
		},
		false,
	][0]

	current: len([
		for c in #object.status.conditions
		if c.type == conditionType && c.status == "True"
		if (_fresh & {#c: c}).out {c},
	]) > 0

	failed: len([
		for c in #object.status.conditions
		if c.type == failedConditionType && c.status == "True"
		if (_fresh & {#c: c}).out {c},
	]) > 0
}

timoni: #Timoni
`;

/** The schema file's text for a module package (`main` unless the module says otherwise). */
export function instanceSchemaSource(packageName: string): string {
  return `package ${packageName}\n\n${schemaBody}`;
}
