// What the reports are given besides the ChangeSet (src/report/context.ts): links to the
// commit and the run.

import { describe, expect, it } from 'vitest';
import { commitLink, linkTarget, runLink } from '../../src/report/context.js';

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
