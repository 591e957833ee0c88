// The items of one `timoni.apply` set as Timoni decodes them (internal/engine/resourceset.go).
//
// Timoni decodes an item through its JSON encoding, unless the item holds a CUE bytes or
// float value anywhere (needsYAMLDecoding): then it encodes the item with CUE's YAML
// encoder and decodes that with apimachinery's YAML decoder (decodeYAMLObjects), that is
// go-yaml v2 into interface{}, json.Marshal, json.Unmarshal. What that changes:
// - bytes: CUE's YAML encoder writes them as `!!binary <base64>`, go-yaml v2 decodes that
//   tag to the raw bytes as a string, and json.Marshal coerces the string to valid UTF-8.
//   So a bytes field holds its decoded text where the JSON encoding holds base64.
// - floats: an integral float (`1.0`) becomes an integer. JavaScript numbers do not tell
//   1.0 from 1, so the JSON path already gives what Timoni gives.
// - strings, ints, bools, null: unchanged (CUE's encoder quotes every string that YAML
//   would read as another type, YAML 1.1 booleans included).
// So an item equals its JSON export with every bytes field replaced by its decoded text.
// The bytes fields are found in the set's YAML export (the only export that marks them):
// `!!binary` values read with the `yaml` package's binary tag, as Uint8Array.
import { parseDocument } from 'yaml';
import type { CueValue } from '../cue/index.js';
import { goJsonString } from './go-json-string.js';

const BINARY_TAG = '!!binary';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/**
 * `json` with every value that is bytes in `marked` (the same value read from YAML)
 * replaced by Timoni's decoding of it. Returns `json` itself when nothing is bytes.
 */
export function replaceBytes(json: unknown, marked: unknown): unknown {
  if (marked instanceof Uint8Array) return goJsonString(marked);
  if (Array.isArray(json) && Array.isArray(marked)) {
    let changed = false;
    const items = json.map((item, index) => {
      const replaced = replaceBytes(item, marked[index]);
      if (replaced !== item) changed = true;
      return replaced;
    });
    return changed ? items : json;
  }
  if (isRecord(json) && isRecord(marked)) {
    let result: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(json)) {
      const replaced = replaceBytes(value, marked[key]);
      if (replaced === value) continue;
      result ??= { ...json };
      result[key] = replaced;
    }
    return result ?? json;
  }
  return json;
}

/** The engine's YAML export could not be read back (a bug of the engine or of `yaml`, not of the module). */
export class ApplySetExportError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: reading the YAML export of the set failed: ${reason}`);
    this.name = 'ApplySetExportError';
  }
}

/** The set's YAML export read with bytes as Uint8Array; `path` names the set in errors. */
export function readMarkedYaml(yaml: string, path: string): unknown {
  const document = parseDocument(yaml, { customTags: ['binary'], uniqueKeys: false });
  const problem = document.errors[0];
  if (problem) throw new ApplySetExportError(path, problem.message);
  return document.toJS({ maxAliasCount: -1 });
}

/**
 * The set's items (JSON export), bytes fields decoded as Timoni decodes them. Throws
 * CueError when the set does not export, ApplySetExportError when its YAML cannot be read.
 */
export function exportApplySet(set: CueValue, path: string): unknown {
  const json = set.toJSON();
  const yaml = set.toYAML();
  if (!yaml.includes(BINARY_TAG)) return json;
  return replaceBytes(json, readMarkedYaml(yaml, path));
}
