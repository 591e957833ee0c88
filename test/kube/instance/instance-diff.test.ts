// Diffing built instances against a real cluster: nothing is ever written.
import { describe, expect, it, vi } from 'vitest';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { diffInstance } from '../../../src/kube/instance/instance-diff.js';
import type { InstanceStepError } from '../../../src/kube/instance/instance.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import {
  actions,
  built,
  configMap,
  deployment,
  engineFleet,
  freshNamespaceName,
  job,
  secret,
  service,
} from '../support.js';

const CLUSTER = 1;

describe('instance diff', () => {
  it('finds every object unchanged right after an apply', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-diff-same')).name;
    const instance = built(ns, [
      deployment(ns, 'web'),
      service(ns, 'web'),
      configMap(ns, 'settings', { a: '1' }),
      secret(ns, 'token', 's3cr3t-value'),
    ]);
    await applyInstance(cluster, instance);

    const result = await diffInstance(cluster, instance);

    expect(result.namespaceExists).toBe(true);
    expect(actions(result.changes)).toEqual([
      'ConfigMap/settings unchanged',
      'Secret/token unchanged',
      'Service/web unchanged',
      'Deployment/web unchanged',
    ]);
    expect(result.changes.every((c) => c.diff === '')).toBe(true);
  });

  it("reads the instance's stored record once, and not its namespace, which the record proves exists", async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-diff-reads')).name;
    const instance = built(ns, [configMap(ns, 'settings', { a: '1' })]);
    await applyInstance(cluster, instance);
    /** The objects `run` reads through cluster.get, as Kind/name. */
    const readsOf = async (run: () => Promise<unknown>): Promise<string[]> => {
      const reads: string[] = [];
      const get = cluster.get.bind(cluster);
      const spy = vi.spyOn(cluster, 'get').mockImplementation((ref) => {
        reads.push(`${ref.kind}/${ref.name}`);
        return get(ref);
      });
      try {
        await run();
      } finally {
        spy.mockRestore();
      }
      return reads;
    };
    const reads = await readsOf(async () =>
      expect(actions((await diffInstance(cluster, instance)).changes)).toEqual(['ConfigMap/settings unchanged']),
    );
    expect(reads.filter((read) => read === 'Secret/timoni.web')).toHaveLength(1);
    expect(reads.filter((read) => read.startsWith('Namespace/'))).toEqual([]);
    // With ownership overwritten nothing is checked first: the record is read for the prune alone.
    const overwriting = await readsOf(() => diffInstance(cluster, instance, { overwriteOwnership: true }));
    expect(overwriting.filter((read) => read === 'Secret/timoni.web')).toHaveLength(1);
    expect(overwriting.filter((read) => read.startsWith('Namespace/'))).toEqual([`Namespace/${ns}`]);
  });

  it('shows configured objects as a unified diff, masks Secret data, and reports removed objects as deleted without deleting them', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-diff')).name;
    await applyInstance(
      cluster,
      built(ns, [
        configMap(ns, 'settings', { color: 'blue' }),
        secret(ns, 'token', 'old-value'),
        service(ns, 'web'),
        configMap(ns, 'kept', {}, { 'action.timoni.sh/prune': 'disabled' }),
      ]),
    );
    const secretBefore = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });

    const next = built(ns, [configMap(ns, 'settings', { color: 'red' }), secret(ns, 'token', 'new-value')]);
    const result = await diffInstance(cluster, next);

    expect(actions(result.changes)).toEqual([
      'ConfigMap/settings configured',
      'Secret/token configured',
      'Service/web deleted',
      'ConfigMap/kept skipped',
    ]);
    expect(result.changes[0]!.diff).toContain('-  color: blue\n+  color: red');
    expect(result.changes[1]!.diff).toContain('*** (before)');
    expect(result.changes[1]!.diff).toContain('*** (after)');
    const all = JSON.stringify(result.changes);
    for (const value of [
      'old-value',
      'new-value',
      Buffer.from('old-value').toString('base64'),
      Buffer.from('new-value').toString('base64'),
    ])
      expect(all).not.toContain(value);
    expect(result.changes[2]!.diff).toContain('-kind: Service');
    // Nothing written.
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'web' })).not.toBeNull();
    expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({
      color: 'blue',
    });
    expect(
      (await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' })).metadata
        .resourceVersion,
    ).toBe(secretBefore.metadata.resourceVersion);
  });

  it('without the namespace, everything is created and the server is not asked to dry-run', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = freshNamespaceName(CLUSTER, 'lc-diff-new');
    const result = await diffInstance(cluster, built(ns, [service(ns, 'web'), configMap(ns, 'settings', { a: '1' })]));
    expect(result.namespaceExists).toBe(false);
    expect(actions(result.changes)).toEqual([
      `Namespace/${ns} created`,
      'ConfigMap/settings created',
      'Service/web created',
    ]);
    expect(result.changes[1]!.diff).toContain('+    instance.timoni.sh/name: web');
    expect(await clusterClient(CLUSTER).getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: ns })).toBeNull();
  });

  it('an immutable change is a failed object (the others still diffed), or recreated with its field changes when forced; ownership conflicts are errors', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-diff-immutable')).name;
    await applyInstance(
      cluster,
      built(ns, [configMap(ns, 'a', {}), job(ns, 'migrate', 'echo one'), configMap(ns, 'gone', {})]),
    );
    const changed = built(ns, [configMap(ns, 'a', { k: 'v' }), job(ns, 'migrate', 'echo two')]);

    // As Timoni's dry-run diff: the Job is reported immutable, the ConfigMaps still diffed and pruned.
    const result = await diffInstance(cluster, changed);
    expect(actions(result.changes)).toEqual(['ConfigMap/a configured', 'Job/migrate failed', 'ConfigMap/gone deleted']);
    const failed = result.changes[1]!;
    expect(failed.error).toMatch(
      new RegExp(`^cluster ${cluster.name}: Job/${ns}/migrate: immutable field spec.template changed; `),
    );
    expect(failed.diff).toContain('-            - echo one\n+            - echo two');
    expect(failed.diff).not.toContain('# recreated');

    const forced = await diffInstance(cluster, changed, { force: true });
    expect(actions(forced.changes)).toEqual([
      'ConfigMap/a configured',
      'Job/migrate recreated',
      'ConfigMap/gone deleted',
    ]);
    const recreated = forced.changes[1]!;
    // The fields that force the recreation (live vs desired), then the note; not the whole Job as added.
    const changedLines = recreated.diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line));
    expect(changedLines).toEqual(['-            - echo one', '+            - echo two']);
    expect(
      recreated.diff.endsWith(
        '# recreated: immutable field spec.template changes; the object is deleted and created again\n',
      ),
    ).toBe(true);
    expect(recreated.error).toBeUndefined();

    const foreign = await diffInstance(cluster, { ...changed, bundle: 'other' }).catch((e: unknown) => e);
    expect((foreign as InstanceStepError).step).toBe('ownership');
    expect((foreign as Error).message).toContain('managed by another bundle "apps"');
    expect(
      actions(
        (await diffInstance(cluster, { ...changed, bundle: 'other' }, { force: true, overwriteOwnership: true }))
          .changes,
      ),
    ).toEqual(['ConfigMap/a configured', 'Job/migrate recreated', 'ConfigMap/gone deleted']);
  });

  it('an object the API server refuses (an invalid value) is failed with its answer; a new namespace-less object too', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-diff-invalid')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'a', {}), service(ns, 'web')]));
    const result = await diffInstance(
      cluster,
      built(ns, [configMap(ns, 'a', { k: 'v' }), service(ns, 'web', 70000), service(ns, 'api', 70001)]),
    );
    expect(actions(result.changes)).toEqual(['ConfigMap/a configured', 'Service/api failed', 'Service/web failed']);
    const [, api, web] = result.changes;
    expect(api!.error).toContain(`Service/${ns}/api`);
    expect(api!.error).toMatch(/spec\.ports\[0\]\.port: Invalid value: 70001/);
    // No live object: nothing to compare with.
    expect(api!.diff).toBe('');
    expect(web!.error).toMatch(/spec\.ports\[0\]\.port: Invalid value: 70000/);
    expect(web!.diff).toContain('-      port: 80\n+      port: 70000');
  });
});
