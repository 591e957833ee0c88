// Server-side apply against the real fleet, on every cluster at once: create, unchanged,
// configured, dry-run; recreate on an immutable change only when forced; one-off objects.
import { describe, expect, it } from 'vitest';
import { applyObject, serverSideApply } from '../../../src/kube/ssa/apply.js';
import type { KubeCluster } from '../../../src/kube/connect/cluster.js';
import { diffObject } from '../../../src/kube/ssa/diff.js';
import { ImmutableFieldError } from '../../../src/kube/ssa/immutable.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet, onEveryCluster, settingsConfigMap, webDeployment } from '../support.js';

function job(namespace: string, command: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace, ...(annotations ? { annotations } : {}) },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'migrate', image: 'busybox:1.36', command: ['sh', '-c', command] }],
        },
      },
    },
  };
}

async function expectChange(cluster: KubeCluster, object: KubeObject) {
  return diffObject(cluster, object);
}

describe('apply and diff on the fleet', () => {
  it('creates, finds nothing to change, shows a changed field as a unified diff, dry-runs without writing', async () => {
    const { clusters } = engineFleet();
    await onEveryCluster(clusters, async (cluster, index) => {
      const ns = (await testNamespace(index, 'kube-apply')).name;
      const admin = clusterClient(index);
      const objects = [settingsConfigMap(ns, { color: 'blue', size: 'm' }), webDeployment(ns, 1)];

      // Diff before anything exists: created, the whole object shown, nothing written.
      const before = await Promise.all(objects.map((object) => expectChange(cluster, object)));
      expect(before.map((change) => change.action)).toEqual(['created', 'created']);
      expect(before[0]).toEqual({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        namespace: ns,
        name: 'settings',
        action: 'created',
        diff: `--- live\n+++ desired\n@@ -0,0 +1,10 @@\n+apiVersion: v1\n+data:\n+  color: blue\n+  size: m\n+kind: ConfigMap\n+metadata:\n+  labels:\n+    app: web\n+  name: settings\n+  namespace: ${ns}\n`,
      });
      expect(
        await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' }),
      ).toBeNull();
      expect(
        await admin.getOrNull({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' }),
      ).toBeNull();

      // Apply: created, owned by the timoni field manager through Apply.
      const created = [];
      for (const object of objects) created.push(await applyObject(cluster, object));
      expect(created.map((result) => result.action)).toEqual(['created', 'created']);
      const live = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' });
      expect(live.data).toEqual({ color: 'blue', size: 'm' });
      expect(live.metadata.managedFields?.map((entry) => `${entry.manager}/${entry.operation}`)).toEqual([
        'timoni/Apply',
      ]);

      // Re-apply: unchanged, and nothing written (same resourceVersion).
      const again = [];
      for (const object of objects) again.push(await applyObject(cluster, object));
      expect(again.map((result) => result.action)).toEqual(['unchanged', 'unchanged']);
      const still = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' });
      expect(still.metadata.resourceVersion).toBe(live.metadata.resourceVersion);
      const unchanged = await Promise.all(objects.map((object) => expectChange(cluster, object)));
      expect(unchanged.map((change) => [change.action, change.diff])).toEqual([
        ['unchanged', ''],
        ['unchanged', ''],
      ]);

      // A changed field: configured, with the exact unified diff; the dry-run wrote nothing.
      const changedMap = settingsConfigMap(ns, { color: 'green', size: 'm' });
      const changedDeployment = webDeployment(ns, 3);
      const mapChange = await diffObject(cluster, changedMap);
      expect(mapChange.action).toBe('configured');
      expect(mapChange.diff).toBe(
        `--- live\n+++ desired\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  color: blue\n+  color: green\n   size: m\n kind: ConfigMap\n metadata:\n`,
      );
      const deploymentChange = await diffObject(cluster, changedDeployment);
      expect(deploymentChange.action).toBe('configured');
      expect(deploymentChange.diff).toMatch(/^--- live\n\+\+\+ desired\n@@ [^\n]+ @@\n/);
      expect(deploymentChange.diff.split('\n').filter((line) => /^[-+] /.test(line))).toEqual([
        '-  replicas: 1',
        '+  replicas: 3',
      ]);
      expect(deploymentChange.diff).not.toMatch(
        /resourceVersion|managedFields|uid:|creationTimestamp|generation|status:/,
      );
      const afterDiff = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' });
      expect(afterDiff.data).toEqual({ color: 'blue', size: 'm' });
      expect(afterDiff.metadata.resourceVersion).toBe(live.metadata.resourceVersion);
      const deploymentLive = await admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
      expect((deploymentLive.spec as { replicas: number }).replicas).toBe(1);

      // A plain dry-run apply returns the would-be object and writes nothing either.
      const dry = await serverSideApply(cluster, settingsConfigMap(ns, { color: 'red', size: 'l' }), { dryRun: true });
      expect(dry.data).toEqual({ color: 'red', size: 'l' });
      expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({
        color: 'blue',
        size: 'm',
      });

      // Apply the change: configured, and then in sync.
      expect((await applyObject(cluster, changedMap)).action).toBe('configured');
      expect((await applyObject(cluster, changedDeployment)).action).toBe('configured');
      expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({
        color: 'green',
        size: 'm',
      });
      expect((await diffObject(cluster, changedDeployment)).action).toBe('unchanged');
    });
  });

  it('recognises immutable-field changes, and recreates only when forced', async () => {
    const { clusters } = engineFleet();
    await onEveryCluster(clusters, async (cluster, index) => {
      const ns = (await testNamespace(index, 'kube-immutable')).name;
      const admin = clusterClient(index);
      expect((await applyObject(cluster, job(ns, 'echo one'))).action).toBe('created');
      const before = await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });

      // The diff reports the object as failed, with the error, instead of throwing.
      const failed = await diffObject(cluster, job(ns, 'echo two'));
      expect(failed.action).toBe('failed');
      expect(failed.error).toMatch(
        new RegExp(`^cluster ${cluster.name}: Job/${ns}/migrate: immutable field spec.template changed; `),
      );
      expect(failed.error).toMatch(/the API server said: spec\.template: field is immutable$/);
      // The server quotes the whole template; none of it (env values...) reaches the message.
      expect(failed.error).not.toContain('echo');
      const applyError = await applyObject(cluster, job(ns, 'echo two')).catch((e: unknown) => e);
      expect(applyError).toBeInstanceOf(ImmutableFieldError);
      expect(
        (await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' })).metadata.uid,
      ).toBe(before.metadata.uid);

      expect((await diffObject(cluster, job(ns, 'echo two'), { force: true })).action).toBe('recreated');
      expect((await diffObject(cluster, job(ns, 'echo two', { 'action.timoni.sh/force': 'enabled' }))).action).toBe(
        'recreated',
      );
      const recreated = await applyObject(cluster, job(ns, 'echo two'), { force: true });
      expect(recreated.action).toBe('recreated');
      const after = await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });
      expect(after.metadata.uid).not.toBe(before.metadata.uid);
      expect(JSON.stringify(after.spec)).toContain('echo two');
    });
  });

  it('skips an existing one-off object', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[1]!;
    const ns = (await testNamespace(1, 'kube-oneoff')).name;
    const object = (value: string): KubeObject => ({
      ...settingsConfigMap(ns, { value }),
      metadata: { name: 'once', namespace: ns, annotations: { 'action.timoni.sh/one-off': 'enabled' } },
    });
    expect((await applyObject(cluster, object('a'))).action).toBe('created');
    expect((await diffObject(cluster, object('b'))).action).toBe('skipped');
    expect((await applyObject(cluster, object('b'))).action).toBe('skipped');
    expect(
      (await clusterClient(1).get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'once' })).data,
    ).toEqual({ value: 'a' });
  });
});
