// Workflow commands as the runner reads them (src/workflow-commands.ts): annotations, groups
// and masks with the runner's escaping, and log text that no line of can start a command.
import { describe, expect, it } from 'vitest';
import { escapeData, escapeLogText, formatAnnotation, formatGroupStart, formatMask } from '../src/workflow-commands.js';

describe('workflow commands', () => {
  it('formats an error annotation with file, line, column and title', () => {
    expect(
      formatAnnotation({
        level: 'error',
        file: 'apps/bundle.cue',
        line: 12,
        column: 3,
        title: 'CUE error at bundle.name',
        message: 'invalid value',
      }),
    ).toBe('::error file=apps/bundle.cue,line=12,col=3,title=CUE error at bundle.name::invalid value\n');
  });

  it('escapes data and properties as the runner decodes them', () => {
    expect(formatAnnotation({ level: 'warning', file: 'a,b:c.cue', message: '50% done\r\nnext line' })).toBe(
      '::warning file=a%2Cb%3Ac.cue::50%25 done%0Anext line\n',
    );
    expect(escapeData('a%b\r\nc')).toBe('a%25b%0D%0Ac');
  });

  it("shows an annotation's control characters escaped and its lines as plain log text", () => {
    const annotation = formatAnnotation({
      level: 'error',
      title: 'x\u001b[2J',
      message: 'object "a\u001b[31mred"\n\u0085::stop-commands::tok\n##[group]fake\r',
    });
    expect(annotation).toBe(
      '::error title=x\\u001b[2J::object "a\\u001b[31mred"%0A\\u0085::stop-commands::tok%0A#\u200b#[group]fake\\u000d\n',
    );
    // eslint-disable-next-line no-control-regex -- control characters are what is looked for
    expect(annotation).not.toMatch(/[\u001b\u0085\r]/);
  });

  it('registers a mask', () => {
    expect(formatMask('s3cr%t')).toBe('::add-mask::s3cr%25t\n');
  });
});

// The runner's rule (src/workflow-commands.ts, from actions/runner's ActionCommand.TryParseV2 and
// TryParse): a line is a command when, after .NET's TrimStart, it starts with `::`, or when
// it holds `##[` anywhere. Char.IsWhiteSpace is wider than JavaScript's \s by U+0085.
const NET_WHITESPACE = [
  '\t',
  '\u000b',
  '\u000c',
  ' ',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2005',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
];

describe('escapeLogText', () => {
  const lines = (text: string) => escapeLogText(text).split('\n');
  const startsCommand = (line: string) => /^[\t-\r \u0085\p{Zs}\u2028\u2029]*::/u.test(line) || line.includes('##[');

  it.each(NET_WHITESPACE.map((space) => [space.codePointAt(0)?.toString(16).padStart(4, '0'), space]))(
    'breaks `::` after U+%s, whitespace to the runner',
    (_code, space) => {
      for (const line of lines(`name\n${space}::stop-commands::tok`))
        expect(startsCommand(line), JSON.stringify(line)).toBe(false);
    },
  );

  it('breaks `::` after runs of whitespace, controls and format characters, and `##[` anywhere', () => {
    for (const text of [
      '::error::x',
      ' \u0085\u3000::add-mask::x',
      '\u200b::x::y',
      '\ufeff::x::y',
      '\u001c\u001f::x::y',
      'a ##[error]x',
      '###[group]y',
      '##[##[z',
    ]) {
      for (const line of lines(text)) expect(startsCommand(line), JSON.stringify(line)).toBe(false);
    }
    expect(escapeLogText('  ::error::x')).toBe('  :\u200b:error::x');
    expect(escapeLogText('a ##[error]x')).toBe('a #\u200b#[error]x');
  });

  it('splits where the runner splits (CRLF, LF) and shows a lone CR, NEL and the separators escaped', () => {
    expect(escapeLogText('a\r\n::x::y\rb\u2028c\u2029d\u0085e')).toBe(
      'a\n:\u200b:x::y\\u000db\\u2028c\\u2029d\\u0085e',
    );
  });

  it('shows ANSI sequences (ESC, CSI) and other controls escaped, keeps tabs and ordinary text as they are', () => {
    expect(escapeLogText('\u001b[31mred\u001b[0m \u009b2J\u0007\u0000\u007f')).toBe(
      '\\u001b[31mred\\u001b[0m \\u009b2J\\u0007\\u0000\\u007f',
    );
    expect(escapeLogText('cluster prod-1: 3 objects\tchanged (ConfigMap/apps/web: 2 lines)')).toBe(
      'cluster prod-1: 3 objects\tchanged (ConfigMap/apps/web: 2 lines)',
    );
  });

  it('escapes a group title', () => {
    expect(formatGroupStart('cluster a\u001b[2J\nb')).toBe('::group::cluster a\\u001b[2J%0Ab\n');
  });
});
