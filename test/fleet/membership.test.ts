// The membership comparison (fleet/membership.ts): which clusters leave, which moved group,
// which were renamed (identity record, kube-system UID, one context), and which must not be
// deleted from because a staying cluster reaches them; and the reports of a leave
// (report/membership.ts, comment.ts), the review record that carries it, and a merge.
import { describe, expect, it } from 'vitest';
import type { Runtime, RuntimeCluster } from '../../src/bundle/index.js';
import type { ChangeSet, ClusterChanges } from '../../src/changeset.js';
import { compareMembership, decideMembership, removalCommands, type ClusterProbe } from '../../src/fleet/membership.js';
import { mergeChangeSets } from '../../src/fleet/merge.js';
import { renderPullRequestComment } from '../../src/report/comment.js';
import { parseReviewedRecord, reviewedBlock } from '../../src/report/reviewed-block.js';
import { rolloutOutcome } from '../../src/report/sections.js';

const cluster = (name: string, group: string, kubeContext = `ctx-${name}`): RuntimeCluster => ({
  name,
  group,
  kubeContext,
});
const runtime = (...clusters: RuntimeCluster[]): Runtime => ({
  name: 'fleet',
  clusters,
  queries: [],
  isDefault: false,
});

const base = runtime(cluster('staging-1', 'staging'), cluster('prod-1', 'production'), cluster('prod-2', 'production'));

describe('compareMembership', () => {
  it('finds a cluster listed at the base and missing at the head as leaving, in base order', () => {
    const head = runtime(cluster('staging-1', 'staging'), cluster('prod-1', 'production'));
    expect(compareMembership(base, head, {})).toEqual({
      leaving: [cluster('prod-2', 'production')],
      added: [],
      moved: [],
    });
  });

  it('does not take a cluster that moved to another group for a leave', () => {
    const head = runtime(
      cluster('staging-1', 'production'),
      cluster('prod-1', 'production'),
      cluster('prod-2', 'production'),
    );
    const found = compareMembership(base, head, { group: 'staging' });
    expect(found.leaving).toEqual([]);
    expect(found.moved).toEqual([{ name: 'staging-1', from: 'staging', to: 'production' }]);
  });

  it('selects a leaving cluster by the group and name it had at the base', () => {
    const head = runtime(cluster('staging-1', 'staging'));
    expect(compareMembership(base, head, { group: 'production' }).leaving.map((c) => c.name)).toEqual([
      'prod-1',
      'prod-2',
    ]);
    expect(compareMembership(base, head, { group: 'staging' }).leaving).toEqual([]);
    expect(compareMembership(base, head, { cluster: 'PROD-2' }).leaving.map((c) => c.name)).toEqual(['prod-2']);
  });

  it('lists the names the head adds as rename candidates', () => {
    const head = runtime(
      cluster('staging-1', 'staging'),
      cluster('prod-1', 'production'),
      cluster('prod-2b', 'production', 'ctx-new'),
    );
    expect(compareMembership(base, head, {})).toMatchObject({
      leaving: [cluster('prod-2', 'production')],
      added: [cluster('prod-2b', 'production', 'ctx-new')],
    });
  });
});

describe('decideMembership', () => {
  const head = runtime(
    cluster('staging-1', 'staging'),
    cluster('prod-1', 'production'),
    cluster('prod-2b', 'production', 'ctx-new'),
  );
  const comparison = compareMembership(base, head, {});
  const probes = (entries: Record<string, ClusterProbe>) => new Map(Object.entries(entries));

  it('takes a removed and an added cluster for a rename when the added one is recorded under the removed name', () => {
    const found = decideMembership(
      comparison,
      head,
      probes({
        'ctx-new': { uid: 'u-2', record: { runtimeCluster: 'prod-2', uid: 'u-2', recordedAt: '' } },
        'ctx-prod-2': { contextGone: true },
      }),
      'base',
    );
    expect(found.leaving).toEqual([]);
    expect(found.renames.map((r) => [r.from.name, r.to.name, r.by])).toEqual([['prod-2', 'prod-2b', 'record']]);
  });

  it('takes them for a rename when both contexts reach one kube-system UID (no record)', () => {
    const found = decideMembership(
      comparison,
      head,
      probes({ 'ctx-new': { uid: 'u-2', record: null }, 'ctx-prod-2': { uid: 'u-2', record: null } }),
      'base',
    );
    expect(found.renames.map((r) => r.by)).toEqual(['uid']);
  });

  it('never takes for a rename an added cluster whose record names a third cluster, even through the same context', () => {
    const sameContext = runtime(
      cluster('staging-1', 'staging'),
      cluster('prod-1', 'production'),
      cluster('prod-2b', 'production', 'ctx-prod-2'),
    );
    const found = decideMembership(
      compareMembership(base, sameContext, {}),
      sameContext,
      probes({ 'ctx-prod-2': { uid: 'u-s', record: { runtimeCluster: 'staging-1', uid: 'u-s', recordedAt: '' } } }),
      'base',
    );
    expect(found.renames).toEqual([]);
    expect(found.leaving.map((leave) => leave.cluster.name)).toEqual(['prod-2']);
    // ... and nothing is deleted through a context that a head cluster uses.
    expect(found.leaving[0]?.conflict).toContain('runtime cluster "prod-2b"');
  });

  it('keeps a leave when the added cluster is another cluster', () => {
    const found = decideMembership(
      comparison,
      head,
      probes({ 'ctx-new': { uid: 'u-9', record: null }, 'ctx-prod-2': { uid: 'u-2', record: null } }),
      'base',
    );
    expect(found.renames).toEqual([]);
    expect(found.leaving).toEqual([{ cluster: cluster('prod-2', 'production'), contextGone: false }]);
  });

  it('reports a leaving cluster whose context is gone, and never deletes from one a staying cluster reaches', () => {
    const gone = decideMembership(
      comparison,
      head,
      probes({ 'ctx-new': { uid: 'u-9' }, 'ctx-prod-2': { contextGone: true } }),
      'base',
    );
    expect(gone.leaving).toEqual([{ cluster: cluster('prod-2', 'production'), contextGone: true }]);
    const shared = decideMembership(
      comparison,
      head,
      probes({ 'ctx-new': { uid: 'u-9' }, 'ctx-prod-2': { uid: 'u-1' }, 'ctx-prod-1': { uid: 'u-1' } }),
      'base',
    );
    expect(shared.leaving[0]?.conflict).toContain('same cluster as runtime cluster "prod-1"');
  });

  it('says how to remove the bundle by hand', () => {
    expect(removalCommands('apps', cluster('prod-2', 'production'))).toEqual([
      'timoni bundle delete --name apps --kube-context ctx-prod-2',
      'timoni-fleet delete -f <bundle files> --cluster prod-2 --kube-context ctx-prod-2',
    ]);
  });
});

const module = { url: 'oci://registry.example/podinfo', version: '6.5.4', digest: 'sha256:' + 'a'.repeat(64) };
const desired = { digest: 'b'.repeat(64), modules: { podinfo: module }, objects: {}, objectCount: 1 };
const staying: ClusterChanges = {
  name: 'prod-1',
  group: 'production',
  kubeContext: 'ctx-prod-1',
  status: 'unchanged',
  error: null,
  instances: [],
  desired,
};
const leaving: ClusterChanges = {
  name: 'prod-2',
  group: 'production',
  kubeContext: 'ctx-prod-2',
  status: 'changed',
  error: null,
  membership: 'leaves',
  instances: [
    {
      name: 'podinfo',
      namespace: 'apps',
      module,
      removed: true,
      changes: [
        {
          kind: 'ConfigMap',
          apiVersion: 'v1',
          namespace: 'apps',
          name: 'podinfo',
          action: 'deleted',
          diff: '--- live\n+++ desired\n-data: 1\n',
        },
      ],
    },
  ],
};
const kept: ClusterChanges = {
  name: 'prod-3',
  group: 'production',
  kubeContext: 'gone',
  status: 'unchanged',
  error: null,
  membership: 'leaves',
  instances: [],
  bundleKept: {
    reason: 'its kube context "gone" is not in the kubeconfig: the bundle stays installed there',
    commands: removalCommands('apps', cluster('prod-3', 'production', 'gone')),
  },
};
const renamed: ClusterChanges = { ...staying, name: 'prod-4', membership: { renamedFrom: 'prod-0' } };
const diff: ChangeSet = {
  format: 1,
  bundle: 'apps',
  mode: 'diff',
  commit: 'f'.repeat(40),
  clusters: [staying, renamed, leaving, kept],
  membership: { from: 'runtime.cue at base commit abc1234' },
};

describe('the reports of a membership change', () => {
  const body = renderPullRequestComment(diff, { commitSha: 'f'.repeat(40), secrets: [] });

  it('gives a leaving cluster its own row and section, with what would be deleted', () => {
    expect(body).toContain(
      '| <code>prod-2</code> · 🚪 leaves the fleet | production | 0 | 0 | 1 | 0 | 🗑️ bundle to be removed |',
    );
    expect(body).toContain(
      '🚪 **Leaves the fleet** (listed in runtime.cue at base commit abc1234, not in the runtime)',
    );
    expect(body).toContain('leaves with the cluster: 1 object would be deleted');
  });

  it('says that the bundle stays installed on a cluster whose context is gone, with the commands', () => {
    expect(body).toContain('⚠️ leaves; bundle stays installed');
    expect(body).toContain('timoni bundle delete --name apps --kube-context gone');
  });

  it('shows a rename', () => {
    expect(body).toContain('| <code>prod-4</code> · renamed from <code>prod-0</code> |');
    expect(body).toContain('↪️ **Renamed** from <code>prod-0</code>');
  });

  it('warns when the base runtime could not be read', () => {
    const warned = renderPullRequestComment(
      { ...diff, clusters: [staying], membership: { warning: 'runtime.cue at base commit abc1234 does not evaluate' } },
      { commitSha: 'f'.repeat(40), secrets: [] },
    );
    expect(warned).toContain(
      '> Fleet membership not compared (no cluster is shown leaving the fleet): runtime.cue at base commit abc1234 does not evaluate',
    );
  });

  it('records the leave and the rename in the review record (not a leave whose bundle stays)', () => {
    const record = parseReviewedRecord(`x\n${reviewedBlock(diff)}`);
    expect(record?.leaves).toEqual(['prod-2']);
    expect(record?.renames).toEqual({ 'prod-4': 'prod-0' });
  });

  it('tells a rollout apart from the removal of the bundle from leaving clusters', () => {
    const applied = (entry: ClusterChanges): ClusterChanges => ({ ...entry, status: 'applied' });
    expect(rolloutOutcome([applied(staying), applied(leaving), kept])).toBe(
      '✅ Applied to 1 of 1 clusters; bundle removed from 1 of 2 clusters leaving the fleet',
    );
    expect(rolloutOutcome([applied(staying)])).toBe('✅ Applied to 1 of 1 clusters');
  });

  it('keeps leaving clusters when shard ChangeSets are merged, after the runtime clusters', () => {
    const files = [
      { file: 'a.json', changeSet: { ...diff, clusters: [leaving] } },
      { file: 'b.json', changeSet: { ...diff, clusters: [staying] } },
    ];
    const merged = mergeChangeSets({
      files,
      clusters: [cluster('prod-1', 'production')],
      shards: [],
      commit: 'f'.repeat(40),
    });
    expect(merged.changeSet.clusters.map((c) => [c.name, c.membership ?? null])).toEqual([
      ['prod-1', null],
      ['prod-2', 'leaves'],
    ]);
    expect(merged.changeSet.membership).toEqual(diff.membership);
  });
});
