// Builds one instance of a module into Kubernetes objects, as Timoni's module builder
// does: the bundle's values (CUE text) are merged onto the module's values.cue (in memory,
// as OverlayValuesFileWithDefaults does), the
// instance schema is added as timoni.schema.cue, the package is loaded with the `name`
// and `namespace` tags and the `moduleVersion` and `kubeVersion` tag variables,
// `timoni.instance` must be concrete, and the objects of each `timoni.apply` set are read
// in declaration order (bytes fields decoded as Timoni's YAML path does: apply-set-export.ts).
import { CueError, type CueDiagnostic, type CueEngine, type CueValue } from '../cue/index.js';
import { annotationDiagnostics, describeDiagnostics, InstanceBuildError } from './build-error.js';
import { collectImages } from './images.js';
import { instanceSchemaSource, INSTANCE_SCHEMA_FILE } from './instance-schema.js';
import type { ModuleSource } from './module-source.js';
import { ApplySetExportError, exportApplySet } from './apply-set-export.js';
import { objectsOfSet, type KubeObject } from './apply-set-objects.js';

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

/** The files the build makes up in memory (no line of theirs exists on disk). */
function generatedFiles(prefix: string): Set<string> {
  return new Set([`${prefix}values.cue`, `${prefix}${INSTANCE_SCHEMA_FILE}`]);
}

/** An error with CUE diagnostics, described as Timoni's describeErr does. */
function cueFailure(input: InstanceBuildInput, module: ModuleSource, step: string, diagnostics: CueDiagnostic[], prefix: string): InstanceBuildError {
  const details = diagnostics.length > 0 ? `:\n${describeDiagnostics(diagnostics)}` : '';
  return new InstanceBuildError(input.name, module.url, `${step}${details}`, annotationDiagnostics(module, diagnostics, generatedFiles(prefix)));
}

function withCueErrors<T>(input: InstanceBuildInput, module: ModuleSource, step: string, prefix: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof CueError) throw cueFailure(input, module, step, error.diagnostics, prefix);
    if (error instanceof ApplySetExportError) throw new InstanceBuildError(input.name, module.url, `${step}: ${error.message}`);
    throw error;
  }
}

function requireValid(value: CueValue, input: InstanceBuildInput, module: ModuleSource, prefix: string): void {
  const diagnostics = value.validate({ concrete: true, final: true });
  if (diagnostics.length > 0) throw cueFailure(input, module, 'build failed', diagnostics, prefix);
}

export function buildInstance(engine: CueEngine, module: ModuleSource, input: InstanceBuildInput): BuiltInstance {
  const packageName = input.packageName ?? 'main';
  const packageDir = packageName === 'main' ? '.' : packageName;
  const prefix = packageDir === '.' ? '' : `${packageDir}/`;
  const valuesPath = `${prefix}values.cue`;
  const baseValues = module.files[valuesPath];
  if (typeof baseValues !== 'string') throw new InstanceBuildError(input.name, module.url, `the module has no ${valuesPath}`);

  const merged = withCueErrors(input, module, 'merging values', prefix, () =>
    engine.mergeInstanceValues({ base: baseValues, overlays: [input.values], packageName }),
  );
  const files = { ...module.files, [valuesPath]: merged.source, [`${prefix}${INSTANCE_SCHEMA_FILE}`]: instanceSchemaSource(packageName) };

  const root = withCueErrors(input, module, 'build failed', prefix, () =>
    engine.load({
      files,
      dir: packageDir,
      moduleRoot: '.',
      package: packageName,
      tags: [`name=${input.name}`, `namespace=${input.namespace}`],
      tagVars: { moduleVersion: module.version, kubeVersion: input.kubeVersion },
      dataFiles: true,
    }),
  );
  try {
    const instance = root.lookup('timoni.instance');
    try {
      if (!instance.exists()) throw new InstanceBuildError(input.name, module.url, 'the module defines no timoni.instance');
      requireValid(instance, input, module, prefix);
    } finally {
      instance.free();
    }
    const sets = withCueErrors(input, module, 'reading timoni.apply', prefix, () => readApplySets(root, input, module, prefix));
    const config = root.lookup('timoni.instance.config');
    const images = config.exists() ? collectImages(config.toJSON()) : [];
    config.free();
    return { sets, images, valuesSource: merged.source, values: merged.values };
  } finally {
    root.free();
  }
}

function readApplySets(root: CueValue, input: InstanceBuildInput, module: ModuleSource, prefix: string): ObjectSet[] {
  const apply = root.lookup('timoni.apply');
  try {
    if (!apply.exists()) throw new InstanceBuildError(input.name, module.url, 'the module defines no timoni.apply');
    requireValid(apply, input, module, prefix);
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
    if (problems.length > 0) throw new InstanceBuildError(input.name, module.url, `invalid objects:\n  ${problems.join('\n  ')}`);
    return sets;
  } finally {
    apply.free();
  }
}
