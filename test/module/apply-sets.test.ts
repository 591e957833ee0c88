// Objects holding CUE bytes and floats come out as Timoni v0.32 decodes them
// (internal/engine/resourceset.go). What Timoni produces, reasoned from its code:
//
// - An item with a bytes or float value anywhere (needsYAMLDecoding walks the item) is
//   encoded with cuelang.org/go/encoding/yaml and decoded by apimachinery's
//   NewYAMLOrJSONDecoder: sigs.k8s.io/yaml, i.e. go-yaml v2 into interface{}, then
//   json.Marshal, then json.Unmarshal into unstructured.Unstructured. Other items go
//   through value.MarshalJSON.
// - CUE's YAML encoder writes bytes as `!!binary <base64>` (a `|-` block when the text has a
//   newline); go-yaml v2 decodes the tag into a Go string of the raw bytes; json.Marshal
//   turns every byte that is not valid UTF-8 into U+FFFD, one per byte
//   (utf8.DecodeRune width 1). So 'hello\nworld\n' becomes "hello\nworld\n" (not
//   "aGVsbG8Kd29ybGQK"), '' becomes "", and '\xff\xfe\x00A\xe2\x82A' becomes
//   "\uFFFD\uFFFD\u0000A\uFFFD\uFFFDA" (E2 82 is a truncated sequence: two errors).
// - Floats are written as their literal (`1.0`, `2.5`); go-yaml v2 reads float64 1 and
//   2.5; json.Marshal writes 1 and 2.5; unstructured keeps 1 as int64. So 1.0 -> 1 (an
//   integer), 3.0 -> 3, 2.5 -> 2.5.
// - Strings are quoted by the encoder whenever YAML would read them as something else, so
//   "aGVsbG8=" and "on" stay those strings, in the YAML path as in the JSON path.
// - A `*List` is expanded to its items after the decoding.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import { goJsonString, readMarkedYaml, replaceBytes } from '../../src/module/apply-sets.js';
import { buildInstance } from '../../src/module/build.js';
import { loadLocalModule, type ModuleSource } from '../../src/module/source.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
let engine: CueEngine;
let module: ModuleSource;

beforeAll(async () => {
  engine = await loadCueEngine();
  module = loadLocalModule('file://bytes-floats', fixtures, engine);
});

describe('apply-set objects with bytes and floats', () => {
  it('decodes bytes to their text and integral floats to integers, as Timoni does', async () => {
    const built = await buildInstance(engine, module, {
      name: 'files',
      namespace: 'apps',
      values: '{}',
      kubeVersion: '1.36.3',
    });
    const objects = built.sets[0]?.objects ?? [];
    expect(objects.map((o) => o.metadata.name)).toEqual(['files-files', 'files-floats', 'files-plain', 'files-listed']);
    const [files, floats, plain, listed] = objects;

    expect(files?.data).toStrictEqual({
      'motd.txt': 'hello\nworld\n',
      empty: '',
      encoded: 'aGVsbG8=',
      scale: 1,
      ratio: 2.5,
      weight: 1,
      message: 'hello',
      legacy: 'on',
    });
    expect(files?.binaryData).toStrictEqual({ 'raw.bin': '\uFFFD\uFFFD\u0000A\uFFFD\uFFFDA' });
    expect(floats?.data).toStrictEqual({ scale: 3, encoded: 'aGVsbG8=' });
    expect(plain?.data).toStrictEqual({ encoded: 'aGVsbG8=' });
    expect(listed?.data).toStrictEqual({ 'key.txt': 'listed' });
    expect(listed?.kind).toBe('ConfigMap');
    // As printed: integral floats without a fraction.
    expect(JSON.stringify(files?.data)).toContain('"scale":1,"ratio":2.5,"weight":1,');
  });

  it('leaves sets without bytes as their JSON export (the same objects)', () => {
    const json = [{ kind: 'ConfigMap', data: { encoded: 'aGVsbG8=' } }];
    expect(replaceBytes(json, [{ kind: 'ConfigMap', data: { encoded: 'aGVsbG8=' } }])).toBe(json);
  });

  it('finds bytes in the YAML export only where it is tagged !!binary', () => {
    const marked = readMarkedYaml(
      '- a: !!binary aGk=\n  b: aGk=\n  c: !!binary\n  d: !!binary |-\n    aGkK\n',
      'timoni.apply.app',
    );
    expect(replaceBytes([{ a: 'aGk=', b: 'aGk=', c: '', d: 'aGkK' }], marked)).toStrictEqual([
      { a: 'hi', b: 'aGk=', c: '', d: 'hi\n' },
    ]);
  });
});

describe('goJsonString (Go json.Marshal of raw bytes)', () => {
  const bytes = (...values: number[]) => new Uint8Array(values);

  it('keeps valid UTF-8 of every length', () => {
    const text = 'aé€😀';
    expect(goJsonString(new TextEncoder().encode(text))).toBe(text);
  });

  it('replaces each invalid byte with U+FFFD, one per byte (where TextDecoder merges a truncated sequence)', () => {
    expect(goJsonString(bytes(0xe2, 0x82, 0x41))).toBe('\uFFFD\uFFFDA');
    expect(new TextDecoder().decode(bytes(0xe2, 0x82, 0x41))).toBe('\uFFFDA');
    expect(goJsonString(bytes(0xc0, 0x80))).toBe('\uFFFD\uFFFD'); // overlong
    expect(goJsonString(bytes(0xed, 0xa0, 0x80))).toBe('\uFFFD\uFFFD\uFFFD'); // surrogate
    expect(goJsonString(bytes(0xf4, 0x90, 0x80, 0x80))).toBe('\uFFFD\uFFFD\uFFFD\uFFFD'); // beyond U+10FFFF
    expect(goJsonString(bytes(0xf0, 0x9f, 0x98))).toBe('\uFFFD\uFFFD\uFFFD'); // truncated at the end
  });
});
