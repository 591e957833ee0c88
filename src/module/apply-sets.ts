// The objects of one `timoni.apply` set, as Timoni reads them: the set's items decoded as
// Timoni decodes them (bytes fields as text, below), null entries skipped, Kubernetes
// `*List` objects expanded to their items, kustomize configuration objects skipped, and
// every object's metadata checked (all problems reported, each with its CUE path).
import { parseDocument } from 'yaml';
import type { CueValue } from '../cue/index.js';
import { objectMetadataProblems } from './object-metadata.js';

/** A built Kubernetes object; its metadata has been checked (name present, labels strings). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

function isKubeList(item: Record<string, unknown>): boolean {
  return typeof item.kind === 'string' && item.kind.endsWith('List') && Array.isArray(item.items);
}

function isKustomization(item: Record<string, unknown>): boolean {
  return typeof item.apiVersion === 'string' && item.apiVersion.startsWith('kustomize.config.k8s.io/');
}

export function objectsOfSet(path: string, items: unknown[]): { objects: KubeObject[]; problems: string[] } {
  const objects: KubeObject[] = [];
  const problems: string[] = [];
  items.forEach((item, index) => {
    if (item === null) return;
    const at = `${path}[${index}]`;
    if (!isRecord(item)) {
      problems.push(`${at}: not an object`);
      return;
    }
    const expanded = isKubeList(item) ? (item.items as unknown[]) : [item];
    for (const candidate of expanded) {
      if (!isRecord(candidate)) {
        problems.push(`${at}: a list item is not an object`);
        continue;
      }
      if (isKustomization(candidate)) continue;
      const found = objectMetadataProblems(candidate);
      if (found.length > 0) problems.push(...found.map((problem) => `invalid object at path ${at}: ${problem}`));
      else objects.push(candidate as unknown as KubeObject);
    }
  });
  return { objects, problems };
}

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
// `!!binary` values read with the `yaml` package's binary tag, as Uint8Array. The export
// is made only for a set the engine says holds bytes (`hasBytes`).

/** A JSON object (not an array, not bytes read from YAML). */
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
  // Most sets hold no bytes: their YAML export is not needed (the engine's walk says so).
  if (!set.hasBytes()) return json;
  return replaceBytes(json, readMarkedYaml(set.toYAML(), path));
}

// Raw bytes as Go's encoding/json writes them as a string: valid UTF-8 is kept, and every
// byte that does not start a valid UTF-8 sequence becomes U+FFFD on its own (json.Marshal
// "coerces to valid UTF-8, replacing invalid bytes with the Unicode replacement rune",
// one per utf8.DecodeRune error of width 1). TextDecoder differs: it replaces a truncated
// sequence (e.g. E2 82 followed by 'A') with one U+FFFD where Go writes two.

const REPLACEMENT = 0xfffd;

/** Bounds of the second byte after a given lead byte, as in Go's utf8 "accept ranges". */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** Length of the sequence a lead byte starts (0: not a valid lead byte). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The code point at `bytes[at]` and its length, or undefined when Go would see RuneError of width 1. */
function decodeRune(bytes: Uint8Array, at: number): { codePoint: number; size: number } | undefined {
  const lead = bytes[at] as number;
  const size = sequenceLength(lead);
  if (size === 0 || at + size > bytes.length) return undefined;
  if (size === 1) return { codePoint: lead, size };
  const [low, high] = secondByteRange(lead);
  const second = bytes[at + 1] as number;
  if (second < low || second > high) return undefined;
  let codePoint = lead & (0xff >> (size + 1));
  for (let i = 1; i < size; i += 1) {
    const next = bytes[at + i] as number;
    if (i > 1 && (next < 0x80 || next > 0xbf)) return undefined;
    codePoint = (codePoint << 6) | (next & 0x3f);
  }
  return { codePoint, size };
}

export function goJsonString(bytes: Uint8Array): string {
  const codePoints: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    const rune = decodeRune(bytes, at);
    codePoints.push(rune ? rune.codePoint : REPLACEMENT);
    at += rune ? rune.size : 1;
  }
  let text = '';
  for (let i = 0; i < codePoints.length; i += 8192) text += String.fromCodePoint(...codePoints.slice(i, i + 8192));
  return text;
}
