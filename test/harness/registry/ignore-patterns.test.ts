// Timoni's ignore rules (gitignore as fluxcd/pkg/sourceignore implements it).
import { describe, expect, it } from 'vitest';
import { compileComponentGlob, IgnoreMatcher, parseIgnoreLines } from './ignore-patterns.js';

const ignores = (rules: string[], path: string, isDir = false) =>
  new IgnoreMatcher(rules).ignores(path.split('/'), isDir);

describe('component globs (Go filepath.Match)', () => {
  it.each([
    ['*.cue', 'values.cue', true],
    ['*.cue', 'values.cue.bak', false],
    ['?alues.cue', 'values.cue', true],
    ['[vw]alues.cue', 'walues.cue', true],
    ['[^v]alues.cue', 'values.cue', false],
    ['[a-c]*', 'bundle', true],
    ['[a-c]*', 'debug', false],
    ['\\*.cue', '*.cue', true],
    ['\\*.cue', 'x.cue', false],
    ['café.*', 'café.cue', true],
  ])('%s against %s is %s', (pattern, name, expected) => {
    expect(compileComponentGlob(pattern)?.test(name)).toBe(expected);
  });

  it.each(['[', '[]', '[a-]', 'abc\\', '[z-a]'])('treats the malformed pattern %s as matching nothing', (pattern) => {
    expect(compileComponentGlob(pattern)).toBeUndefined();
    expect(ignores([pattern], pattern)).toBe(false);
  });
});

describe('ignore rules', () => {
  it('match a name without slash at any depth, a directory also covering what is below it', () => {
    expect(ignores(['*_tool.cue'], 'build_tool.cue')).toBe(true);
    expect(ignores(['*_tool.cue'], 'templates/gen_tool.cue')).toBe(true);
    expect(ignores(['vendor/'], 'vendor', true)).toBe(true);
    expect(ignores(['vendor/'], 'vendor/a/b.cue')).toBe(true);
    expect(ignores(['vendor/'], 'vendor')).toBe(false);
    expect(ignores(['vendor/'], 'x/vendor/y.cue')).toBe(true);
  });

  it('anchor patterns holding a slash at the root', () => {
    expect(ignores(['/docs'], 'docs/a.md')).toBe(true);
    expect(ignores(['/docs'], 'x/docs/a.md')).toBe(false);
    expect(ignores(['docs/*.md'], 'docs/a.md')).toBe(true);
    expect(ignores(['docs/*.md'], 'x/docs/a.md')).toBe(false);
  });

  it('let ** span directories', () => {
    expect(ignores(['**/test.cue'], 'a/b/test.cue')).toBe(true);
    expect(ignores(['**/test.cue'], 'test.cue')).toBe(true);
    expect(ignores(['a/**'], 'a/b/c')).toBe(true);
    expect(ignores(['a/**/z.cue'], 'a/b/c/z.cue')).toBe(true);
    expect(ignores(['a/**/z.cue'], 'b/c/z.cue')).toBe(false);
  });

  it('decide by the last matching rule, ! re-including', () => {
    expect(ignores(['*.md', '!README.md'], 'README.md')).toBe(false);
    expect(ignores(['*.md', '!README.md'], 'CHANGES.md')).toBe(true);
    expect(ignores(['!README.md', '*.md'], 'README.md')).toBe(true);
  });

  it('select the vendor layer with /* and !/cue.mod, never the root itself', () => {
    const vendor = ['/*', '!/cue.mod'];
    expect(ignores(vendor, 'cue.mod', true)).toBe(false);
    expect(ignores(vendor, 'cue.mod/pkg/x.cue')).toBe(false);
    expect(ignores(vendor, 'timoni.cue')).toBe(true);
    expect(ignores(vendor, 'templates/x.cue')).toBe(true);
    expect(new IgnoreMatcher(vendor).ignores([], true)).toBe(false);
  });

  it('read timoni.ignore lines without comments, blank lines or carriage returns', () => {
    expect(parseIgnoreLines('# VCS\r\n.git/\r\n\r\n  \n*_tool.cue\n #not a comment\n')).toEqual([
      '.git/',
      '*_tool.cue',
      ' #not a comment',
    ]);
    expect(ignores(['trailing.cue   '], 'trailing.cue')).toBe(true);
  });
});
