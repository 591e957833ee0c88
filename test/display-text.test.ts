// The display rules for text from the user's files: log lines show control characters
// escaped, names and values in messages are JSON-quoted with invisible characters escaped.
import { describe, expect, it } from 'vitest';
import { escapeControls, holdsNotShown, notShownIn, quote } from '../src/display-text.js';

describe('quote', () => {
  it('reads like the old quoting for an ordinary name', () => {
    expect(quote('web-1.config')).toBe('"web-1.config"');
    expect(quote('app.kubernetes.io/name')).toBe('"app.kubernetes.io/name"');
  });

  it('escapes line breaks, C0 and C1 controls, separators and invisible format characters', () => {
    expect(quote('x\n\u0085::stop-commands::tok')).toBe('"x\\n\\u0085::stop-commands::tok"');
    expect(quote('a\u001b[31m\u009b1m\u007f')).toBe('"a\\u001b[31m\\u009b1m\\u007f"');
    expect(quote('a\u2028b\u2029c')).toBe('"a\\u2028b\\u2029c"');
    expect(quote('admin\u202Etxt.exe\u200b\ufeff\u{e0041}')).toBe('"admin\\u202etxt.exe\\u200b\\ufeff\\udb40\\udc41"');
    expect(quote('say "hi" \\ there')).toBe('"say \\"hi\\" \\\\ there"');
  });

  it('leaves no character outside printable text', () => {
    let every = '';
    for (let code = 0; code < 0x3000; code++) every += String.fromCharCode(code);
    // eslint-disable-next-line no-control-regex -- control characters are what is looked for
    expect(quote(every)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u);
  });
});

describe('escapeControls', () => {
  it('keeps tabs and line breaks (CRLF as LF), escapes the rest', () => {
    expect(escapeControls('a\tb\r\nc\rd\u001b[0m\u0085')).toBe('a\tb\nc\\u000dd\\u001b[0m\\u0085');
    expect(escapeControls('plain text: ü, 日本, emoji 👍')).toBe('plain text: ü, 日本, emoji 👍');
  });
});

// The characters that issue 31 found reaching a comment raw, each a kind the rule must cover
// by its property: soft hyphen (Cf), combining grapheme joiner (Mn, default ignorable),
// Hangul fillers (Lo, default ignorable), Mongolian vowel separator (Cf), variation
// selectors (Mn), tags (Cf), Khmer inherent vowel (Mn, default ignorable).
const FOUND_RAW = [
  0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0, 0x180e, 0xfe00, 0xfe0f, 0xe0100, 0xe01ef, 0xe0000, 0xe0001, 0xe0041,
  0xe007f, 0x17b4, 0x17b5,
];

/** Code units as JSON writes them: `\u00ad`, a surrogate pair beyond U+FFFF. */
function jsonEscaped(character: string): string {
  return [...Array(character.length).keys()]
    .map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`)
    .join('');
}

// Each property checked on its own (not the rule's one class), over every code point.
const PROPERTIES: Array<[string, RegExp]> = [
  ['Cc', /\p{Cc}/u],
  ['Cf', /\p{Cf}/u],
  ['Co', /\p{Co}/u],
  ['Cn', /\p{Cn}/u],
  ['Zl', /\p{Zl}/u],
  ['Zp', /\p{Zp}/u],
  ['Zs', /\p{Zs}/u],
  ['Default_Ignorable_Code_Point', /\p{Default_Ignorable_Code_Point}/u],
  ['Variation_Selector', /\p{Variation_Selector}/u],
];
const KEPT = new Set(['\t', '\n', ' ']);

function everyCodePoint(): string[] {
  const all: string[] = [];
  for (let code = 0; code <= 0x10ffff; code++) if (code < 0xd800 || code > 0xdfff) all.push(String.fromCodePoint(code));
  return all;
}

describe('what does not show, by Unicode property', () => {
  it.each(FOUND_RAW.map((code) => [`U+${code.toString(16).toUpperCase()}`, String.fromCodePoint(code)]))(
    '%s is escaped in a log line and in a quoted name',
    (_name, character) => {
      const text = `web${character}x`;
      expect(escapeControls(text)).toBe(`web${jsonEscaped(character)}x`);
      expect(quote(text)).toBe(`"web${jsonEscaped(character)}x"`);
      expect(holdsNotShown(text)).toBe(true);
      expect(notShownIn(text)).toEqual([character]);
    },
  );

  it('escapes every code point of each property, wherever it is assigned, and keeps tab, line feed and space', () => {
    const missed: string[] = [];
    let checked = 0;
    for (const character of everyCodePoint()) {
      if (KEPT.has(character) || !PROPERTIES.some(([, property]) => property.test(character))) continue;
      checked++;
      // JSON's own short escapes (`\\b`, `\\f`, `\\r`) stand where JSON has them.
      const json = JSON.stringify(character);
      const quoted = json === `"${character}"` ? `"${jsonEscaped(character)}"` : json;
      if (escapeControls(character) !== jsonEscaped(character) || quote(character) !== quoted)
        missed.push(`U+${character.codePointAt(0)?.toString(16).toUpperCase()}`);
    }
    expect(missed).toEqual([]);
    // Unassigned and private use code points alone are some 970,000.
    expect(checked).toBeGreaterThan(900_000);
    expect(escapeControls('a\tb\nc d')).toBe('a\tb\nc d');
    // A lone surrogate (Cs) is no character: escaped too.
    expect(escapeControls('a\ud800b')).toBe('a\\ud800b');
  });

  it('shows as they are the letters, digits, marks, punctuation and symbols that are none of these', () => {
    const shown = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;
    const changed: string[] = [];
    let checked = 0;
    for (const character of everyCodePoint()) {
      if (!shown.test(character) || PROPERTIES.some(([, property]) => property.test(character))) continue;
      checked++;
      if (escapeControls(character) !== character) changed.push(`U+${character.codePointAt(0)?.toString(16)}`);
    }
    expect(changed).toEqual([]);
    expect(checked).toBeGreaterThan(100_000);
    expect(escapeControls('ü 日本 한국어 👍 ✅ ⚠ é')).toBe('ü 日本 한국어 👍 ✅ ⚠ é');
  });
});
