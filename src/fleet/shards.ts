// Shards: the selected clusters of a runtime split for a fan-out across GitHub Actions
// matrix jobs, each job diffing (or applying) one shard and uploading its ChangeSet, one
// report job merging them (merge.ts). The split is a pure function of the runtime and
// `shard-by`, so the report job computes the same shards as the job that printed the
// matrix, and can name a shard whose job uploaded nothing.
//
// - `group`: one shard per runtime group, groups in the order the runtime first names them;
// - `cluster`: one shard per cluster, in runtime order;
// - a number N: N shards of consecutive clusters in runtime order, sizes differing by at
//   most one (the first shards take the extra clusters); never more shards than clusters.
//
// Each shard says how a matrix job selects it with the action's own inputs: `runtime-group`
// and `runtime-cluster`, the latter a comma-separated list of cluster names for a numbered
// shard (selectShardRuntime reads that list).
import {
  NoClusterMatchesError,
  selectClusters,
  type ClusterSelector,
  type Runtime,
  type RuntimeCluster,
} from '../bundle/index.js';
import { quote } from '../display-text.js';

export type ShardBy = { kind: 'group' } | { kind: 'cluster' } | { kind: 'count'; count: number };

export interface Shard {
  /** The shard's name: the group, the cluster, or `N-of-M`; safe in an artifact name. */
  name: string;
  /** What the matrix job gives the action as `runtime-group`. */
  runtimeGroup: string;
  /** What the matrix job gives the action as `runtime-cluster` (`*`, a name, or names separated by commas). */
  runtimeCluster: string;
  clusters: RuntimeCluster[];
}

export class ShardByError extends Error {
  override name = 'ShardByError';
}

/** The largest number of shards accepted: GitHub runs at most 256 jobs of one matrix. */
export const MAX_SHARDS = 256;

/** `group`, `cluster` or a whole number of shards from 1 to MAX_SHARDS. */
export function parseShardBy(text: string): ShardBy {
  const value = text.trim();
  if (value === '' || value === 'group') return { kind: 'group' };
  if (value === 'cluster') return { kind: 'cluster' };
  if (/^\d+$/.test(value)) {
    const count = Number(value);
    if (count >= 1 && count <= MAX_SHARDS) return { kind: 'count', count };
  }
  throw new ShardByError(
    `must be group, cluster or a whole number of shards from 1 to ${MAX_SHARDS}, not ${quote(text)}`,
  );
}

function byGroup(clusters: readonly RuntimeCluster[]): Shard[] {
  const groups = new Map<string, RuntimeCluster[]>();
  for (const cluster of clusters) {
    const members = groups.get(cluster.group);
    if (members) members.push(cluster);
    else groups.set(cluster.group, [cluster]);
  }
  return [...groups].map(([group, members]) => ({
    name: group || '(no group)',
    runtimeGroup: group || '*',
    runtimeCluster: group ? '*' : members.map((c) => c.name).join(','),
    clusters: members,
  }));
}

function byCount(clusters: readonly RuntimeCluster[], count: number): Shard[] {
  const shards = Math.min(count, clusters.length);
  const base = Math.floor(clusters.length / shards);
  const extra = clusters.length % shards;
  const result: Shard[] = [];
  let start = 0;
  for (let index = 0; index < shards; index++) {
    const size = base + (index < extra ? 1 : 0);
    const members = clusters.slice(start, start + size);
    start += size;
    result.push({
      name: `${index + 1}-of-${shards}`,
      runtimeGroup: '*',
      runtimeCluster: members.map((c) => c.name).join(','),
      clusters: members,
    });
  }
  return result;
}

/** The shards of the given clusters (already selected, in runtime order). */
export function shardClusters(clusters: readonly RuntimeCluster[], by: ShardBy): Shard[] {
  if (clusters.length === 0) return [];
  switch (by.kind) {
    case 'group':
      return byGroup(clusters);
    case 'cluster':
      return clusters.map((cluster) => ({
        name: cluster.name,
        runtimeGroup: '*',
        runtimeCluster: cluster.name,
        clusters: [cluster],
      }));
    case 'count':
      return byCount(clusters, by.count);
  }
}

/** One entry of the matrix's `include` list, named as the action's inputs are. */
export interface MatrixEntry {
  shard: string;
  'runtime-group': string;
  'runtime-cluster': string;
  /** The shard's clusters, separated by commas (for job names and artifact names). */
  clusters: string;
}

/** The `matrix` output: JSON for `strategy.matrix: ${{ fromJSON(...) }}`. */
export function matrixOutput(shards: readonly Shard[]): string {
  const include: MatrixEntry[] = shards.map((shard) => ({
    shard: shard.name,
    'runtime-group': shard.runtimeGroup,
    'runtime-cluster': shard.runtimeCluster,
    clusters: shard.clusters.map((c) => c.name).join(','),
  }));
  return JSON.stringify({ include });
}

/**
 * The runtime as the action's `runtime-group` / `runtime-cluster` select it, where
 * `runtime-cluster` may name several clusters separated by commas (a numbered shard):
 * the runtime keeps only those clusters, in runtime order, and the selector returned
 * selects all of them. Every listed name must be a cluster of the runtime (case-insensitive,
 * as Timoni matches names), or NoClusterMatchesError names the one that is not.
 */
export function selectShardRuntime(
  runtime: Runtime,
  selector: Required<ClusterSelector>,
): { runtime: Runtime; selector: Required<ClusterSelector> } {
  const names = selector.cluster
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length <= 1) return { runtime, selector: { group: selector.group, cluster: names[0] ?? selector.cluster } };
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  for (const name of names) {
    if (!runtime.clusters.some((cluster) => cluster.name.toLowerCase() === name.toLowerCase()))
      throw new NoClusterMatchesError(runtime, { cluster: name });
  }
  const clusters = runtime.clusters.filter((cluster) => wanted.has(cluster.name.toLowerCase()));
  const restricted = { ...runtime, clusters };
  // The group still applies; selecting here makes an empty selection fail as usual.
  selectClusters(restricted, { group: selector.group });
  return { runtime: restricted, selector: { group: selector.group, cluster: '*' } };
}

/** The clusters the inputs select (runtime-cluster may list several) and their shards. */
export function selectionShards(
  runtime: Runtime,
  selector: Required<ClusterSelector>,
  by: ShardBy,
): { runtime: Runtime; selector: Required<ClusterSelector>; clusters: RuntimeCluster[]; shards: Shard[] } {
  const selection = selectShardRuntime(runtime, selector);
  const clusters = selectClusters(selection.runtime, selection.selector);
  return { ...selection, clusters, shards: shardClusters(clusters, by) };
}
