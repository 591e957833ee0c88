import { describe, expect, it } from 'vitest';
import { commentLength, utf8Length } from '../../src/github/limits.js';
import { linesOf, truncateCharacters, truncateLines } from '../../src/report/text-truncation.js';

describe('truncateLines', () => {
  it('keeps whole lines within the budget', () => {
    const result = truncateLines('aaa\nbbb\nccc\n', 8, commentLength);
    expect(result).toEqual({ text: 'aaa\nbbb', cut: true, keptLines: 2, totalLines: 3 });
  });

  it('keeps everything when it fits', () => {
    expect(truncateLines('aaa\nbbb\n', 8, commentLength)).toEqual({ text: 'aaa\nbbb', cut: false, keptLines: 2, totalLines: 2 });
  });

  it('keeps part of the first line when no whole line fits', () => {
    const result = truncateLines(`${'x'.repeat(100)}\nshort`, 11, commentLength);
    expect(result.text).toBe('x'.repeat(10));
    expect(result).toMatchObject({ cut: true, keptLines: 0, totalLines: 2 });
  });
});

describe('truncateCharacters', () => {
  it('never splits a surrogate pair', () => {
    const text = '🚀🚀🚀';
    expect(truncateCharacters(text, 3, commentLength)).toBe('🚀');
    expect(truncateCharacters(text, 4, commentLength)).toBe('🚀🚀');
  });

  it('counts UTF-8 bytes when asked to', () => {
    expect(truncateCharacters('ééé', 5, utf8Length)).toBe('éé');
  });
});

describe('linesOf', () => {
  it('does not count a final newline as a line', () => {
    expect(linesOf('a\nb\n')).toEqual(['a', 'b']);
    expect(linesOf('')).toEqual([]);
    expect(linesOf('a\n\nb')).toEqual(['a', '', 'b']);
  });
});
