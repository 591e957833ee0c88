import { describe, expect, it } from 'vitest';
import {
  capitalise,
  code,
  codeBlock,
  commitLink,
  escapeHtml,
  escapeInline,
  fenceFor,
  linkTarget,
  runLink,
} from '../../src/report/markdown.js';

describe('escapeInline', () => {
  it('keeps table cells whole: pipes, newlines and backticks cannot break the row', () => {
    const escaped = escapeInline('a|b\nc`d`');
    expect(escaped).not.toMatch(/[|\n`]/);
    expect(escaped).toBe('a&#124;b c&#96;d&#96;');
  });

  it('neutralises HTML, links, emphasis and mentions', () => {
    const escaped = escapeInline('<script>[x](http://evil) *bold* @team');
    expect(escaped).not.toMatch(/[<>[\]*@]/);
    expect(escaped).toContain('&#60;script&#62;');
  });
});

describe('escapeHtml', () => {
  it('escapes the HTML specials only', () => {
    expect(escapeHtml('a < b && c > "d"')).toBe('a &lt; b &amp;&amp; c &gt; &quot;d&quot;');
  });
});

describe('code', () => {
  it('wraps escaped text in <code>', () => {
    expect(code('Deployment/a|b')).toBe('<code>Deployment/a&#124;b</code>');
  });
});

describe('fenceFor and codeBlock', () => {
  it('uses three backticks for text without backticks', () => {
    expect(fenceFor('plain text')).toBe('```');
  });

  it('uses a fence longer than the longest backtick run', () => {
    expect(fenceFor('a ``` b ````` c')).toBe('``````');
  });

  it('cannot be closed early by the text inside', () => {
    const diff = '+ script: |\n+   ```\n+   echo hi\n+   ```';
    const block = codeBlock(diff, 'diff');
    const fence = block.slice(0, block.indexOf('diff'));
    expect(fence.length).toBe(4);
    const inner = block.slice(fence.length + 'diff\n'.length, block.length - fence.length - 1);
    expect(inner).toBe(`${diff}\n`);
    expect(inner.split('\n').some((line) => line.trim().startsWith(fence))).toBe(false);
  });
});

describe('capitalise', () => {
  it('upper-cases the first character only', () => {
    expect(capitalise('changes on **2 of 3** clusters')).toBe('Changes on **2 of 3** clusters');
    expect(capitalise('')).toBe('');
  });
});

describe('links', () => {
  it('links the commit when the repository is known, on the configured server', () => {
    const sha = 'abcdef0123456789abcdef0123456789abcdef01';
    expect(commitLink({ commitSha: sha, secrets: [] })).toBe('<code>abcdef0</code>');
    expect(commitLink({ commitSha: sha, repository: 'o/r', serverUrl: 'https://ghe.example.com/', secrets: [] })).toBe(
      `[<code>abcdef0</code>](https://ghe.example.com/o/r/commit/${sha})`,
    );
  });

  it('keeps link targets from breaking the Markdown link', () => {
    expect(linkTarget('https://x/a b)(c<d>')).toBe('https://x/a%20b%29%28c%3Cd%3E');
    expect(runLink({ commitSha: 'x', secrets: [] }, 'run')).toBe('run');
  });
});
