// A cluster's identity: the decision (pure), and the record on real clusters. Records are
// written under a name of each test's own (never `timoni-fleet-identity`, which every other
// test on the shared fleet checks) and deleted when the test ends.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  ClusterIdentityError,
  decideIdentity,
  deleteIdentityRecord,
  establishIdentity,
  identityRecordObject,
  IDENTITY_NAMESPACE,
  mismatchMessage,
  parseIdentityRecord,
  parseRepinList,
  readClusterUid,
  readIdentityRecord,
  repinsCluster,
  shortUid,
  writeIdentityRecord,
  type IdentityRecord,
} from '../../../src/kube/connect/cluster-identity.js';
import { openCluster, type KubeCluster } from '../../../src/kube/connect/cluster.js';
import { loadKubeconfig } from '../../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../../src/secrets.js';
import { clusterClient } from '../../harness/fleet/test-context.js';
import { engineFleet } from '../support.js';

const staging: IdentityRecord = { runtimeCluster: 'staging-1', uid: 'uid-a', recordedAt: '2026-11-24T10:00:00.000Z' };

describe('decideIdentity', () => {
  const context = { runtimeCluster: 'production-eu', kubeContext: 'eks-prod' };

  it('has nothing to decide without a record', () => {
    expect(decideIdentity(context, null, 'uid-a', false)).toEqual({ kind: 'none' });
  });

  it('matches a record of this runtime cluster, and rewrites one whose UID is not the live one', () => {
    const own = { ...staging, runtimeCluster: 'production-eu' };
    expect(decideIdentity(context, own, 'uid-a', false)).toEqual({ kind: 'match', record: own, rewrite: false });
    expect(decideIdentity(context, own, 'uid-b', false)).toEqual({ kind: 'match', record: own, rewrite: true });
  });

  it('refuses a record of another runtime cluster, naming both names, the context and the UID', () => {
    const decision = decideIdentity(context, staging, 'uid-a', false);
    expect(decision.kind).toBe('mismatch');
    const message = decision.kind === 'mismatch' ? decision.message : '';
    expect(message).toContain(
      'context "eks-prod" reaches the cluster recorded as "staging-1" (kube-system uid uid-a, recorded 2026-11-24T10:00:00.000Z), not "production-eu"',
    );
    expect(message).toContain('repin-clusters: production-eu');
    expect(message).toContain('--repin-cluster production-eu');
  });

  it('re-pins a record of another runtime cluster when asked', () => {
    expect(decideIdentity(context, staging, 'uid-a', true)).toEqual({ kind: 'repin', record: staging });
  });

  it('names the current context when the runtime gives none', () => {
    expect(mismatchMessage({ runtimeCluster: 'b', kubeContext: '' }, staging, 'u')).toMatch(
      /^the current context reaches/,
    );
  });
});

describe('the record object', () => {
  it('is a ConfigMap of ours in kube-system that reads back as it was written', () => {
    const object = identityRecordObject('timoni-fleet-identity', staging);
    expect(object).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'timoni-fleet-identity',
        namespace: 'kube-system',
        labels: { 'app.kubernetes.io/managed-by': 'timoni-fleet' },
      },
    });
    // No Timoni instance label: Timoni's inventory never lists it, prune and delete never touch it.
    expect(
      Object.keys(object.metadata.labels ?? {}).some(
        (key) => key.startsWith('instance.timoni.sh') || key.startsWith('bundle.timoni.sh'),
      ),
    ).toBe(false);
    expect(parseIdentityRecord(object)).toEqual(staging);
  });

  it('is not a record without a runtime cluster or a UID', () => {
    expect(parseIdentityRecord(null)).toBeNull();
    expect(
      parseIdentityRecord({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { uid: 'u' } }),
    ).toBeNull();
    expect(
      parseIdentityRecord({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x' },
        data: { runtimeCluster: 'a', uid: '' },
      }),
    ).toBeNull();
  });
});

describe('re-pin lists', () => {
  it('split on commas, spaces and lines, and compare names without case', () => {
    expect(parseRepinList(['production-eu, production-us', 'staging-1\nqa'])).toEqual([
      'production-eu',
      'production-us',
      'staging-1',
      'qa',
    ]);
    expect(repinsCluster(['Production-EU'], 'production-eu')).toBe(true);
    expect(repinsCluster(['production-eu'], 'production-us')).toBe(false);
  });

  it('shorten UIDs for reports', () => {
    expect(shortUid('1a2b3c4d-5e6f-7a8b')).toBe('1a2b3c4d…');
    expect(shortUid('abc')).toBe('abc');
  });
});

// ---- On real clusters

/** A record name of this test's own, deleted from every cluster when the test ends. */
function ownRecord(clusters: KubeCluster[]): string {
  const name = `timoni-fleet-identity-test-${randomBytes(4).toString('hex')}`;
  onTestFinished(async () => {
    for (const cluster of clusters) await deleteIdentityRecord(cluster, name);
  });
  return name;
}

describe('the record on real clusters', () => {
  it('reads a UID per cluster, each its kube-system Namespace UID', async () => {
    const { clusters } = engineFleet();
    const uids = await Promise.all(clusters.map((cluster) => readClusterUid(cluster)));
    expect(new Set(uids).size).toBe(clusters.length);
    const namespace = await clusterClient(0).get({
      apiVersion: 'v1',
      kind: 'Namespace',
      namespace: '',
      name: IDENTITY_NAMESPACE,
    });
    expect(uids[0]).toBe(namespace.metadata.uid);
  });

  it('writes, reads and deletes the record with its own field manager', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const name = ownRecord([cluster]);
    expect(await readIdentityRecord(cluster, name)).toBeNull();
    await writeIdentityRecord(cluster, staging, name);
    expect(await readIdentityRecord(cluster, name)).toEqual(staging);
    const live = await clusterClient(0).get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: IDENTITY_NAMESPACE,
      name,
    });
    expect(live.metadata.managedFields?.map((field) => field.manager)).toEqual(['timoni-fleet']);
    expect(await deleteIdentityRecord(cluster, name)).toBe(true);
    expect(await deleteIdentityRecord(cluster, name)).toBe(false);
  });
});

describe('establishIdentity on real clusters', () => {
  const now = () => new Date('2026-11-24T10:00:00.000Z');

  it('records on the first apply, refuses another runtime name (diff and apply), and re-pins on purpose', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[1]!;
    const recordName = ownRecord([cluster]);
    const uid = await readClusterUid(cluster);
    const asStaging = { runtimeCluster: 'staging-1', kubeContext: 'fleet-2' };
    const asProduction = { runtimeCluster: 'production-eu', kubeContext: 'eks-prod' };

    // A diff records nothing, even in record mode.
    expect(
      await establishIdentity(cluster, asStaging, { mode: 'record', recordName, repin: false, apply: false, now }),
    ).toEqual({ uid, record: null });
    expect(await readIdentityRecord(cluster, recordName)).toBeNull();

    const first = await establishIdentity(cluster, asStaging, {
      mode: 'record',
      recordName,
      repin: false,
      apply: true,
      now,
    });
    expect(first).toMatchObject({
      uid,
      change: 'recorded',
      current: { runtimeCluster: 'staging-1', uid, recordedAt: '2026-11-24T10:00:00.000Z' },
    });
    expect(await readIdentityRecord(cluster, recordName)).toEqual({
      runtimeCluster: 'staging-1',
      uid,
      recordedAt: '2026-11-24T10:00:00.000Z',
    });

    // The same runtime name again: a match, nothing written.
    const again = await establishIdentity(cluster, asStaging, { mode: 'check', recordName, repin: false, apply: true });
    expect(again).toEqual({ uid, record: first?.current, current: first?.current });

    for (const apply of [false, true]) {
      const refused = establishIdentity(cluster, asProduction, { mode: 'check', recordName, repin: false, apply });
      await expect(refused).rejects.toBeInstanceOf(ClusterIdentityError);
      await expect(refused).rejects.toThrow(
        `cluster production-eu: context "eks-prod" reaches the cluster recorded as "staging-1" (kube-system uid ${uid}`,
      );
    }

    // A diff with the re-pin says so and writes nothing; the apply overwrites the record.
    const diff = await establishIdentity(cluster, asProduction, {
      mode: 'check',
      recordName,
      repin: true,
      apply: false,
    });
    expect(diff?.note).toContain('re-pinned as "production-eu"');
    expect((await readIdentityRecord(cluster, recordName))?.runtimeCluster).toBe('staging-1');
    const repinned = await establishIdentity(cluster, asProduction, {
      mode: 'check',
      recordName,
      repin: true,
      apply: true,
      now,
    });
    expect(repinned).toMatchObject({
      uid,
      change: 'repinned',
      record: { runtimeCluster: 'staging-1' },
      current: { runtimeCluster: 'production-eu' },
    });
    expect((await readIdentityRecord(cluster, recordName))?.runtimeCluster).toBe('production-eu');
    await expect(
      establishIdentity(cluster, asStaging, { mode: 'check', recordName, repin: false, apply: false }),
    ).rejects.toThrow('recorded as "production-eu"');
  });

  it('reads only the record in check mode without one, and does nothing when off', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[2]!;
    const recordName = ownRecord([cluster]);
    const context = { runtimeCluster: 'anything', kubeContext: 'fleet-3' };
    expect(await establishIdentity(cluster, context, { mode: 'check', recordName, repin: false, apply: true })).toEqual(
      { record: null },
    );
    expect(
      await establishIdentity(cluster, context, { mode: 'off', recordName, repin: false, apply: true }),
    ).toBeNull();
    expect(await readIdentityRecord(cluster, recordName)).toBeNull();
  });

  it("rewrites a record of this runtime cluster whose UID is another cluster's (restored from a backup)", async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const recordName = ownRecord([cluster]);
    await writeIdentityRecord(
      cluster,
      { runtimeCluster: 'staging-1', uid: 'a-restored-uid', recordedAt: '2025-01-01T00:00:00.000Z' },
      recordName,
    );
    const result = await establishIdentity(
      cluster,
      { runtimeCluster: 'staging-1', kubeContext: 'fleet-1' },
      { mode: 'record', recordName, repin: false, apply: true },
    );
    expect(result?.change).toBe('rewritten');
    expect((await readIdentityRecord(cluster, recordName))?.uid).toBe(await readClusterUid(cluster));
  });

  it('does not refuse a user who may not read the record when checking, and fails one who must record', async () => {
    const { kubeconfigText } = engineFleet();
    // The admin impersonates a user with no rights at all.
    const text = kubeconfigText.replace(
      '  - name: fleet-1-admin\n    user:\n',
      '  - name: fleet-1-admin\n    user:\n      as: timoni-fleet-nobody\n',
    );
    expect(text).not.toBe(kubeconfigText);
    const secrets = new SecretRegistry();
    const cluster = openCluster(loadKubeconfig([{ text }], secrets), 'fleet-1', { secrets, name: 'fleet-1' });
    onTestFinished(() => cluster.close());
    const context = { runtimeCluster: 'staging-1', kubeContext: 'fleet-1' };
    const checked = await establishIdentity(cluster, context, {
      mode: 'check',
      recordName: 'timoni-fleet-identity-test-nobody',
      repin: false,
      apply: false,
    });
    expect(checked?.note).toMatch(
      /^cluster identity not checked: cluster fleet-1: cannot read or write its identity record \(get and patch on ConfigMap kube-system\/timoni-fleet-identity-test-nobody/,
    );
    await expect(
      establishIdentity(cluster, context, {
        mode: 'record',
        recordName: 'timoni-fleet-identity-test-nobody',
        repin: false,
        apply: true,
      }),
    ).rejects.toThrow(ClusterIdentityError);
  });
});
