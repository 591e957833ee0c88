// The note near the top of a shortened report that says what was left out and where to
// find it.

import type { Detail } from './budget-fit.js';

export interface CutCounts {
  diffsCut: number;
  diffsHidden: number;
  objectsOmitted: number;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A GitHub alert naming what was cut to fit `limitName`, then `where` (Markdown); '' when nothing was. */
export function cutNote(detail: Detail, counts: CutCounts, limitName: string, where: string): string {
  const what: string[] = [];
  if (detail === 'objects') what.push('diffs left out');
  if (detail === 'table') what.push('cluster sections left out');
  if (counts.diffsCut > 0) what.push(`${plural(counts.diffsCut, 'diff')} cut`);
  if (counts.diffsHidden > 0) what.push(`${plural(counts.diffsHidden, 'diff')} not shown`);
  if (counts.objectsOmitted > 0) what.push(`${plural(counts.objectsOmitted, 'object')} not listed`);
  if (what.length === 0) return '';
  return `> [!WARNING]\n> Shortened to fit ${limitName}: ${what.join(', ')}. ${where}\n\n`;
}
