// Fair division of a size budget among diffs ("water filling", max-min fairness): every
// demand at or below the equal share is met in full, and what remains is divided equally
// among the larger ones. A small diff is never cut to feed a large one.

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
