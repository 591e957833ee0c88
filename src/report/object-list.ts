// The room each cluster's object list may take at the `objects` detail of a report.

/** The id of a cluster's object list in a plan's allocation. */
export function objectListId(clusterIndex: number): string {
  return `objects:${clusterIndex}`;
}

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
