// Cutting a diff or a message to a size budget, at line boundaries where possible.

import type { Measure } from '../github/limits.js';

export interface TruncatedText {
  /** The text kept, whole lines from the start (or a prefix of the first line). */
  text: string;
  /** True when something was cut. */
  cut: boolean;
  keptLines: number;
  totalLines: number;
}

/** Lines of a text, without a trailing empty line for a final newline. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Keeps whole lines from the start of the text while their size (each with its newline)
 * stays within the budget. When not even the first line fits, keeps as much of it as fits,
 * never splitting a character.
 */
export function truncateLines(text: string, budget: number, measure: Measure): TruncatedText {
  const lines = linesOf(text);
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const size = measure(line) + 1;
    if (used + size > budget) break;
    kept.push(line);
    used += size;
  }
  if (kept.length === lines.length) return { text: lines.join('\n'), cut: false, keptLines: lines.length, totalLines: lines.length };
  if (kept.length === 0 && lines.length > 0) {
    const prefix = truncateCharacters(lines[0] ?? '', budget - 1, measure);
    return { text: prefix, cut: true, keptLines: 0, totalLines: lines.length };
  }
  return { text: kept.join('\n'), cut: true, keptLines: kept.length, totalLines: lines.length };
}

/** The longest prefix of the text, by whole code points, whose size is within the budget. */
export function truncateCharacters(text: string, budget: number, measure: Measure): string {
  if (measure(text) <= budget) return text;
  let result = '';
  let used = 0;
  for (const character of text) {
    const size = measure(character);
    if (used + size > budget) break;
    result += character;
    used += size;
  }
  return result;
}
