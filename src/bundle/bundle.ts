// Evaluates a bundle for one cluster as `timoni bundle vet` does: the runtime values are
// injected into the source of every file, the files are unified as one anonymous CUE
// package beside the bundle schema, the result must be valid and concrete, and the
// instances are read in CUE field order.
import type { CueDiagnostic, CueEngine, CueValue } from '../cue/index.js';
import { CueFilesError, loadSourcePackage, resolveFileModuleUrl, type SourceFile } from './sources.js';
import type { Bundle, BundleInstance } from './types.js';
import type { ValueLocator } from './value-positions.js';
import { inPlainWords } from './schema-rules.js';

// The bundle schema timoni-fleet validates against, with the same rules as Timoni's
// v1alpha1 #Bundle: apiVersion v1alpha1; bundle name, instance names and namespaces are
// lowercase DNS-like names of 1 to 63 characters; `module` is closed (url, version with
// default "latest", optional digest); values are open. It is loaded beside the user's
// files as one more file of the anonymous package, bound to `bundle`.

const dnsLikeName = '=~"^(([a-z0-9][-a-z0-9_.]*)?[a-z0-9])?$" & strings.MinRunes(1) & strings.MaxRunes(63)';

export const BUNDLE_SCHEMA_FILE_NAME = 'timoni-fleet.bundle-schema.cue';

export const BUNDLE_SCHEMA = `import "strings"

#Bundle: {
	apiVersion: string & =~"^v1alpha1$"
	name:       string & ${dnsLikeName}
	instances: [string & ${dnsLikeName}]: {
		module: close({
			url:     string & =~"^(oci|file)://.*$"
			version: *"latest" | string
			digest?: string
		})
		namespace: string & ${dnsLikeName}
		values: {...}
	}
}

bundle: #Bundle
`;

export interface EvaluatedBundle {
  bundle: Bundle;
  /** The `bundle` value exported to JSON, defaults resolved. */
  value: Record<string, unknown>;
  /** The `bundle` value as CUE text. */
  cueText: string;
}

export interface BundleEvaluationInput {
  files: SourceFile[];
  /** cue.mod files of the working directory, if it is a CUE module. */
  moduleFiles: Record<string, string>;
  /** Runtime values for `@timoni(runtime:...)` attributes. */
  values: Record<string, string>;
  /** Label for messages, e.g. the cluster name. */
  context: string;
}

/**
 * Some CUE errors (an incomplete value, say) carry no position in the user's files, and
 * the field's position in the unified value is the schema's. The same files loaded
 * without the schema say where the user wrote the field.
 */
function locateInUserFiles(
  engine: CueEngine,
  input: BundleEvaluationInput,
  diagnostics: CueDiagnostic[],
  userFiles: ReadonlySet<string>,
): CueDiagnostic[] {
  if (diagnostics.every((d) => !d.path || d.positions.some((p) => userFiles.has(p.file)))) return diagnostics;
  const withoutSchema = loadSourcePackage(engine, { ...sourcePackageInput(input), extraFiles: {} });
  try {
    return diagnostics.map((diagnostic) => {
      if (!diagnostic.path || diagnostic.positions.some((p) => userFiles.has(p.file))) return diagnostic;
      const field = withoutSchema.lookup(diagnostic.path);
      try {
        const position = field.exists() ? field.position() : undefined;
        return position && userFiles.has(position.file)
          ? { ...diagnostic, positions: [position, ...diagnostic.positions] }
          : diagnostic;
      } finally {
        field.free();
      }
    });
  } finally {
    withoutSchema.free();
  }
}

function sourcePackageInput(input: BundleEvaluationInput) {
  return {
    workspace: 'bundle',
    files: input.files,
    moduleFiles: input.moduleFiles,
    values: input.values,
    extraFiles: { [BUNDLE_SCHEMA_FILE_NAME]: BUNDLE_SCHEMA },
    context: input.context,
  };
}

function stringAt(value: CueValue, path: string): string | undefined {
  const field = value.lookup(path);
  try {
    if (!field.exists()) return undefined;
    const exported = field.toJSON();
    return typeof exported === 'string' ? exported : undefined;
  } finally {
    field.free();
  }
}

function readInstance(
  instances: CueValue,
  label: string,
  name: string,
  locateValues: () => ValueLocator,
): BundleInstance {
  const instance = instances.lookup(label);
  try {
    const urlValue = instance.lookup('module.url');
    const declaringFile = urlValue.position()?.file;
    urlValue.free();
    const url = resolveFileModuleUrl(stringAt(instance, 'module.url') ?? '', declaringFile);
    const digest = stringAt(instance, 'module.digest');
    const valuesField = instance.lookup('values');
    const values = (valuesField.exists() ? valuesField.toJSON() : {}) as Record<string, unknown>;
    const valuesCue = valuesField.exists() ? valuesField.toCUE() : '{}';
    valuesField.free();
    return {
      name,
      namespace: stringAt(instance, 'namespace') ?? '',
      module: { url, version: stringAt(instance, 'module.version') ?? 'latest', ...(digest ? { digest } : {}) },
      values,
      valuesCue,
      locateValues,
    };
  } finally {
    instance.free();
  }
}

/** The bundle evaluated again, to say where the values at `valuesPath` were written. */
function valueLocator(
  engine: CueEngine,
  input: BundleEvaluationInput,
  valuesPath: string,
  userFiles: ReadonlySet<string>,
): ValueLocator {
  const root = loadSourcePackage(engine, sourcePackageInput(input));
  return {
    positionOf(path) {
      const value = root.lookup(`${valuesPath}.${path}`);
      try {
        const position = value.exists() ? value.position() : undefined;
        return position && userFiles.has(position.file) ? position : undefined;
      } finally {
        value.free();
      }
    },
    free: () => root.free(),
  };
}

/** The package loaded, its errors in plain words where the bundle schema speaks. */
function loadBundle(engine: CueEngine, input: BundleEvaluationInput): CueValue {
  try {
    return loadSourcePackage(engine, sourcePackageInput(input));
  } catch (error) {
    if (!(error instanceof CueFilesError)) throw error;
    throw new CueFilesError(
      error.summary,
      error.diagnostics.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)),
    );
  }
}

export function evaluateBundle(engine: CueEngine, input: BundleEvaluationInput): EvaluatedBundle {
  const root = loadBundle(engine, input);
  const userFiles = new Set(input.files.map((f) => f.path));
  try {
    const diagnostics = root.validate({ concrete: true });
    if (diagnostics.length > 0) {
      const located = locateInUserFiles(engine, input, diagnostics, userFiles);
      throw new CueFilesError(
        `bundle is not valid for ${input.context}`,
        located.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)),
        userFiles,
      );
    }

    const bundleValue = root.lookup('bundle');
    try {
      if (!bundleValue.exists()) {
        throw new CueFilesError(`no "bundle" field in ${input.files.map((f) => f.path).join(', ')}`, []);
      }
      const value = bundleValue.toJSON() as Record<string, unknown>;
      const instancesValue = bundleValue.lookup('instances');
      try {
        const instances = instancesValue.exists()
          ? instancesValue
              .fields()
              .map((field) =>
                readInstance(instancesValue, field.label, field.name, () =>
                  valueLocator(engine, input, `bundle.instances.${field.label}.values`, userFiles),
                ),
              )
          : [];
        if (instances.length === 0) throw new CueFilesError(`no instances found in bundle (${input.context})`, []);
        return {
          bundle: { apiVersion: String(value.apiVersion), name: String(value.name), instances },
          value,
          cueText: bundleValue.toCUE(),
        };
      } finally {
        instancesValue.free();
      }
    } finally {
      bundleValue.free();
    }
  } finally {
    root.free();
  }
}

/**
 * The bundle's errors that do not wait for a cluster's values: it loads, and what it
 * declares conflicts with nothing, the schema included (concreteness is not asked for:
 * a runtime value not given yet is no error here). Undefined when none is found.
 */
export function checkBundle(engine: CueEngine, input: BundleEvaluationInput): CueFilesError | undefined {
  const paths = input.files.map((f) => f.path).join(', ');
  const summary = `the bundle is not valid (${paths}), whatever the cluster`;
  const userFiles = new Set(input.files.map((f) => f.path));
  let root: CueValue;
  try {
    root = loadSourcePackage(engine, sourcePackageInput(input));
  } catch (error) {
    if (error instanceof CueFilesError)
      return new CueFilesError(
        summary,
        error.diagnostics.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)),
        userFiles,
      );
    throw error;
  }
  try {
    const diagnostics = root.validate({ concrete: false });
    if (diagnostics.length === 0) return undefined;
    const located = locateInUserFiles(engine, input, diagnostics, userFiles);
    return new CueFilesError(
      summary,
      located.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)),
      userFiles,
    );
  } finally {
    root.free();
  }
}
