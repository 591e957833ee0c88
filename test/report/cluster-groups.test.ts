// Grouping clusters with the same change (src/report/cluster-groups.ts): when it applies,
// what counts as the same change, and a cluster's own name set aside.

import { describe, expect, it } from 'vitest';
import { GROUPING_MIN_CLUSTERS, groupClusters, groupMembers, groupRepresentatives } from '../../src/report/cluster-groups.js';
import { changeSet, cluster, created, instance, podinfoInstance } from './fixtures.js';

const none = new Set<string>();

/** A cluster whose one ConfigMap names the cluster (as a bundle reading TIMONI_CLUSTER_NAME does). */
function naming(name: string, group = 'production', text = name) {
  return cluster(name, group, [instance('web', [created('ConfigMap', 'web', ['data:', `  cluster: ${text}`])], undefined, `web-${text}`)]);
}

describe('groupClusters', () => {
  it('applies from GROUPING_MIN_CLUSTERS clusters on, and only when two clusters share a change', () => {
    expect(GROUPING_MIN_CLUSTERS).toBe(10);
    const alike = (count: number) => changeSet(Array.from({ length: count }, (_, i) => cluster(`c-${i}`, 'g', [podinfoInstance([1, 2])])));
    expect(groupClusters(alike(9), none)).toBeUndefined();
    expect(groupClusters(alike(10), none)).toEqual([{ members: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], byName: false }]);
    const distinct = changeSet(Array.from({ length: 12 }, (_, i) => cluster(`c-${i}`, 'g', [podinfoInstance([1, i + 2])])));
    expect(groupClusters(distinct, none)).toBeUndefined();
  });

  it('keeps runtime groups, statuses and changed secrets apart, and orders groups by their first cluster', () => {
    const set = changeSet([
      ...Array.from({ length: 4 }, (_, i) => cluster(`s-${i}`, 'staging', [podinfoInstance([1, 2])])),
      ...Array.from({ length: 6 }, (_, i) => cluster(`p-${i}`, 'production', [podinfoInstance([1, 2])])),
      cluster('p-failed', 'production', [podinfoInstance([1, 2])], { status: 'failed', error: { step: 'diff', message: 'refused' } }),
    ]);
    // The HPA (instance 0, object 3) of p-5 changes secret data: p-5 is not like the others.
    const groups = groupClusters(set, new Set(['9/0/3']));
    expect(groups?.map((group) => group.members)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7, 8], [9], [10]]);
    const shown = groupRepresentatives(set, groups ?? []);
    expect(shown.clusters.map((entry) => entry.name)).toEqual(['s-0', 'p-0', 'p-5', 'p-failed']);
    expect(groupMembers(set, groups ?? [])[1]?.map((entry) => entry.name)).toEqual(['p-0', 'p-1', 'p-2', 'p-3', 'p-4']);
  });

  it("sets each cluster's own name aside, as a whole word only", () => {
    const names = ['production-1', ...Array.from({ length: 9 }, (_, i) => `production-${i + 2}`), 'production-10x'];
    const set = changeSet([...names.map((name) => naming(name)), naming('production-11', 'production', 'production-1')]);
    const groups = groupClusters(set, none);
    // production-10x names itself too; production-11 names production-1, not itself: it stands alone.
    expect(groups?.map((group) => group.members.length)).toEqual([11, 1]);
    expect(groups?.[0]?.byName).toBe(true);
    expect(groups?.[1]?.members).toEqual([11]);
  });

  it('does not count durations, kube contexts or how long readiness took', () => {
    const ready = (name: string, durationMs: number) => {
      const entry = cluster(name, 'g', [instance('web', [{ ...created('ConfigMap', 'web', []), readiness: { status: 'Current' as const, message: 'ready', durationMs } }])], {
        status: 'applied',
        durationMs,
        kubeContext: `ctx-${durationMs}`,
      });
      return entry;
    };
    const set = changeSet(Array.from({ length: 10 }, (_, i) => ready(`c-${i}`, i * 100)), 'apply');
    expect(groupClusters(set, none)).toEqual([{ members: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], byName: false }]);
  });
});
