// The display rules for text from the user's files: log lines show control characters
// escaped, names and values in messages are JSON-quoted with invisible characters escaped.
import { describe, expect, it } from 'vitest';
import { escapeControls, quote } from '../src/display-text.js';

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
