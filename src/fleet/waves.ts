// Rollout waves (`strategy: waves`): the selected clusters cut into waves, a wave being the
// consecutive clusters of one runtime group (so runtime order decides, as it does for the
// sequential rollout: staging, then production). The clusters of a wave are applied at
// once, at most `maxParallel` at a time; the next wave starts only when every cluster of
// this one is applied. When a cluster fails, the clusters of its wave already in flight
// finish (an apply is not cut in the middle), none that waits for a free slot starts, and
// every later wave is not reached (`skipped`). The run's deadline and its cancellation are
// checked before each cluster starts, as in the sequential rollout. Each cluster's lines are collected while it
// runs and printed as one group when it ends, so that clusters running at once never
// interleave their logs. Entries come back in runtime order, whatever order clusters end in.
// With a soak (soak.ts), a wave whose clusters were all applied is watched for the soak's
// duration before the next wave starts; a cluster that turns not ready stops the rollout.
import type { RuntimeCluster } from '../bundle/index.js';
import { cancellationOf, type RunCancelled } from '../cancellation.js';
import { CANCELLED_STEP, type ClusterChanges } from '../changeset.js';
import { mapBounded } from '../concurrency.js';
import { clusterEntry, skippedEntry } from './outcome.js';
import { BufferedLog, runStopped, type FleetLog, type RunStop } from './fleet-run.js';

export interface Wave {
  group: string;
  clusters: RuntimeCluster[];
}

/** The consecutive clusters of one group, in the order given (runtime order). */
export function splitIntoWaves(clusters: readonly RuntimeCluster[]): Wave[] {
  const waves: Wave[] = [];
  for (const cluster of clusters) {
    const last = waves[waves.length - 1];
    if (last && last.group === cluster.group) last.clusters.push(cluster);
    else waves.push({ group: cluster.group, clusters: [cluster] });
  }
  return waves;
}

/** The entry of a cluster that the run's deadline, or its cancellation, kept from starting. */
export function stoppedEntry(cluster: RuntimeCluster, stop: RunStop, cancelled?: RunCancelled): ClusterChanges {
  if (stop === 'cancelled') {
    const message = `${cancelled?.message ?? 'the run was cancelled'} before cluster ${cluster.name} was started; nothing was applied to it`;
    return clusterEntry(cluster, 'failed', [], { step: CANCELLED_STEP, interrupted: 'start', message }, Date.now());
  }
  return clusterEntry(
    cluster,
    'failed',
    [],
    {
      step: 'deadline',
      message: `the run passed its deadline before reaching cluster ${cluster.name}; nothing was applied to it`,
    },
    Date.now(),
  );
}

export interface WaveOptions {
  /** Clusters of one wave applied at once (1 or more). */
  maxParallel: number;
  /** Where each cluster's lines go, as one group per cluster, and the waves' own lines. */
  log: FleetLog;
  /** The run's deadline (epoch milliseconds): no cluster starts after it. */
  deadlineAt?: number | undefined;
  /** The run's cancellation: no cluster starts after it either. */
  cancel?: AbortSignal | undefined;
  /**
   * The soak gate (soak.ts): called with a wave's entries once every cluster of it was
   * applied, before the next wave; answers them with the clusters that turned not ready failed.
   */
  soak?: ((entries: ClusterChanges[], what: string) => Promise<ClusterChanges[]>) | undefined;
  /**
   * Called once with the entries of the wave that failed, once all its clusters ended
   * (`on-failure: rollback`: its clusters put back, rollback.ts); answers them as they end up.
   */
  afterFailedWave?: (entries: ClusterChanges[]) => Promise<ClusterChanges[]>;
}

/** One cluster's whole rollout, within its time limit, telling its lines to `line`; never rejects for a cluster's failure. */
export type ClusterRollout = (cluster: RuntimeCluster, line: (text: string) => void) => Promise<ClusterChanges>;

export async function rollOutWaves(
  clusters: readonly RuntimeCluster[],
  options: WaveOptions,
  rollOut: ClusterRollout,
): Promise<ClusterChanges[]> {
  if (!Number.isInteger(options.maxParallel) || options.maxParallel < 1) {
    throw new Error(
      `rollout waves: maxParallel must be a whole number of clusters, 1 or more, not ${options.maxParallel}`,
    );
  }
  const waves = splitIntoWaves(clusters);
  const entries: ClusterChanges[] = [];
  let stopped = false;
  let stoppedIn: Wave | undefined;
  for (const [index, wave] of waves.entries()) {
    if (stopped) {
      entries.push(...wave.clusters.map(skippedEntry));
      continue;
    }
    const parallel = Math.min(options.maxParallel, wave.clusters.length);
    options.log.line(
      `wave ${index + 1} of ${waves.length}: group ${wave.group}, ${wave.clusters.length} cluster(s), ${parallel} at a time`,
    );
    const results = await mapBounded(wave.clusters, options.maxParallel, async (cluster) => {
      // A cluster that waited for a free slot does not start once another one of its wave failed.
      if (stopped) return skippedEntry(cluster);
      const stop = runStopped(options);
      if (stop) {
        stopped = true;
        return stoppedEntry(cluster, stop, cancellationOf(options.cancel));
      }
      const log = new BufferedLog();
      let status = 'error';
      try {
        const entry = await rollOut(cluster, (text) => log.line(text));
        status = entry.status;
        return entry;
      } finally {
        if (status !== 'applied') stopped = true;
        log.flushInto(options.log, `cluster ${cluster.name} (${cluster.group}): ${status}`);
      }
    });
    const soaked =
      !stopped && options.soak
        ? await options.soak(results, `wave ${index + 1} of ${waves.length} (group ${wave.group})`)
        : results;
    if (soaked.some((entry) => entry.status !== 'applied')) stopped = true;
    // A wave that failed (in its apply or in its soak) is put back when asked (on-failure: rollback).
    if (stopped && !stoppedIn && options.afterFailedWave) entries.push(...(await options.afterFailedWave(soaked)));
    else entries.push(...soaked);
    if (stopped) stoppedIn ??= wave;
  }
  if (stoppedIn) {
    const failed = entries.filter((entry) => entry.status === 'failed').map((entry) => entry.name);
    const skipped = entries.filter((entry) => entry.status === 'skipped').map((entry) => entry.name);
    options.log.line(
      `rollout stopped in the wave of group ${stoppedIn.group}: failed ${failed.join(', ')}; not reached: ${skipped.length > 0 ? skipped.join(', ') : 'none'}`,
    );
  }
  return entries;
}
