// Where each of an instance's values was written: the file, line and column of a field
// (or list element) under `values`, by its CUE path relative to `values` (`image.tag`,
// `env[0].name`). A module build sees the values only as CUE text laid into its values.cue
// (module/build.ts), so its errors point at lines of a file nobody has; with these
// positions they point back at the bundle's own lines (module/values-origin.ts).
import type { CueValue, SourcePosition } from '../cue/index.js';

/** CUE path (relative to `values`) -> where the user wrote that field. */
export type ValuePositions = Record<string, SourcePosition>;

/**
 * Where the user wrote a value of one instance, looked up when a build failed (the bundle is
 * evaluated again for it: walking every value of every instance of every cluster up front
 * would cost each run for the rare error). `free` releases the evaluation.
 */
export interface ValueLocator {
  /** The position of the value at `path` (relative to `values`), when it is in the user's files. */
  positionOf(path: string): SourcePosition | undefined;
  free(): void;
}

/** A bound on the fields walked, so that huge generated values cost little (their errors just keep the build's positions). */
const MAX_POSITIONS = 5_000;

/** The path of a field below `parent` (`''` for the values themselves), by its selector text. */
export function childPath(parent: string, label: string): string {
  return parent === '' ? label : `${parent}.${label}`;
}

/**
 * Every field and list element of `values` with its position, when that position is in one
 * of `userFiles` (a field that only a schema or a generated file declares has no place of
 * the user's to point to).
 */
export function valuePositions(values: CueValue, userFiles: ReadonlySet<string>): ValuePositions {
  const found: ValuePositions = {};
  let count = 0;
  const record = (path: string, position: SourcePosition | undefined): void => {
    if (position && userFiles.has(position.file)) found[path] = position;
  };
  const walk = (value: CueValue, path: string): void => {
    if (count >= MAX_POSITIONS) return;
    const kind = value.kind();
    if (kind === 'struct') {
      for (const field of value.fields()) {
        if (++count > MAX_POSITIONS) return;
        const fieldPath = childPath(path, field.label);
        record(fieldPath, field.position);
        const child = value.lookup(field.label);
        try {
          walk(child, fieldPath);
        } finally {
          child.free();
        }
      }
    } else if (kind === 'list') {
      for (let index = 0; count < MAX_POSITIONS; index++) {
        const element = value.lookup(`[${index}]`);
        try {
          if (!element.exists()) return;
          count += 1;
          const elementPath = `${path}[${index}]`;
          record(elementPath, element.position());
          walk(element, elementPath);
        } finally {
          element.free();
        }
      }
    }
  };
  walk(values, '');
  return found;
}
