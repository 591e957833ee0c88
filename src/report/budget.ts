// Fitting a report into a size limit. A report is rendered from a plan: how much detail,
// and how much room each part may take. The fit (fitToBudget) tries, in order:
//   1. everything whole;
//   2. object lists whole, diffs cut fairly (fairAllocation) into the room that the rest
//      of the report leaves;
//   3. no diffs, object lists cut fairly per cluster (at worst, instances only);
//   4. the table alone;
//   5. as a last resort, the table-only report cut at a line (only when the table itself
//      exceeds the limit: many hundreds of clusters in one comment).
// Each step is taken only when the previous one cannot fit, so a report keeps as much as
// fits, and the cut falls on the largest parts first.
//
// The parts shared out are the diffs (each shown once: the same change on several
// clusters is shown under the first and referred to from the others) and each cluster's
// object list. This file also cuts text at line boundaries, and words the note that says
// what a shortened report left out.

import type { ChangeSet, ObjectChange } from '../changeset.js';
import type { Measure } from '../github/limits.js';

// ---------------------------------------------------------------------------------------
// Cutting text to a size, at line boundaries where possible.

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
  if (kept.length === lines.length)
    return { text: lines.join('\n'), cut: false, keptLines: lines.length, totalLines: lines.length };
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

// ---------------------------------------------------------------------------------------
// Fair division of a size budget ("water filling", max-min fairness): every demand at or
// below the equal share is met in full, and what remains is divided equally among the
// larger ones. A small diff is never cut to feed a large one.

/** Allocations for the demands (same order), summing to at most `total`. */
export function waterFill(demands: readonly number[], total: number): number[] {
  const allocations = demands.map(() => 0);
  const order = demands.map((_, index) => index).sort((left, right) => (demands[left] ?? 0) - (demands[right] ?? 0));
  let remaining = Math.max(0, Math.floor(total));
  order.forEach((index, position) => {
    const share = Math.floor(remaining / (order.length - position));
    const given = Math.min(Math.max(0, demands[index] ?? 0), share);
    allocations[index] = given;
    remaining -= given;
  });
  return allocations;
}

export interface SizedItem {
  id: string;
  size: number;
}

export interface ItemGroup {
  items: readonly SizedItem[];
}

/**
 * Two-level fair division: first among groups (clusters), each group demanding the sum of
 * its items; then, within each group, among its items. Returns the allocation per item id.
 */
export function fairAllocation(groups: readonly ItemGroup[], total: number): Map<string, number> {
  const groupDemands = groups.map((group) => group.items.reduce((sum, item) => sum + item.size, 0));
  const groupShares = waterFill(groupDemands, total);
  const allocation = new Map<string, number>();
  groups.forEach((group, groupIndex) => {
    const itemShares = waterFill(
      group.items.map((item) => item.size),
      groupShares[groupIndex] ?? 0,
    );
    group.items.forEach((item, itemIndex) => allocation.set(item.id, itemShares[itemIndex] ?? 0));
  });
  return allocation;
}

// ---------------------------------------------------------------------------------------
// The parts shared out: diffs (each distinct one once) and object lists.

export type Sharing =
  /** Shown here; `alsoOn` names the later clusters with the identical change (maybe none). */
  | { kind: 'shown'; alsoOn: string[] }
  /** Identical to the change shown under an earlier cluster. */
  | { kind: 'repeat'; shownOn: string };

/** The id of one object change in a ChangeSet: `cluster/instance/object` indexes. */
export function changeId(cluster: number, instance: number, object: number): string {
  return `${cluster}/${instance}/${object}`;
}

function hasDiff(change: ObjectChange): boolean {
  return change.diff !== '' && change.action !== 'unchanged' && change.action !== 'skipped';
}

/**
 * How each object change with a diff is shown, by change id; changes without a diff are
 * absent. The same change on several clusters (same instance, same object, same action and
 * the same diff text) is shown once, under the first cluster in runtime order, naming the
 * others; the later clusters refer back to it.
 */
export function indexSharedChanges(changeSet: ChangeSet): Map<string, Sharing> {
  const firstByKey = new Map<string, { id: string; cluster: string }>();
  const sharing = new Map<string, Sharing>();
  changeSet.clusters.forEach((cluster, clusterIndex) => {
    cluster.instances.forEach((instance, instanceIndex) => {
      instance.changes.forEach((change, objectIndex) => {
        if (!hasDiff(change)) return;
        const id = changeId(clusterIndex, instanceIndex, objectIndex);
        const key = JSON.stringify([
          instance.name,
          instance.namespace,
          change.apiVersion,
          change.kind,
          change.namespace,
          change.name,
          change.action,
          change.diff,
        ]);
        const first = firstByKey.get(key);
        if (!first) {
          firstByKey.set(key, { id, cluster: cluster.name });
          sharing.set(id, { kind: 'shown', alsoOn: [] });
          return;
        }
        const shown = sharing.get(first.id);
        if (shown?.kind === 'shown' && !shown.alsoOn.includes(cluster.name) && cluster.name !== first.cluster) {
          shown.alsoOn.push(cluster.name);
        }
        sharing.set(id, { kind: 'repeat', shownOn: first.cluster });
      });
    });
  });
  return sharing;
}

/** The diffs shown (first occurrences), grouped by cluster, with their sizes. */
export function diffGroups(changeSet: ChangeSet, sharing: ReadonlyMap<string, Sharing>, measure: Measure): ItemGroup[] {
  return changeSet.clusters.map((cluster, clusterIndex) => ({
    items: cluster.instances.flatMap((instance, instanceIndex) =>
      instance.changes.flatMap((change, objectIndex) => {
        const id = changeId(clusterIndex, instanceIndex, objectIndex);
        return sharing.get(id)?.kind === 'shown' ? [{ id, size: measure(change.diff) }] : [];
      }),
    ),
  }));
}

/** The id of a cluster's object list in a plan's allocation. */
export function objectListId(clusterIndex: number): string {
  return `objects:${clusterIndex}`;
}

/**
 * One group per cluster holding its object list as one item, sized by the lines that
 * `sizeOfLine` measures for each object.
 */
export function objectListGroups(
  changeSet: ChangeSet,
  sizeOfLine: (clusterIndex: number, instanceIndex: number, objectIndex: number) => number,
): ItemGroup[] {
  return changeSet.clusters.map((cluster, clusterIndex) => {
    let size = 0;
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((_, objectIndex) => {
        size += sizeOfLine(clusterIndex, instanceIndex, objectIndex);
      }),
    );
    return { items: [{ id: objectListId(clusterIndex), size }] };
  });
}

/** The room one cluster's object list may take at the `objects` detail of a report. */
export interface ObjectListRoom {
  /** True, and the room used, when a line of this size still fits (lines are taken in order). */
  take(size: number): boolean;
  /** How many lines did not fit. */
  omitted(): number;
}

/** Room for one cluster's object lines; no room given means unlimited. */
export function objectListRoom(room: number | undefined): ObjectListRoom {
  let remaining = room ?? Number.POSITIVE_INFINITY;
  let omitted = 0;
  return {
    take(size) {
      if (omitted === 0 && size <= remaining) {
        remaining -= size;
        return true;
      }
      omitted += 1;
      return false;
    },
    omitted: () => omitted,
  };
}

// ---------------------------------------------------------------------------------------
// The fit.

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

// ---------------------------------------------------------------------------------------
// The note near the top of a shortened report that says what was left out and where to
// find it.

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
