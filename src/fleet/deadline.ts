// Bounds the wait for one cluster's work by a deadline. The work is not cancelled (a request
// already sent stays sent); the run stops waiting for it, reports the cluster as failed, and
// goes on to publish what it has. The action's process ends after publishing, which also ends
// any work still in flight.

/** How long past its own time limit a cluster is waited for (its waits end by the limit themselves). */
export const CLUSTER_GRACE_MS = 2_000;

export function withinDeadline<T>(work: Promise<T>, deadlineAt: number, onDeadline: () => T): Promise<T> {
  if (!Number.isFinite(deadlineAt)) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onDeadline()), Math.max(0, deadlineAt - Date.now()));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
