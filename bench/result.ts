/** One figure of `npm run bench`. */
export interface BenchResult {
  name: string;
  /** Median wall time of one run, in milliseconds. */
  median_ms: number;
  runs: number;
  note?: string;
  /** The unit of `median_ms` when the figure is not a time (e.g. `MiB`); milliseconds unless given. */
  unit?: string;
}

/** Median of a non-empty list of numbers. */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
