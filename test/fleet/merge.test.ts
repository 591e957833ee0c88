import { describe, expect, it } from 'vitest';
import type { RuntimeCluster } from '../../src/bundle/index.js';
import { CHANGESET_FORMAT, type ChangeSet } from '../../src/changeset.js';
import { mergeChangeSets, ChangeSetMergeError, type ChangeSetFile } from '../../src/fleet/merge.js';
import { shardClusters } from '../../src/fleet/shards.js';
import { brokenInstanceFleet, changeSet, cluster, podinfoInstance } from '../report/fixtures.js';

const runtimeClusters: RuntimeCluster[] = [
  { name: 'staging-eu-1', group: 'staging', kubeContext: 'kind-staging-eu-1' },
  { name: 'production-eu-1', group: 'production', kubeContext: 'kind-production-eu-1' },
  { name: 'production-us-1', group: 'production', kubeContext: 'kind-production-us-1' },
];

const entry = (name: string, group: string) => cluster(name, group, [podinfoInstance([1, 2])], { durationMs: 1200 });
/** The commit the report runs on, as every matrix job of its run records it. */
const RUN = 'abc123';
const withCommit = (set: ChangeSet, commit = RUN): ChangeSet => ({ ...set, commit });
const file = (name: string, set: ChangeSet): ChangeSetFile => ({ file: name, changeSet: set });

const staging = file('changes-staging/changes.json', withCommit(changeSet([entry('staging-eu-1', 'staging')])));
const productionUs = file('changes-us/changes.json', withCommit(changeSet([entry('production-us-1', 'production')])));
const productionEu = file('changes-eu/changes.json', withCommit(changeSet([entry('production-eu-1', 'production')])));

const byCluster = shardClusters(runtimeClusters, { kind: 'cluster' });
const byGroup = shardClusters(runtimeClusters, { kind: 'group' });

describe('mergeChangeSets', () => {
  it('puts the clusters of all files in runtime order, whatever the order of the files, as one ChangeSet', () => {
    const { changeSet: merged, missing } = mergeChangeSets({
      files: [productionUs, staging, productionEu],
      clusters: runtimeClusters,
      shards: byCluster,
      commit: RUN,
    });
    expect(missing).toEqual([]);
    expect(merged).toEqual({
      format: CHANGESET_FORMAT,
      bundle: 'apps',
      mode: 'diff',
      commit: 'abc123',
      clusters: [staging.changeSet.clusters[0], productionEu.changeSet.clusters[0], productionUs.changeSet.clusters[0]],
    });
  });

  it("keeps a broken instance's error as its shard wrote it (InstanceChanges.error)", () => {
    const broken = brokenInstanceFleet();
    const files = broken.clusters.map((entry, index) =>
      file(`changes-${index}/changes.json`, withCommit(changeSet([entry]))),
    );
    const { changeSet: merged } = mergeChangeSets({ files, clusters: runtimeClusters, shards: byCluster, commit: RUN });
    expect(merged.clusters).toEqual(broken.clusters);
    expect(merged.clusters[1]?.instances[0]?.error).toMatchObject({ step: 'build' });
  });

  it('equals the ChangeSet one job over all clusters would have written', () => {
    const single = withCommit(
      changeSet([
        entry('staging-eu-1', 'staging'),
        entry('production-eu-1', 'production'),
        entry('production-us-1', 'production'),
      ]),
    );
    expect(
      mergeChangeSets({
        files: [staging, productionEu, productionUs],
        clusters: runtimeClusters,
        shards: byGroup,
        commit: RUN,
      }).changeSet,
    ).toEqual(single);
  });

  it('enters a missing shard as failed clusters that name the shard and the clusters it should have covered', () => {
    const { changeSet: merged, missing } = mergeChangeSets({
      files: [staging],
      clusters: runtimeClusters,
      shards: byGroup,
      commit: RUN,
    });
    expect(missing).toEqual([{ shard: 'production', clusters: ['production-eu-1', 'production-us-1'] }]);
    const message =
      'no ChangeSet from the matrix job of shard "production" (clusters production-eu-1, production-us-1): did that job fail before uploading?';
    expect(merged.clusters.map((c) => [c.name, c.status, c.error])).toEqual([
      ['staging-eu-1', 'changed', null],
      ['production-eu-1', 'failed', { step: 'report', message }],
      ['production-us-1', 'failed', { step: 'report', message }],
    ]);
    expect(merged.clusters[1]).toMatchObject({
      group: 'production',
      kubeContext: 'kind-production-eu-1',
      instances: [],
    });
  });

  it('asks about a job not run after an earlier failure in a rollout', () => {
    const applied = file(
      'staging.json',
      withCommit(changeSet([cluster('staging-eu-1', 'staging', [], { status: 'failed' })], 'apply')),
    );
    const { changeSet: merged } = mergeChangeSets({
      files: [applied],
      clusters: runtimeClusters,
      shards: byCluster,
      commit: RUN,
    });
    expect(merged.mode).toBe('apply');
    expect(merged.clusters[1]?.error?.message).toBe(
      'no ChangeSet from the matrix job of shard "production-eu-1" (cluster production-eu-1): did that job fail before uploading, or was it not run after an earlier failure?',
    );
  });

  it('refuses a cluster present in two files, naming both files and the cluster', () => {
    const again = file('old/changes.json', withCommit(changeSet([entry('production-eu-1', 'production')])));
    expect(() =>
      mergeChangeSets({
        files: [staging, productionEu, again],
        clusters: runtimeClusters,
        shards: byCluster,
        commit: RUN,
      }),
    ).toThrow('cluster "production-eu-1" is in two ChangeSet files, changes-eu/changes.json and old/changes.json');
  });

  it('refuses a ChangeSet of a newer format, of another bundle or mode', () => {
    const newer = file('newer.json', { ...staging.changeSet, format: CHANGESET_FORMAT + 1 });
    expect(() =>
      mergeChangeSets({ files: [newer], clusters: runtimeClusters, shards: byCluster, commit: RUN }),
    ).toThrow(`newer.json: ChangeSet format ${CHANGESET_FORMAT + 1} is newer than this timoni-fleet reads`);
    const other = file('other.json', withCommit(changeSet([entry('production-eu-1', 'production')], 'diff', 'infra')));
    expect(() =>
      mergeChangeSets({ files: [staging, other], clusters: runtimeClusters, shards: byCluster, commit: RUN }),
    ).toThrow('other.json: is of bundle "infra", but changes-staging/changes.json is of bundle "apps"');
    const apply = file('apply.json', withCommit(changeSet([entry('production-eu-1', 'production')], 'apply')));
    expect(() =>
      mergeChangeSets({ files: [staging, apply], clusters: runtimeClusters, shards: byCluster, commit: RUN }),
    ).toThrow(ChangeSetMergeError);
  });

  it('keeps the target of a rollback to a revision, and refuses files that disagree on it', () => {
    const rollback = { instance: 'podinfo', revision: 2 };
    const rolled = (f: ChangeSetFile): ChangeSetFile => file(f.file, { ...f.changeSet, rollback });
    const { changeSet: merged } = mergeChangeSets({
      files: [rolled(staging), rolled(productionEu), rolled(productionUs)],
      clusters: runtimeClusters,
      shards: byCluster,
      commit: RUN,
    });
    expect(merged.rollback).toEqual(rollback);
    expect(() =>
      mergeChangeSets({
        files: [rolled(staging), productionEu, rolled(productionUs)],
        clusters: runtimeClusters,
        shards: byCluster,
        commit: RUN,
      }),
    ).toThrow(
      'changes-eu/changes.json: is "no rollback", but changes-staging/changes.json is "a rollback {\\"instance\\":\\"podinfo\\",\\"revision\\":2}"',
    );
  });

  it("accepts only the run's commit: another commit, no commit, or a run without a commit is refused, naming the file", () => {
    const older = file('older.json', withCommit(changeSet([entry('production-eu-1', 'production')]), 'def456'));
    expect(() =>
      mergeChangeSets({ files: [staging, older], clusters: runtimeClusters, shards: byCluster, commit: RUN }),
    ).toThrow('older.json: is of commit "def456", this report runs on commit abc123');
    expect(() =>
      mergeChangeSets({ files: [staging], clusters: runtimeClusters, shards: byCluster, commit: 'fff000' }),
    ).toThrow('changes-staging/changes.json: is of commit "abc123", this report runs on commit fff000');
    // A ChangeSet the pull request committed, for a shard whose job never ran: no commit, refused
    // before any of its clusters counts, even beside files of the right commit.
    const { commit: _commit, ...forged } = productionEu.changeSet;
    expect(() =>
      mergeChangeSets({
        files: [staging, file('changesets/forged/changes.json', forged), productionUs],
        clusters: runtimeClusters,
        shards: byCluster,
        commit: RUN,
      }),
    ).toThrow(
      /^changesets\/forged\/changes\.json: has no commit; a matrix job records the run's commit \(GITHUB_SHA\)/,
    );
    expect(() =>
      mergeChangeSets({
        files: [file('empty.json', { ...productionEu.changeSet, commit: '' })],
        clusters: runtimeClusters,
        shards: byCluster,
        commit: RUN,
      }),
    ).toThrow('empty.json: has no commit');
    // GITHUB_SHA is always set in GitHub Actions: a run without one binds nothing, so accepts nothing.
    expect(() =>
      mergeChangeSets({ files: [staging], clusters: runtimeClusters, shards: byCluster, commit: '' }),
    ).toThrow('changes-staging/changes.json: this report runs without a commit (GITHUB_SHA is empty)');
    expect(() =>
      mergeChangeSets({ files: [staging], clusters: runtimeClusters, shards: byCluster, commit: '' }),
    ).toThrow(ChangeSetMergeError);
  });

  it('refuses a file without a format, and a cluster the report does not cover', () => {
    const { format: _format, ...unversioned } = staging.changeSet;
    expect(() =>
      mergeChangeSets({
        files: [file('plain.json', unversioned as ChangeSet)],
        clusters: runtimeClusters,
        shards: byCluster,
        commit: RUN,
      }),
    ).toThrow('plain.json: not a ChangeSet file');
    expect(() =>
      mergeChangeSets({ files: [staging], clusters: runtimeClusters.slice(1), shards: byCluster, commit: RUN }),
    ).toThrow(
      'changes-staging/changes.json: cluster "staging-eu-1" is not among the clusters this report covers (production-eu-1, production-us-1)',
    );
  });

  it('takes the bundle name from a file whose clusters were evaluated when another one failed before', () => {
    const failedEarly = file(
      'failed.json',
      withCommit(changeSet([cluster('staging-eu-1', 'staging', [], { status: 'failed' })], 'diff', '')),
    );
    expect(
      mergeChangeSets({
        files: [failedEarly, productionEu, productionUs],
        clusters: runtimeClusters,
        shards: byCluster,
        commit: RUN,
      }).changeSet.bundle,
    ).toBe('apps');
  });
});
