// The note near the top of a shortened report that says what was left out and where to
// find it.

import type { ChangeSet } from '../changeset.js';
import type { Detail, Plan } from './budget-fit.js';
import type { SectionInput } from './comment-section.js';

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

/** What every section renderer needs beyond its cluster and the plan's detail and allocation. */
export type SharedSectionInput = Omit<SectionInput, 'cluster' | 'clusterIndex' | 'mode' | 'detail' | 'allocation' | 'onDiff' | 'onObjectsOmitted'>;

/**
 * Renders every cluster's section for a plan (none when only the table fits) with
 * `renderSection`, counting what was cut so the note can say it.
 */
export function renderCountedSections(
  changeSet: ChangeSet,
  plan: Plan,
  renderSection: (input: SectionInput) => string,
  shared: SharedSectionInput,
): { sections: string; counts: CutCounts } {
  const counts: CutCounts = { diffsCut: 0, diffsHidden: 0, objectsOmitted: 0 };
  if (plan.detail === 'table') return { sections: '', counts };
  const sections = changeSet.clusters
    .map((cluster, clusterIndex) =>
      renderSection({
        ...shared,
        cluster,
        clusterIndex,
        mode: changeSet.mode,
        detail: plan.detail,
        allocation: plan.allocation,
        onDiff: (outcome) => {
          if (outcome === 'cut') counts.diffsCut += 1;
          if (outcome === 'hidden') counts.diffsHidden += 1;
        },
        onObjectsOmitted: (count) => {
          counts.objectsOmitted += count;
        },
      }),
    )
    .join('');
  return { sections, counts };
}
