import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { findInDecodings, MAX_DECODED_CHARS, MAX_DECODING_DEPTH, MIN_ENCODED_LENGTH } from '../src/encoded-text.js';

const SECRET = 'zq7-sentinel-t0ken';
const check = (text: string) => (text.includes(SECRET) ? 'found' : undefined);
const base64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const hex = (text: string | Buffer) => Buffer.from(text).toString('hex');

describe('findInDecodings: the layers under a text, as an attacker would have encoded it', () => {
  it('finds the text itself first, with no decoding', () => {
    expect(findInDecodings(`a ${SECRET} b`, check)).toEqual({ found: 'found', path: [] });
  });

  it('decodes base64 (padded, unpadded, URL-safe, wrapped), hex, percent-encoding and JSON escapes', () => {
    // Offsets 0, 1, 2: the secret at every alignment of base64's groups of three.
    for (const prefix of ['', 'x', 'xy']) {
      const text = `${prefix}user:${SECRET}?>~`;
      expect(findInDecodings(base64(text), check), prefix).toEqual({ found: 'found', path: ['base64'] });
      expect(findInDecodings(Buffer.from(text).toString('base64url'), check)).toEqual({
        found: 'found',
        path: ['base64'],
      });
    }
    const wrapped = base64(`${'line of text '.repeat(20)}${SECRET}`).replace(/(.{76})/g, '$1\n');
    expect(findInDecodings(wrapped, check)).toEqual({ found: 'found', path: ['base64'] });
    expect(findInDecodings(hex(`a ${SECRET}`).toUpperCase(), check)).toEqual({ found: 'found', path: ['hex'] });
    expect(findInDecodings(encodeURIComponent(`a ${SECRET}`).replace(/-/g, '%2D'), check)).toEqual({
      found: 'found',
      path: ['percent-encoding'],
    });
    expect(findInDecodings(JSON.stringify(`x\n${SECRET}`).slice(1, -1).replace('z', '\\u007a'), check)).toEqual({
      found: 'found',
      path: ['JSON escapes'],
    });
  });

  it('looks into every string of a JSON document, keys included, and into runs of base64 inside a text', () => {
    const docker = JSON.stringify({ auths: { 'registry.example': { auth: base64(`ci:${SECRET}`) } } });
    expect(findInDecodings(docker, check)).toEqual({ found: 'found', path: ['JSON', 'base64'] });
    expect(findInDecodings(JSON.stringify({ [SECRET]: 1 }), check)).toEqual({ found: 'found', path: [] });
    expect(findInDecodings(`Authorization: Basic ${base64(`ci:${SECRET}`)}`, check)).toEqual({
      found: 'found',
      path: ['base64'],
    });
  });

  it('inflates gzip and zlib behind base64 or hex (a gzipped kubeconfig)', () => {
    const kubeconfig = `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${SECRET}\n`;
    expect(findInDecodings(base64(gzipSync(kubeconfig)), check)).toEqual({ found: 'found', path: ['base64', 'gzip'] });
    expect(findInDecodings(hex(deflateSync(kubeconfig)), check)).toEqual({ found: 'found', path: ['hex', 'zlib'] });
  });

  it('decodes one encoding inside another, to MAX_DECODING_DEPTH, and reports the bound past it', () => {
    const twoLevels = base64(JSON.stringify({ value: hex(SECRET) }));
    expect(findInDecodings(twoLevels, check)).toEqual({ found: 'found', path: ['base64', 'JSON', 'hex'] });

    let text = `the ${SECRET}`;
    for (let depth = 0; depth < MAX_DECODING_DEPTH; depth++) text = base64(text);
    expect(findInDecodings(text, check)).toEqual({ found: 'found', path: Array(MAX_DECODING_DEPTH).fill('base64') });
    // One more: not passed unchecked, but reported as the bound it reached.
    expect(findInDecodings(base64(text), check)).toEqual({ limit: 'depth' });
    expect(findInDecodings(base64(text), () => undefined)).toEqual({ limit: 'depth' });
  });

  it('stops a gzip bomb at MAX_DECODED_CHARS, fast, and reports the bound', () => {
    const bomb = base64(gzipSync(Buffer.alloc(32 * 1024 * 1024, 'a')));
    expect(bomb.length).toBeLessThan(100_000);
    const started = Date.now();
    expect(findInDecodings(bomb, check)).toEqual({ limit: 'size' });
    expect(Date.now() - started).toBeLessThan(1_000);
    // Just under the bound: inflated and looked into.
    const big = `${'a'.repeat(MAX_DECODED_CHARS / 2)}${SECRET}`;
    expect(findInDecodings(base64(gzipSync(big)), check)).toEqual({ found: 'found', path: ['base64', 'gzip'] });
  });

  it('stops at MAX_DECODED_CHARS when the layers together exceed it (a document of many encoded strings)', () => {
    const wide = JSON.stringify(Array.from({ length: 30 }, () => base64('x'.repeat(20_000))));
    expect(wide.length).toBeLessThan(MAX_DECODED_CHARS);
    expect(findInDecodings(wide, check)).toEqual({ limit: 'size' });
  });

  it('decodes no ordinary value: words, regions, hosts, URLs, numbers, short hex and base64-looking words', () => {
    const layers: string[] = [];
    const record = (text: string) => {
      layers.push(text);
      return undefined;
    };
    for (const text of ['dev', 'cafe', 'prod', 'staging', 'eu-west-1', '100%', 'C:\\Windows', '42', 'true']) {
      layers.length = 0;
      expect(findInDecodings(text, record), text).toBeUndefined();
      expect(layers, text).toEqual([text]);
    }
    expect('staging'.length).toBeLessThan(MIN_ENCODED_LENGTH);
    // Longer base64-looking words decode to bytes that are not text: looked at once, never decoded further.
    for (const text of ['production', 'deadbeef', 'registry.example:5000', 'https://mirror.example/path/to/x']) {
      expect(findInDecodings(text, check), text).toBeUndefined();
    }
    // A JSON configuration is looked into, and nothing in it is a bound.
    expect(findInDecodings('{"replicas": 3, "region": "eu-west-1", "tags": ["a", "b"]}', check)).toBeUndefined();
  });
});
