// Where a value in a module build's error came from. A build lays the bundle's values for
// the instance, as CUE text, over the module's values.cue and builds with the result
// (build.ts); CUE's errors then point at lines of that merged values.cue, a file that
// exists nowhere. Each such position is traced back: the merged text says which value
// (CUE path) sits at that line and column, and the bundle evaluation said where the user
// wrote that value (bundle/value-positions.ts): `bundle.cue:23:5`. A value the bundle did
// not set comes from the module's own values.cue, and points there. Positions that cannot
// be traced are dropped rather than shown as lines of a file the user does not have. A
// field the module does not allow also names the module's place that closes the values.
import { childPath, valuePositions, type ValueLocator, type ValuePositions } from '../bundle/value-positions.js';
import { CueError, type CueDiagnostic, type CueEngine, type CueValue, type SourcePosition } from '../cue/index.js';
import { CueFilesError } from '../bundle/sources.js';

export interface ValuesOrigin {
  /** The name the merged values file has in the build's diagnostics (`values.cue`, `<pkg>/values.cue`). */
  valuesFile: string;
  /** The merged values.cue the build used. */
  mergedSource: string;
  /** The module's own values.cue. */
  baseSource: string;
  /** Where the bundle set each value. */
  bundle: Pick<ValueLocator, 'positionOf'>;
}

/** A diagnostic traced back: about a value, its path is `values.<path of the value>`. */
export interface TracedDiagnostic extends CueDiagnostic {
  /** The first position is where the user wrote that value (the bundle), not the module. */
  inBundle?: boolean;
}

interface Located {
  path: string;
  position: SourcePosition;
}

function byPlace(a: SourcePosition, b: SourcePosition): number {
  return a.line - b.line || a.column - b.column;
}

/** Every value of `values` in a CUE text, by place, as compiled under `filename`. */
function locatedValues(engine: CueEngine, source: string, filename: string): Located[] {
  const root = engine.compile(source, { filename });
  try {
    const values = root.lookup('values');
    try {
      if (!values.exists()) return [];
      return Object.entries(valuePositions(values, new Set([filename])))
        .map(([path, position]) => ({ path, position }))
        .sort((a, b) => byPlace(a.position, b.position));
    } finally {
      values.free();
    }
  } finally {
    root.free();
  }
}

/**
 * The value a position of the merged text is in: the last field or list element that
 * starts at or before it, on its line if one does (`replicas: "many"` with the error at
 * `"many"` is `replicas`; a closed nested field has no more text after its own line).
 */
export function valueAt(located: readonly Located[], position: SourcePosition): string | undefined {
  let found: Located | undefined;
  for (const candidate of located) {
    if (byPlace(candidate.position, position) > 0) break;
    found = candidate;
  }
  return found?.path;
}

/** The CUE path without its last selector (`a."b.c"[0]` -> `a."b.c"`); undefined for a single label. */
export function parentPath(path: string): string | undefined {
  let cut = -1;
  let quoted = false;
  for (let i = 0; i < path.length; i++) {
    const char = path[i];
    if (char === '\\' && quoted) i += 1;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '.' || char === '[') && i > 0) cut = i;
  }
  return cut > 0 ? path.slice(0, cut) : undefined;
}

/** The path and its parents, nearest first: `a.b[0].c`, `a.b[0]`, `a.b`, `a`. */
function selfAndParents(path: string): string[] {
  const paths = [path];
  for (let parent = parentPath(path); parent !== undefined; parent = parentPath(parent)) paths.push(parent);
  return paths;
}

/** The first path's position that is found, nearest first. */
function firstFound(paths: string[], find: (path: string) => SourcePosition | undefined): SourcePosition | undefined {
  for (const path of paths) {
    const found = find(path);
    if (found) return found;
  }
  return undefined;
}

function samePosition(a: SourcePosition, b: SourcePosition): boolean {
  return a.file === b.file && a.line === b.line && a.column === b.column;
}

/**
 * The diagnostics with every position in the merged values file traced back (to the
 * bundle's line where the user set the value, else to the module's values.cue), the
 * traced position first, the module's other positions after it; errors that become the
 * same (one typo reaches `timoni.instance.config` and every object's copy of it) once.
 */
export function traceValuesPositions(
  engine: CueEngine,
  origin: ValuesOrigin,
  diagnostics: readonly CueDiagnostic[],
): TracedDiagnostic[] {
  if (!diagnostics.some((d) => d.positions.some((p) => p.file === origin.valuesFile))) return [...diagnostics];
  const merged = locatedValues(engine, origin.mergedSource, origin.valuesFile);
  let base: ValuePositions | undefined;
  const moduleValues = (): ValuePositions => {
    base ??= Object.fromEntries(
      locatedValues(engine, origin.baseSource, origin.valuesFile).map((l) => [l.path, l.position]),
    );
    return base;
  };
  const traced: TracedDiagnostic[] = [];
  const seen = new Map<string, { index: number; depth: number }>();
  for (const diagnostic of diagnostics) {
    const inValues = diagnostic.positions.filter((p) => p.file === origin.valuesFile);
    const others = diagnostic.positions.filter((p) => p.file !== origin.valuesFile);
    let result: TracedDiagnostic = { ...diagnostic, positions: others };
    const path = inValues.map((p) => valueAt(merged, p)).find((p) => p !== undefined);
    if (path !== undefined) {
      const inBundle = firstFound(selfAndParents(path), (p) => origin.bundle.positionOf(p));
      const inModule = inBundle ? undefined : firstFound(selfAndParents(path), (p) => moduleValues()[p]);
      const first = inBundle ?? inModule;
      result = {
        ...result,
        path: childPath('values', path),
        positions: first ? [first, ...others.filter((p) => !samePosition(p, first))] : others,
        ...(inBundle ? { inBundle: true, inputPositionsOnly: false } : {}),
      };
    }
    // One error about one value once: of the copies (`timoni.instance.config.x`, every
    // object's `#config.x`), the one nearest the root says it best, with its own positions.
    const key = JSON.stringify([
      result.path,
      result.message,
      path === undefined ? result.positions : (result.positions[0] ?? null),
    ]);
    const earlier = seen.get(key);
    if (earlier === undefined) {
      seen.set(key, { index: traced.length, depth: diagnostic.path.length });
      traced.push(result);
    } else if (diagnostic.path.length < earlier.depth) {
      traced[earlier.index] = result;
      earlier.depth = diagnostic.path.length;
    }
  }
  return traced;
}

// ---- A failed build's errors, traced

export interface FailedBuild {
  engine: CueEngine;
  valuesFile: string;
  mergedSource: string;
  /** The module's own values.cue. */
  baseSource: string;
  locateValues: () => ValueLocator;
  /** The module's package loaded with the given values.cue (as the build loads it). */
  loadWithValues: (valuesSource: string) => CueValue;
}

/**
 * A field the module's schema does not allow is reported by CUE at the field alone; the
 * place that closes it (`config: #Config`) is added as the module's position, found in the
 * module loaded with its own values (the build that failed has no value to look it up in).
 */
function withClosingPositions(build: FailedBuild, diagnostics: CueDiagnostic[]): CueDiagnostic[] {
  const notAllowed = (d: CueDiagnostic) =>
    d.message === 'field not allowed' && d.positions.some((p) => p.file === build.valuesFile);
  if (!diagnostics.some(notAllowed)) return diagnostics;
  let root: CueValue;
  try {
    root = build.loadWithValues(build.baseSource);
  } catch (error) {
    // The module does not build with its own values either: there is no schema to point at.
    if (error instanceof CueError) return diagnostics;
    throw error;
  }
  try {
    return diagnostics.map((diagnostic) => {
      const parent = notAllowed(diagnostic) ? parentPath(diagnostic.path) : undefined;
      if (parent === undefined) return diagnostic;
      const closing = root.lookup(parent);
      try {
        const position = closing.exists() ? closing.position() : undefined;
        return position && position.file !== build.valuesFile
          ? { ...diagnostic, positions: [...diagnostic.positions, position] }
          : diagnostic;
      } finally {
        closing.free();
      }
    });
  } finally {
    root.free();
  }
}

/**
 * The build's diagnostics traced back to the bundle (the bundle evaluated again for it, then
 * released); undefined when that evaluation fails, and the build's own positions stay.
 */
export function traceBuildErrors(build: FailedBuild, diagnostics: CueDiagnostic[]): TracedDiagnostic[] | undefined {
  if (!diagnostics.some((d) => d.positions.some((p) => p.file === build.valuesFile))) return undefined;
  let bundle: ValueLocator | undefined;
  try {
    bundle = build.locateValues();
    const origin = {
      valuesFile: build.valuesFile,
      mergedSource: build.mergedSource,
      baseSource: build.baseSource,
      bundle,
    };
    return traceValuesPositions(build.engine, origin, withClosingPositions(build, diagnostics));
  } catch (error) {
    if (error instanceof CueError || error instanceof CueFilesError) return undefined;
    throw error;
  } finally {
    bundle?.free();
  }
}
