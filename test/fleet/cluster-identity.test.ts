// Never the wrong cluster, through the fleet layer on a real cluster: the first apply records
// the cluster's identity, another runtime name reaching it is refused on diff and apply (the
// cluster fails with step `identity`, naming both names), a re-pin moves the record, and a
// recording run refuses two runtime clusters reaching one cluster. The record has a name of
// each test's own (`--cluster-identity-record`), deleted when the test ends, so that the other
// tests on the shared fleet, which check `timoni-fleet-identity`, never see it.
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { deleteIdentityRecord, readIdentityRecord } from '../../src/kube/connect/cluster-identity.js';
import { engineFleet } from '../kube/support.js';
import { testNamespace } from '../harness/fleet/test-context.js';
import { fleetLayerCli, type FleetLayerRun } from './fleet-layer-cli.js';

const CONTEXT = 'fleet-2';
/** Applies here do not wait: the fleet runs no controllers to make the Deployments ready. */
const NO_WAIT = '--wait=false';

async function setUp(prefix: string): Promise<{ run: FleetLayerRun; record: string; flags: string[] }> {
  const [a, b] = await Promise.all([testNamespace(CONTEXT, `${prefix}-a`), testNamespace(CONTEXT, `${prefix}-b`)]);
  const record = `timoni-fleet-identity-test-${randomBytes(4).toString('hex')}`;
  const { clusters } = engineFleet();
  const cluster = clusters[1]!;
  onTestFinished(async () => {
    await deleteIdentityRecord(cluster, record);
  });
  return {
    run: {
      kubeconfigPath: inject('fleet').kubeconfigPath,
      runtime: 'runtime-identity.cue',
      namespaces: [a.name, b.name],
    },
    record,
    // On a shared server the other runtime cluster's instances are not removed instances.
    flags: ['--cluster-identity-record', record, '--prune-removed-instances=false'],
  };
}

describe('cluster identity through the fleet layer', () => {
  it('records on the first apply, refuses another runtime name on diff and apply, and re-pins', async () => {
    const { run, record, flags } = await setUp('identity');
    const cluster = engineFleet().clusters[1]!;

    const first = await fleetLayerCli(
      'apply',
      run,
      ...flags,
      NO_WAIT,
      '--runtime-cluster',
      'identity-staging',
      '--cluster-identity',
      'record',
    );
    expect(first.code, first.stderr).toBe(0);
    const applied = first.changeSet.clusters[0]!;
    expect(applied.status).toBe('applied');
    expect(applied.identity).toMatchObject({ recordedAs: 'identity-staging', change: 'recorded' });
    const uid = applied.identity?.uid ?? '';
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readIdentityRecord(cluster, record)).toMatchObject({ runtimeCluster: 'identity-staging', uid });
    expect(first.stderr).toContain(`cluster identity recorded: "identity-staging" is kube-system uid ${uid}`);

    // Another runtime name on the same context: refused by the diff (check mode, the default) and by the apply.
    for (const command of ['diff', 'apply'] as const) {
      const refused = await fleetLayerCli(
        command,
        run,
        ...flags,
        ...(command === 'apply' ? [NO_WAIT] : []),
        '--runtime-cluster',
        'identity-production',
      );
      expect(refused.code).toBe(2);
      const entry = refused.changeSet.clusters[0]!;
      expect(entry.status).toBe('failed');
      expect(entry.instances).toEqual([]);
      expect(entry.error?.step).toBe('identity');
      expect(entry.error?.message).toContain(
        `cluster identity-production: context "${CONTEXT}" reaches the cluster recorded as "identity-staging" (kube-system uid ${uid}`,
      );
      expect(entry.error?.message).toContain('not "identity-production"');
      expect(entry.identity).toMatchObject({ uid, recordedAs: 'identity-staging' });
    }
    // The recorded name itself still goes through.
    const same = await fleetLayerCli('diff', run, ...flags, '--runtime-cluster', 'identity-staging');
    expect(same.code, same.stderr).toBe(0);
    expect(same.changeSet.clusters[0]?.identity).toMatchObject({ uid, recordedAs: 'identity-staging' });

    // A diff with the re-pin shows the diff and writes nothing; the apply moves the record.
    const repinDiff = await fleetLayerCli(
      'diff',
      run,
      ...flags,
      '--runtime-cluster',
      'identity-production',
      '--repin-cluster',
      'identity-production',
    );
    expect(repinDiff.changeSet.clusters[0]?.status).not.toBe('failed');
    expect(repinDiff.stderr).toContain('re-pinned as "identity-production" by an apply');
    expect((await readIdentityRecord(cluster, record))?.runtimeCluster).toBe('identity-staging');

    const repinned = await fleetLayerCli(
      'apply',
      run,
      ...flags,
      NO_WAIT,
      '--runtime-cluster',
      'identity-production',
      '--repin-cluster',
      'identity-production',
    );
    expect(repinned.code, repinned.stderr).toBe(0);
    expect(repinned.changeSet.clusters[0]?.identity).toMatchObject({
      uid,
      recordedAs: 'identity-production',
      change: 'repinned',
    });
    expect((await readIdentityRecord(cluster, record))?.runtimeCluster).toBe('identity-production');

    const old = await fleetLayerCli('diff', run, ...flags, '--runtime-cluster', 'identity-staging');
    expect(old.changeSet.clusters[0]?.error?.message).toContain('recorded as "identity-production"');
  });

  it('refuses, in a recording run, two runtime clusters that reach one cluster', async () => {
    const { run, record, flags } = await setUp('identity-twice');
    const result = await fleetLayerCli('diff', run, ...flags, '--cluster-identity', 'record');
    expect(result.code).toBe(2);
    const failed = result.changeSet.clusters.filter((c) => c.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error?.step).toBe('identity');
    expect(failed[0]?.error?.message).toMatch(
      /reaches the same cluster \(kube-system uid [0-9a-f-]+\) as runtime cluster "identity-(staging|production)" of this run/,
    );
    // A diff writes no record.
    expect(await readIdentityRecord(engineFleet().clusters[1]!, record)).toBeNull();
  });

  it('leaves two runtime names on one cluster alone when nothing is recorded (check mode)', async () => {
    const { run, flags } = await setUp('identity-none');
    const result = await fleetLayerCli('diff', run, ...flags);
    expect(result.changeSet.clusters.map((c) => c.status)).toEqual(['changed', 'changed']);
    expect(result.changeSet.clusters.every((c) => c.identity === undefined)).toBe(true);
  });
});
