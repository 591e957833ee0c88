// Fitting a report into a size limit. A report is rendered from a plan: how much detail,
// and how much room each part may take. The fit tries, in order:
//   1. everything whole;
//   2. object lists whole, diffs cut fairly (fairAllocation) into the room that the rest
//      of the report leaves;
//   3. no diffs, object lists cut fairly per cluster (at worst, instances only);
//   4. the table alone;
//   5. as a last resort, the table-only report cut at a line (only when the table itself
//      exceeds the limit: many hundreds of clusters in one comment).
// Each step is taken only when the previous one cannot fit, so a report keeps as much as
// fits, and the cut falls on the largest parts first.

import { fairAllocation, type ItemGroup } from './fair-share.js';
import type { Measure } from '../github/limits.js';
import { linesOf } from './text-truncation.js';

export type Detail = 'diffs' | 'objects' | 'table';

export interface Plan {
  detail: Detail;
  /**
   * Room per part id: per diff (`diffs`) or per cluster's object list (`objects`). A part
   * without an entry is shown whole.
   */
  allocation: ReadonlyMap<string, number>;
}

export interface FitRequest {
  /** The diffs, grouped by cluster, with their full sizes. */
  diffs: readonly ItemGroup[];
  /** The object lists, one group per cluster holding one item, with their full sizes. */
  objectLists: readonly ItemGroup[];
  limit: number;
  measure: Measure;
  render: (plan: Plan) => string;
  /** Text appended when the report had to be cut at a line (step 5). */
  cutNotice: string;
}

const WHOLE: ReadonlyMap<string, number> = new Map();
const ATTEMPTS = 12;

export function fitToBudget(request: FitRequest): string {
  const { limit, measure, render } = request;
  const whole = render({ detail: 'diffs', allocation: WHOLE });
  if (measure(whole) <= limit) return whole;
  const fitted = fitStage(request, 'diffs', request.diffs) ?? fitStage(request, 'objects', request.objectLists);
  if (fitted !== undefined) return fitted;
  const table = render({ detail: 'table', allocation: WHOLE });
  if (measure(table) <= limit) return table;
  return cutAtLine(table, limit - measure(request.cutNotice), measure) + request.cutNotice;
}

/**
 * The report at one detail with its parts shared fairly; undefined when even with every
 * part at zero the report exceeds the limit.
 */
function fitStage(request: FitRequest, detail: Detail, groups: readonly ItemGroup[]): string | undefined {
  const { limit, measure, render } = request;
  const zero = new Map(groups.flatMap((group) => group.items.map((item) => [item.id, 0] as const)));
  const bare = render({ detail, allocation: zero });
  const bareSize = measure(bare);
  if (bareSize > limit) return undefined;
  let room = limit - bareSize;
  for (let attempt = 0; attempt < ATTEMPTS && room > 0; attempt += 1) {
    const rendered = render({ detail, allocation: fairAllocation(groups, room) });
    const size = measure(rendered);
    if (size <= limit) return rendered;
    // The parts' notes and fences take room too: shrink by the excess and a little more.
    room -= size - limit + Math.ceil(room / 50);
  }
  return bare;
}

function cutAtLine(text: string, budget: number, measure: Measure): string {
  let kept = '';
  let used = 0;
  for (const line of linesOf(text)) {
    const size = measure(line) + 1;
    if (used + size > budget) break;
    kept += `${line}\n`;
    used += size;
  }
  return kept;
}
