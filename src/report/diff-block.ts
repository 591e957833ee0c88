// One object's diff as a fenced ```diff block, shortened to its allocation.

import { codeBlock } from './markdown.js';
import type { Measure } from '../github/limits.js';
import { linesOf, truncateLines } from './text-truncation.js';

/** Below this allocation a diff that does not fit is not shown at all: a few characters help no one. */
export const MIN_DIFF_SHOWN = 160;

export type DiffOutcome = 'whole' | 'cut' | 'hidden';

/** What becomes of a diff of this size under an allocation (none = whole). */
export function diffOutcome(size: number, allocation: number | undefined): DiffOutcome {
  if (allocation === undefined || allocation >= size) return 'whole';
  return allocation < MIN_DIFF_SHOWN ? 'hidden' : 'cut';
}

export interface DiffBlock {
  markdown: string;
  outcome: DiffOutcome;
}

/** The note for a diff left out entirely, to follow the object's name on its line. */
export function hiddenDiffNote(diff: string): string {
  const lines = linesOf(diff).length;
  return `✂️ diff not shown (${lines} ${lines === 1 ? 'line' : 'lines'})`;
}

/**
 * The diff as a fenced block, cut to the allocation when needed, followed by a note that
 * says what was cut and where to see it whole (`moreHint`, Markdown, e.g. a run link).
 * For a `hidden` outcome the markdown is the hidden-diff note alone.
 */
export function renderDiffBlock(diff: string, allocation: number | undefined, measure: Measure, moreHint: string): DiffBlock {
  const outcome = diffOutcome(measure(diff), allocation);
  const totalLines = linesOf(diff).length;
  if (outcome === 'whole') return { markdown: codeBlock(diff, 'diff'), outcome };
  if (outcome === 'hidden') return { markdown: hiddenDiffNote(diff), outcome };
  const kept = truncateLines(diff, allocation ?? 0, measure);
  const shown = kept.keptLines > 0 ? `${kept.keptLines} of ${totalLines} lines shown` : `part of the first of ${totalLines} lines shown`;
  return { markdown: `${codeBlock(kept.text, 'diff')}✂️ _Diff cut: ${shown}; ${moreHint}._\n`, outcome };
}
