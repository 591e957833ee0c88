// Fitting a report into a size limit. A report is rendered from a plan: how much detail,
// and how much of each diff. The fit tries, in order:
//   1. every diff whole;
//   2. diffs cut fairly (fairAllocation) into the room the rest of the report leaves;
//   3. object lists without diffs;
//   4. instances without object lists;
//   5. the table alone;
//   6. as a last resort, the table-only report cut at a line (only when the table itself
//      exceeds the limit: hundreds of clusters in one comment).

import { fairAllocation, type ItemGroup } from './fair-share.js';
import type { Measure } from './text-size.js';
import { linesOf } from './text-truncation.js';

export type Detail = 'diffs' | 'instances' | 'table';

export interface Plan {
  detail: Detail;
  /** Size allowed per diff id (only for `diffs`); a diff without an entry is shown whole. */
  allocation: ReadonlyMap<string, number>;
}

export interface FitRequest {
  /** The diffs, grouped by cluster, with their full sizes. */
  groups: readonly ItemGroup[];
  limit: number;
  measure: Measure;
  render: (plan: Plan) => string;
  /** Text appended when the report had to be cut at a line (step 6). */
  cutNotice: string;
}

const NO_ALLOCATION: ReadonlyMap<string, number> = new Map();
const ATTEMPTS = 12;

export function fitToBudget(request: FitRequest): string {
  const { groups, limit, measure, render } = request;
  const whole = render({ detail: 'diffs', allocation: NO_ALLOCATION });
  if (measure(whole) <= limit) return whole;

  const zero = new Map(groups.flatMap((group) => group.items.map((item) => [item.id, 0] as const)));
  const bare = render({ detail: 'diffs', allocation: zero });
  const bareSize = measure(bare);
  if (bareSize <= limit) {
    let room = limit - bareSize;
    for (let attempt = 0; attempt < ATTEMPTS && room > 0; attempt += 1) {
      const rendered = render({ detail: 'diffs', allocation: fairAllocation(groups, room) });
      const size = measure(rendered);
      if (size <= limit) return rendered;
      room -= size - limit + Math.ceil(room / 50);
    }
    return bare;
  }
  for (const detail of ['instances', 'table'] as const) {
    const rendered = render({ detail, allocation: NO_ALLOCATION });
    if (measure(rendered) <= limit) return rendered;
  }
  return cutAtLine(render({ detail: 'table', allocation: NO_ALLOCATION }), limit - measure(request.cutNotice), measure) + request.cutNotice;
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
