// Bounded concurrency, the one pool of the project: work runs over many items with at most
// `limit` in flight, and results come back in the items' order whatever order they settle in.
// Used for the objects of one instance (dry-runs), the namespaces of a cluster (listings) and
// the clusters of a plan.

/** Settles `work` for every item, at most `limit` at once; answers the outcomes in item order. */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await work(items[index] as T, index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * Runs `work` for every item, at most `limit` at once, and answers the results in item
 * order. When some fail, the others still run to their end (nothing is left running in the
 * background) and the first failure in item order is thrown.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const outcomes = await settleBounded(items, limit, work);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<R>).value);
}
