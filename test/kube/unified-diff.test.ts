import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/kube/unified-diff.js';

/** Applies a unified diff to `from`, checking every context and removed line on the way. */
function applyPatch(from: string, patch: string): string {
  const source = from === '' ? [] : from.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let at = 0;
  const lines = patch.replace(/\n$/, '').split('\n').slice(2);
  for (const line of lines) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(line);
    if (header) {
      const start = Number(header[1]) - (header[2] === '0' ? 0 : 1);
      while (at < start) out.push(source[at++]!);
      continue;
    }
    const op = line[0];
    const text = line.slice(1);
    if (op === '+') out.push(text);
    else {
      if (source[at] !== text) throw new Error(`patch does not match at line ${at + 1}: ${JSON.stringify(text)}`);
      if (op === ' ') out.push(text);
      at++;
    }
  }
  while (at < source.length) out.push(source[at++]!);
  return out.length ? `${out.join('\n')}\n` : '';
}

const dir = mkdtempSync(join(tmpdir(), 'udiff-'));
function gnuDiff(a: string, b: string): string {
  writeFileSync(join(dir, 'a'), a);
  writeFileSync(join(dir, 'b'), b);
  try {
    return execFileSync('diff', ['-u', '--label', 'live', '--label', 'desired', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

const changedLines = (patch: string) => patch.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l)).length;

describe('unified diff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n')).toBe('');
  });

  it('prints hunks with three lines of context exactly as diff -u does', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const b = a.replace('line 2\n', 'line two\n').replace('line 15\n', '').replace('line 20\n', 'line 20\nline 21\n');
    const expected = gnuDiff(a, b);
    expect(unifiedDiff(a, b)).toBe(expected);
    expect(expected).toContain('@@ -1,5 +1,5 @@');
  });

  it('diffs from and to nothing', () => {
    expect(unifiedDiff('', 'x: 1\ny: 2\n')).toBe('--- live\n+++ desired\n@@ -0,0 +1,2 @@\n+x: 1\n+y: 2\n');
    expect(unifiedDiff('x: 1\n', '')).toBe('--- live\n+++ desired\n@@ -1 +0,0 @@\n-x: 1\n');
  });

  it('round-trips and is as short as GNU diff on random edits', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 120; round++) {
      const a = Array.from({ length: Math.floor(random() * 30) }, () => `k${Math.floor(random() * 6)}`);
      const b = a.flatMap((line) => {
        const r = random();
        if (r < 0.15) return [];
        if (r < 0.3) return [line, `n${Math.floor(random() * 6)}`];
        if (r < 0.4) return [`c${Math.floor(random() * 6)}`];
        return [line];
      });
      const from = a.length ? `${a.join('\n')}\n` : '';
      const to = b.length ? `${b.join('\n')}\n` : '';
      const patch = unifiedDiff(from, to);
      if (from === to) {
        expect(patch).toBe('');
        continue;
      }
      expect(applyPatch(from, patch)).toBe(to);
      expect(changedLines(patch)).toBe(changedLines(gnuDiff(from, to)));
    }
  });
});
