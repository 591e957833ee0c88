import { describe, expect, it } from 'vitest';
import { FileCommandError, parseKeyValueFile, parsePathFile } from './file-commands.js';
import { dotnetTrimStart, parseWorkflowCommand, unescapeData, unescapeProperty } from './workflow-commands.js';

describe('workflow command parsing', () => {
  it('parses an annotation with properties and undoes the runner escapes', () => {
    const c = parseWorkflowCommand(
      '  ::error file=a%2Cb.ts,line=3,col=7,endLine=4,title=Bad%3A thing::first%0Dsecond%0Athird 100%25',
      'stdout',
    );
    expect(c).toEqual({
      command: 'error',
      properties: { file: 'a,b.ts', line: '3', col: '7', endLine: '4', title: 'Bad: thing' },
      message: 'first\rsecond\nthird 100%',
      stream: 'stdout',
      raw: '  ::error file=a%2Cb.ts,line=3,col=7,endLine=4,title=Bad%3A thing::first%0Dsecond%0Athird 100%25',
    });
  });

  it('unescapes in the runner order, so an escaped percent stays literal', () => {
    expect(unescapeData('%250A')).toBe('%0A');
    expect(unescapeData('a%3Ab')).toBe('a%3Ab');
    expect(unescapeProperty('a%3Ab%2Cc%250D')).toBe('a:b,c%0D');
  });

  it('keeps the message after the second :: whole, colons included', () => {
    expect(parseWorkflowCommand('::warning::a::b:c', 'stderr')?.message).toBe('a::b:c');
    expect(parseWorkflowCommand('::group::Cluster eu-1', 'stdout')).toMatchObject({
      command: 'group',
      message: 'Cluster eu-1',
      properties: {},
    });
  });

  it('ignores unknown commands, lines without a second ::, and properties without a value', () => {
    expect(parseWorkflowCommand('::frobnicate::x', 'stdout')).toBeUndefined();
    expect(parseWorkflowCommand('::error', 'stdout')).toBeUndefined();
    expect(parseWorkflowCommand('text ::error::x', 'stdout')).toBeUndefined();
    expect(parseWorkflowCommand('::notice title=,line=2::m', 'stdout')?.properties).toEqual({ line: '2' });
  });
});

describe('environment file parsing', () => {
  it('reads name=value lines and heredocs, skipping empty lines', () => {
    const text = 'a=1\n\nb=x=y\nmulti<<EOF_1\nline 1\n\nline 3\nEOF_1\nempty<<END\nEND\nlast=z';
    expect(parseKeyValueFile(text, 'output')).toEqual({
      a: '1',
      b: 'x=y',
      multi: 'line 1\n\nline 3',
      empty: '',
      last: 'z',
    });
  });

  it('takes the earlier of = and << to tell the forms apart', () => {
    expect(parseKeyValueFile('a=b<<c\n', 'output')).toEqual({ a: 'b<<c' });
    expect(parseKeyValueFile('a<<=\nv\n=\n', 'output')).toEqual({ a: 'v' });
  });

  it('keeps a CR inside values (LF ends lines on Linux)', () => {
    expect(parseKeyValueFile('a=1\r\n', 'output')).toEqual({ a: '1\r' });
  });

  it('fails on a missing delimiter, an empty name or a line of neither form', () => {
    expect(() => parseKeyValueFile('m<<EOF\nx\n', 'output')).toThrow(FileCommandError);
    expect(() => parseKeyValueFile('m<<EOF\nx\n', 'output')).toThrow(/matching delimiter not found 'EOF'/);
    expect(() => parseKeyValueFile('=v\n', 'output')).toThrow(/name must not be empty/);
    expect(() => parseKeyValueFile('novalue\n', 'env')).toThrow(/env: invalid format 'novalue'/);
  });

  it('reads GITHUB_PATH one directory a line', () => {
    expect(parsePathFile('/a/bin\n\n/b/bin\n')).toEqual(['/a/bin', '/b/bin']);
  });
});

describe("the runner's rule for what starts a command", () => {
  it('trims what .NET calls whitespace: U+0085 and U+2028 too, U+FEFF and U+001C not', () => {
    expect(parseWorkflowCommand('\u0085::stop-commands::tok', 'stdout')).toMatchObject({
      command: 'stop-commands',
      message: 'tok',
    });
    expect(parseWorkflowCommand('\u2028\u3000 \t::error::x', 'stdout')).toMatchObject({
      command: 'error',
      message: 'x',
    });
    expect(parseWorkflowCommand('\ufeff::error::x', 'stdout')).toBeUndefined();
    expect(parseWorkflowCommand('\u001c::error::x', 'stdout')).toBeUndefined();
    expect(dotnetTrimStart('\u0085\u00a0\u1680\u200a\u202f\u205f x')).toBe('x');
  });

  it('compares names ignoring case, as the runner does', () => {
    expect(parseWorkflowCommand('::STOP-Commands::tok', 'stdout')).toMatchObject({
      command: 'stop-commands',
      message: 'tok',
    });
  });

  it('reads the older ##[name]message form anywhere in the line', () => {
    expect(parseWorkflowCommand('text ##[stop-commands]tok', 'stdout')).toMatchObject({
      command: 'stop-commands',
      message: 'tok',
    });
    expect(parseWorkflowCommand('##[error file=a%3Bb.cue;line=2]x%5Dy', 'stderr')).toMatchObject({
      command: 'error',
      properties: { file: 'a;b.cue', line: '2' },
      message: 'x]y',
    });
    expect(parseWorkflowCommand('##[frobnicate]x', 'stdout')).toBeUndefined();
    expect(parseWorkflowCommand('#\u200b#[error]x', 'stdout')).toBeUndefined();
  });
});
