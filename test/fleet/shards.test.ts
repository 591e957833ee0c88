import { describe, expect, it } from 'vitest';
import { NoClusterMatchesError, type Runtime, type RuntimeCluster } from '../../src/bundle/index.js';
import {
  matrixOutput,
  parseShardBy,
  selectionShards,
  selectShardRuntime,
  shardClusters,
  ShardByError,
} from '../../src/fleet/shards.js';

const cluster = (name: string, group: string): RuntimeCluster => ({ name, group, kubeContext: `ctx-${name}` });

const runtime: Runtime = {
  name: 'fleet',
  queries: [],
  isDefault: false,
  clusters: [
    cluster('staging-1', 'staging'),
    cluster('production-eu', 'production'),
    cluster('canary-1', 'canary'),
    cluster('production-us', 'production'),
    cluster('production-ap', 'production'),
  ],
};

const names = (clusters: readonly RuntimeCluster[]) => clusters.map((c) => c.name);

describe('parseShardBy', () => {
  it('reads group (the default), cluster and a number of shards', () => {
    expect(parseShardBy('')).toEqual({ kind: 'group' });
    expect(parseShardBy('group')).toEqual({ kind: 'group' });
    expect(parseShardBy('cluster')).toEqual({ kind: 'cluster' });
    expect(parseShardBy(' 3 ')).toEqual({ kind: 'count', count: 3 });
  });

  it('refuses anything else, saying what is accepted', () => {
    for (const text of ['groups', '0', '-2', '1.5', '257']) expect(() => parseShardBy(text)).toThrow(ShardByError);
    expect(() => parseShardBy('zone')).toThrow(
      'must be group, cluster or a whole number of shards from 1 to 256, not "zone"',
    );
  });
});

describe('shardClusters', () => {
  it('by group: one shard per group in the order the runtime first names it, with all its clusters', () => {
    const shards = shardClusters(runtime.clusters, { kind: 'group' });
    expect(shards.map((s) => [s.name, s.runtimeGroup, s.runtimeCluster, names(s.clusters)])).toEqual([
      ['staging', 'staging', '*', ['staging-1']],
      ['production', 'production', '*', ['production-eu', 'production-us', 'production-ap']],
      ['canary', 'canary', '*', ['canary-1']],
    ]);
  });

  it('by cluster: one shard per cluster in runtime order', () => {
    const shards = shardClusters(runtime.clusters, { kind: 'cluster' });
    expect(shards.map((s) => [s.name, s.runtimeGroup, s.runtimeCluster])).toEqual(
      names(runtime.clusters).map((n) => [n, '*', n]),
    );
  });

  it('by number: consecutive clusters, sizes differing by at most one, the first shards larger', () => {
    const shards = shardClusters(runtime.clusters, { kind: 'count', count: 3 });
    expect(shards.map((s) => [s.name, names(s.clusters)])).toEqual([
      ['1-of-3', ['staging-1', 'production-eu']],
      ['2-of-3', ['canary-1', 'production-us']],
      ['3-of-3', ['production-ap']],
    ]);
    expect(shards[0]?.runtimeCluster).toBe('staging-1,production-eu');
    expect(shards.every((s) => s.runtimeGroup === '*')).toBe(true);
  });

  it('never makes more shards than clusters, nor an empty one', () => {
    const shards = shardClusters(runtime.clusters.slice(0, 2), { kind: 'count', count: 8 });
    expect(shards.map((s) => s.name)).toEqual(['1-of-2', '2-of-2']);
    expect(shardClusters([], { kind: 'group' })).toEqual([]);
  });
});

describe('matrixOutput', () => {
  it('is JSON with an include entry per shard, named as the action inputs', () => {
    const matrix = JSON.parse(matrixOutput(shardClusters(runtime.clusters, { kind: 'count', count: 2 }))) as {
      include: Array<Record<string, string>>;
    };
    expect(matrix.include).toEqual([
      {
        shard: '1-of-2',
        'runtime-group': '*',
        'runtime-cluster': 'staging-1,production-eu,canary-1',
        clusters: 'staging-1,production-eu,canary-1',
      },
      {
        shard: '2-of-2',
        'runtime-group': '*',
        'runtime-cluster': 'production-us,production-ap',
        clusters: 'production-us,production-ap',
      },
    ]);
  });
});

describe('selectShardRuntime', () => {
  it('keeps a single name or * as it is', () => {
    expect(selectShardRuntime(runtime, { group: '*', cluster: 'canary-1' })).toEqual({
      runtime,
      selector: { group: '*', cluster: 'canary-1' },
    });
  });

  it('restricts the runtime to the listed clusters, in runtime order, case-insensitively', () => {
    const selected = selectShardRuntime(runtime, { group: '*', cluster: 'production-us, STAGING-1' });
    expect(names(selected.runtime.clusters)).toEqual(['staging-1', 'production-us']);
    expect(selected.selector).toEqual({ group: '*', cluster: '*' });
  });

  it('refuses a listed name that is not a cluster of the runtime, naming it', () => {
    expect(() => selectShardRuntime(runtime, { group: '*', cluster: 'staging-1,staging-2' })).toThrow(
      NoClusterMatchesError,
    );
    expect(() => selectShardRuntime(runtime, { group: '*', cluster: 'staging-1,staging-2' })).toThrow(
      'cluster "staging-2"',
    );
  });

  it('each shard of the matrix selects exactly its clusters again', () => {
    for (const by of [{ kind: 'group' }, { kind: 'cluster' }, { kind: 'count', count: 2 }] as const) {
      for (const shard of shardClusters(runtime.clusters, by)) {
        const again = selectionShards(runtime, { group: shard.runtimeGroup, cluster: shard.runtimeCluster }, by);
        expect(names(again.clusters)).toEqual(names(shard.clusters));
      }
    }
  });
});
