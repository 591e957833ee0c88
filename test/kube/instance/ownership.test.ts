// Ownership conflicts on a real cluster of the fleet: an instance of another bundle, or of
// none, is refused before anything is written; overwrite takes it over.
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { InstanceStepError } from '../../../src/kube/instance/instance.js';
import { readInstance, writeInstance } from '../../../src/kube/instance/inventory-store.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { actions, built, configMap, engineFleet, module } from '../support.js';

const CLUSTER = 0;

describe('instance ownership', () => {
  it('refuses an instance of another bundle before writing anything; overwrite takes it over', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-owner')).name;
    await applyInstance(cluster, built(ns, [configMap(ns, 'settings', { color: 'blue' })]));
    const secretBefore = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });

    const other = built(ns, [configMap(ns, 'settings', { color: 'green' }), configMap(ns, 'extra', { a: 'b' })], {
      bundle: 'infra',
    });
    const error = await applyInstance(cluster, other).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceStepError);
    expect((error as InstanceStepError).step).toBe('ownership');
    expect((error as InstanceStepError).changes).toEqual([]);
    expect((error as Error).message).toContain(
      'instance ownership conflict encountered. Conflict: instance "web" exists and is managed by another bundle "apps"',
    );
    expect((error as Error).message).toContain('--overwrite-ownership');
    // Nothing written.
    expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({
      color: 'blue',
    });
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'extra' })).toBeNull();
    const secretAfter = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
    expect(secretAfter.metadata.resourceVersion).toBe(secretBefore.metadata.resourceVersion);

    const result = await applyInstance(cluster, other, { overwriteOwnership: true });
    expect(actions(result.changes)).toEqual(['ConfigMap/extra created', 'ConfigMap/settings configured']);
    const stored = await readInstance(cluster, 'web', ns);
    expect(stored?.instance.labels?.['bundle.timoni.sh/name']).toBe('infra');
  });

  it('an instance not managed by any bundle is a conflict too', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const ns = (await testNamespace(CLUSTER, 'lc-owner-none')).name;
    await writeInstance(cluster, {
      name: 'web',
      namespace: ns,
      module: { name: module.name, repository: module.url, version: module.version, digest: module.digest },
      values: '',
      inventory: { entries: null },
    });
    const error = await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {})])).catch((e: unknown) => e);
    expect((error as InstanceStepError).step).toBe('ownership');
    expect((error as Error).message).toContain('instance "web" exists and is not managed by any bundle');
    expect(
      await clusterClient(CLUSTER).getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' }),
    ).toBeNull();
  });
});
