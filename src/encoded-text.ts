// What a text may hold inside its encodings, decoded as someone hiding a secret would have
// encoded it: the layers under a text, found breadth first, each checked by the caller.
//
// The decodings tried on every layer:
//   - JSON: a text that parses as a JSON document gives each of its strings (keys and
//     values, at any nesting) as a layer of its own (`DOCKER_AUTH_CONFIG`'s `auths.*.auth`);
//   - JSON string escapes (`\n`, `\u0041`) of a text that is not a document;
//   - percent-encoding (`%41`, in a URL or alone), each run of escapes decoded where it stands;
//   - base64 (standard and URL-safe, padded or not) and hex: of the whole text when, less its
//     white space, it is all of one alphabet (a base64 wrapped at 76 columns), else of each run
//     of the alphabet in it (`Basic dXNlcjp0b2tlbg==`, `client-key-data: LS0t...`);
//   - gzip and zlib, of bytes that a base64 or hex decoding gave and that start with their
//     magic numbers (a kubeconfig gzipped then base64-encoded).
// Decoded bytes that are UTF-8 text without control characters are a text layer (decoded
// further); other bytes are a binary layer, given to the check as Latin-1 (a token inside a
// binary file is found) and decoded further only by gzip and zlib.
//
// Bounded, so that no value can stall the run (a gzip bomb, deep or wide nesting), and
// closed when a bound is reached: what could not be looked into is reported, not passed.

import { gunzipSync, inflateSync } from 'node:zlib';

/**
 * Decodings applied one inside another before the search stops: 4 covers the deepest
 * encodings seen in practice (a Docker config: JSON, base64, then the `user:token` text; a
 * kubeconfig in an environment value: base64, gzip, then YAML whose `client-key-data` is base64
 * of a PEM key) and keeps the work per value small. A text that still decodes at this depth
 * is reported as `depth`, never passed unchecked.
 */
export const MAX_DECODING_DEPTH = 4;

/**
 * Characters decoded for one text, all layers together: 1 MiB. An environment value is at
 * most 128 KiB on Linux (MAX_ARG_STRLEN), so only decompression or many nested copies reach
 * this; decompression stops at the bound (zlib's maxOutputLength), so a gzip bomb costs at
 * most 1 MiB of memory and a few milliseconds. A text that needs more is reported as `size`.
 */
export const MAX_DECODED_CHARS = 1024 * 1024;

/**
 * The shortest base64 or hex text that is decoded: 8 characters. Shorter, a base64 text
 * holds at most 5 bytes and a hex text 3: too few for any credential shape worth naming
 * beyond a one-character password, and a whole secret that short is found without decoding,
 * since the base64 and hex of every secret are among its registered forms (secretForms in
 * secrets.ts). It keeps ordinary words (`dev`, `cafe`, `prod`, `staging`) from being decoded
 * at all; longer words that happen to be base64 (`production`, `deadbeef`) decode to bytes that
 * are not text and only ever match a secret's own bytes.
 */
export const MIN_ENCODED_LENGTH = 8;

/** One decoding step, as named in what a finding reports. */
export type Encoding = 'JSON' | 'JSON escapes' | 'percent-encoding' | 'base64' | 'hex' | 'gzip' | 'zlib';

/** Where a check found something: its answer and the decodings that led there, outermost first. */
export interface DecodedFinding<T> {
  found: T;
  path: readonly Encoding[];
}

/** Why a text could not be looked into entirely. */
export type DecodingLimit = 'depth' | 'size';

interface Layer {
  text: string;
  /** Set for bytes that are not text: only decompressed further. */
  bytes?: Buffer;
  depth: number;
  path: Encoding[];
}

const BASE64_OR_HEX_RUN = new RegExp(`[A-Za-z0-9+/_-]{${MIN_ENCODED_LENGTH},}={0,2}`, 'g');
const WHOLE_BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
/** Control characters other than tab and line breaks: decoded bytes that hold one are not text. */
// eslint-disable-next-line no-control-regex -- control characters are what tells bytes from text
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as a text layer (UTF-8 without control characters) or a binary one. */
function fromBytes(bytes: Buffer): { text: string; binary: boolean } {
  try {
    const text = utf8.decode(bytes);
    if (!CONTROL.test(text)) return { text, binary: false };
  } catch {
    // Not UTF-8: a binary layer.
  }
  return { text: bytes.toString('latin1'), binary: true };
}

/** The strings of a JSON document (keys and values), or undefined when the text is none. */
function jsonStrings(text: string): string[] | undefined {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[' && start !== '"') return undefined;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  const strings: string[] = [];
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) pending.push(...(value as unknown[]));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) pending.push(key, item);
    }
  }
  return strings;
}

function jsonUnescaped(text: string): string | undefined {
  if (!text.includes('\\')) return undefined;
  try {
    const unescaped: unknown = JSON.parse(`"${text}"`);
    return typeof unescaped === 'string' && unescaped !== text ? unescaped : undefined;
  } catch {
    return undefined;
  }
}

function percentDecoded(text: string): string | undefined {
  if (!text.includes('%')) return undefined;
  const decoded = text.replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Escapes that are not UTF-8: each byte as Latin-1, so that ASCII inside still shows.
      return Buffer.from(run.replace(/%/g, ''), 'hex').toString('latin1');
    }
  });
  return decoded !== text ? decoded : undefined;
}

/** The base64 and hex decodings of a text: of the whole when it is one alphabet, else of each run in it. */
function binaryDecodings(text: string): Array<{ bytes: Buffer; encoding: Encoding }> {
  const compact = text.replace(/\s+/g, '');
  const runs =
    compact.length >= MIN_ENCODED_LENGTH && WHOLE_BASE64.test(compact)
      ? [compact]
      : (text.match(BASE64_OR_HEX_RUN) ?? []);
  const found: Array<{ bytes: Buffer; encoding: Encoding }> = [];
  for (const run of runs) {
    if (HEX.test(run)) found.push({ bytes: Buffer.from(run, 'hex'), encoding: 'hex' });
    const unpadded = run.replace(/=+$/, '');
    // A length of 4n+1 is no base64; both alphabets mixed is no base64 either.
    if (unpadded.length % 4 === 1 || (/[+/]/.test(unpadded) && /[-_]/.test(unpadded))) continue;
    found.push({ bytes: Buffer.from(unpadded, 'base64'), encoding: 'base64' });
  }
  return found;
}

/** True for bytes that start as a gzip or zlib stream does. */
function isCompressed(bytes: Buffer): boolean {
  if (bytes.length < 3) return false;
  return (bytes[0] === 0x1f && bytes[1] === 0x8b) || (bytes[0] === 0x78 && bytes.readUInt16BE(0) % 31 === 0);
}

/** Gzip or zlib bytes inflated to at most `limit` bytes: 'size' past it, undefined when they are not a stream. */
function decompressed(bytes: Buffer, limit: number): { bytes: Buffer; encoding: Encoding } | 'size' | undefined {
  const options = { maxOutputLength: Math.max(1, limit) };
  try {
    return bytes[0] === 0x1f
      ? { bytes: gunzipSync(bytes, options), encoding: 'gzip' }
      : { bytes: inflateSync(bytes, options), encoding: 'zlib' };
  } catch (error) {
    if (error instanceof RangeError) return 'size';
    // Not a valid stream after all: the bytes stay a binary layer.
    return undefined;
  }
}

/** A layer is decoded further unless it is bytes that are neither text nor compressed. */
const decodesFurther = (layer: Layer): boolean => layer.bytes === undefined || isCompressed(layer.bytes);

/**
 * The first answer of `check` on the text or any layer under it (breadth first: the
 * shallowest finding), `{ limit }` when nothing was found but a bound kept part of the text
 * from being looked into, or undefined when nothing was found in all of it.
 */
export function findInDecodings<T>(
  text: string,
  check: (layer: string) => T | undefined,
): DecodedFinding<T> | { limit: DecodingLimit } | undefined {
  const queue: Layer[] = [{ text, depth: 0, path: [] }];
  let budget = MAX_DECODED_CHARS - text.length;
  let limit: DecodingLimit | undefined;

  for (let layer = queue.shift(); layer !== undefined; layer = queue.shift()) {
    const found = check(layer.text);
    if (found !== undefined) return { found, path: layer.path };
    if (!decodesFurther(layer)) continue;

    const children: Layer[] = [];
    const add = (decoded: string, encoding: Encoding, bytes?: Buffer) =>
      children.push({ text: decoded, bytes, depth: layer.depth + 1, path: [...layer.path, encoding] });
    const addBytes = (bytes: Buffer, encoding: Encoding) => {
      const { text: decoded, binary } = fromBytes(bytes);
      add(decoded, encoding, binary ? bytes : undefined);
    };
    if (layer.bytes) {
      const inflated = decompressed(layer.bytes, budget);
      if (inflated === 'size') limit ??= 'size';
      else if (inflated) addBytes(inflated.bytes, inflated.encoding);
    } else {
      // A JSON document is looked into through its strings; other text through its escapes and runs.
      const strings = jsonStrings(layer.text);
      if (strings) for (const value of strings) add(value, 'JSON');
      else {
        const unescaped = jsonUnescaped(layer.text);
        if (unescaped !== undefined) add(unescaped, 'JSON escapes');
        const percent = percentDecoded(layer.text);
        if (percent !== undefined) add(percent, 'percent-encoding');
        for (const { bytes, encoding } of binaryDecodings(layer.text)) addBytes(bytes, encoding);
      }
    }
    // Past the last depth, only bytes that decode no further are still checked; anything else is the bound.
    const atLimit = layer.depth >= MAX_DECODING_DEPTH;
    for (const child of children) {
      if (atLimit && decodesFurther(child)) {
        limit ??= 'depth';
        continue;
      }
      budget -= Math.max(child.text.length, 1);
      if (budget < 0) {
        limit ??= 'size';
        break;
      }
      queue.push(child);
    }
  }
  return limit ? { limit } : undefined;
}
