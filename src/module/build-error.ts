// Module build errors as Timoni reports them (cmd/timoni/errors.go describeErr:
// cue/errors.Details with the module root as working directory): every CUE error with
// every one of its positions, relative to the module (`./templates/config.cue:55:13`),
// in the order cue/errors.Print sorts them. The error names the instance and the module
// URL (the files of a pulled module live in a cache folder nobody should have to read).
// Its diagnostics feed annotations: for a local (file://) module they point at the real
// files, relative to the working directory; positions in the files the build generates
// (timoni.schema.cue, and the merged values.cue when nothing traced it back) are left out
// of them, since those lines do not exist on disk. An error about a value the bundle set is
// traced back to the bundle's line (values-origin.ts) and told as the bundle's errors are:
// `bundle.cue:23:6: values.replcas: field not allowed (also ./templates/config.cue:36:10)`.
import type { CueDiagnostic, SourcePosition } from '../cue/index.js';
import type { ModuleSource } from './source.js';

export class InstanceBuildError extends Error {
  constructor(
    readonly instance: string,
    readonly moduleUrl: string,
    readonly reason: string,
    readonly diagnostics: CueDiagnostic[] = [],
  ) {
    super(`instance ${instance} (module ${moduleUrl}): ${reason}`);
    this.name = 'InstanceBuildError';
  }
}

function comparePositions(a: SourcePosition, b: SourcePosition): number {
  // token.Pos.Compare: absolute file names first, then by name, then by place.
  const absA = a.file.startsWith('/');
  const absB = b.file.startsWith('/');
  if (absA !== absB) return absA ? -1 : 1;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}

function comparePaths(a: string, b: string): number {
  // slices.Compare of the path's selectors.
  const x = a === '' ? [] : a.split('.');
  const y = b === '' ? [] : b.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? '') < (y[i] ?? '') ? -1 : 1;
  }
  return x.length - y.length;
}

/** The position an error has of its own (cue/errors Error.Position), if any. */
function ownPosition(diagnostic: CueDiagnostic): SourcePosition | undefined {
  return diagnostic.inputPositionsOnly ? undefined : diagnostic.positions[0];
}

/**
 * cue/errors.Print's order (list.sanitize): errors without a position of their own
 * first, then by position, then by CUE path; ties keep their order, then by message.
 */
export function sortAsCue<T extends CueDiagnostic>(diagnostics: T[]): T[] {
  return [...diagnostics].sort((a, b) => {
    const pa = ownPosition(a);
    const pb = ownPosition(b);
    if (!pa !== !pb) return pa ? 1 : -1;
    const byPosition = pa && pb ? comparePositions(pa, pb) : 0;
    if (byPosition !== 0) return byPosition;
    const byPath = comparePaths(a.path, b.path);
    if (byPath !== 0) return byPath;
    return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
  });
}

/** `./templates/config.cue`: a module file as errors.Details shows it with the module root as Cwd. */
export function moduleRelative(file: string): string {
  if (file.startsWith('/') || file.startsWith('.')) return file;
  return `./${file}`;
}

const at = (p: SourcePosition): string => `${moduleRelative(p.file)}:${p.line}:${p.column}`;

/**
 * errors.Details: `path: message` and, when it has some, `:` and one indented position per
 * line. An error about a value the bundle set starts, as the bundle's own errors do, at the
 * bundle's line: `bundle.cue:23:5: values.replcas: field not allowed`, the module's
 * positions after it as `also`.
 */
export function describeDiagnostics(diagnostics: Array<CueDiagnostic & { inBundle?: boolean }>): string {
  return sortAsCue(diagnostics)
    .map((d) => {
      const [first, ...others] = d.positions;
      if (d.inBundle && first) {
        const also = others.length > 0 ? ` (also ${others.map(at).join(', ')})` : '';
        return `${first.file}:${first.line}:${first.column}: ${d.path ? `${d.path}: ` : ''}${d.message}${also}`;
      }
      const head = `${d.path ? `${d.path}: ` : ''}${d.message}`;
      if (d.positions.length === 0) return head;
      return `${head}:\n${d.positions.map((p) => `    ${at(p)}`).join('\n')}`;
    })
    .join('\n');
}

/** The diagnostics for annotations: positions in the module's real files, generated files left out. */
export function annotationDiagnostics(
  module: ModuleSource,
  diagnostics: Array<CueDiagnostic & { inBundle?: boolean }>,
  generated: ReadonlySet<string>,
): CueDiagnostic[] {
  return sortAsCue(diagnostics).map(({ inBundle, ...d }) => {
    // A position traced to the bundle is already the user's file as they named it.
    const fromBundle = inBundle ? d.positions.slice(0, 1) : [];
    const inModule = d.positions
      .slice(fromBundle.length)
      .filter((p) => !generated.has(p.file))
      .map((p) => ({ ...p, file: realFile(module, p.file) }));
    return { ...d, positions: [...fromBundle, ...inModule] };
  });
}

function realFile(module: ModuleSource, file: string): string {
  if (file.startsWith('/')) return file;
  if (module.localPath === undefined) return moduleRelative(file);
  return module.localPath === '.' ? file : `${module.localPath}/${file}`;
}
