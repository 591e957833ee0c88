// Server-side apply, dry-run and diff against the real fleet, on every cluster at once.
import { describe, expect, it } from 'vitest';
import { applyObject, serverSideApply } from '../../src/kube/apply.js';
import type { KubeCluster } from '../../src/kube/cluster.js';
import { diffObject, MAX_EDIT_LENGTH } from '../../src/kube/diff.js';
import { ImmutableFieldError } from '../../src/kube/immutable.js';
import type { KubeObject } from '../../src/kube/object.js';
import { clusterClient, testNamespace } from '../harness/fleet/test-context.js';
import { engineFleet, onEveryCluster } from './engine-support.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function configMap(namespace: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace, labels: { app: 'web' } }, data };
}

function deployment(namespace: string, replicas: number, image = 'nginx:1.27'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image, ports: [{ containerPort: 80 }] }] } },
    },
  };
}

function job(namespace: string, command: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace, ...(annotations ? { annotations } : {}) },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image: 'busybox:1.36', command: ['sh', '-c', command] }] } } },
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
      const objects = [configMap(ns, { color: 'blue', size: 'm' }), deployment(ns, 1)];

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
      expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).toBeNull();
      expect(await admin.getOrNull({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' })).toBeNull();

      // Apply: created, owned by the timoni field manager through Apply.
      const created = [];
      for (const object of objects) created.push(await applyObject(cluster, object));
      expect(created.map((result) => result.action)).toEqual(['created', 'created']);
      const live = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' });
      expect(live.data).toEqual({ color: 'blue', size: 'm' });
      expect(live.metadata.managedFields?.map((entry) => `${entry.manager}/${entry.operation}`)).toEqual(['timoni/Apply']);

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
      const changedMap = configMap(ns, { color: 'green', size: 'm' });
      const changedDeployment = deployment(ns, 3);
      const mapChange = await diffObject(cluster, changedMap);
      expect(mapChange.action).toBe('configured');
      expect(mapChange.diff).toBe(
        `--- live\n+++ desired\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  color: blue\n+  color: green\n   size: m\n kind: ConfigMap\n metadata:\n`,
      );
      const deploymentChange = await diffObject(cluster, changedDeployment);
      expect(deploymentChange.action).toBe('configured');
      expect(deploymentChange.diff).toMatch(/^--- live\n\+\+\+ desired\n@@ [^\n]+ @@\n/);
      expect(deploymentChange.diff.split('\n').filter((line) => /^[-+] /.test(line))).toEqual(['-  replicas: 1', '+  replicas: 3']);
      expect(deploymentChange.diff).not.toMatch(/resourceVersion|managedFields|uid:|creationTimestamp|generation|status:/);
      const afterDiff = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' });
      expect(afterDiff.data).toEqual({ color: 'blue', size: 'm' });
      expect(afterDiff.metadata.resourceVersion).toBe(live.metadata.resourceVersion);
      const deploymentLive = await admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
      expect((deploymentLive.spec as { replicas: number }).replicas).toBe(1);

      // A plain dry-run apply returns the would-be object and writes nothing either.
      const dry = await serverSideApply(cluster, configMap(ns, { color: 'red', size: 'l' }), { dryRun: true });
      expect(dry.data).toEqual({ color: 'red', size: 'l' });
      expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({ color: 'blue', size: 'm' });

      // Apply the change: configured, and then in sync.
      expect((await applyObject(cluster, changedMap)).action).toBe('configured');
      expect((await applyObject(cluster, changedDeployment)).action).toBe('configured');
      expect((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' })).data).toEqual({ color: 'green', size: 'm' });
      expect((await diffObject(cluster, changedDeployment)).action).toBe('unchanged');
    });
  });

  it('shows a Secret change masked, and never a value', async () => {
    const { clusters, registered } = engineFleet();
    const values = ['first-pa55word', 'second-pa55word', 'api-key-0001', 'api-key-0002'];
    const outputs: string[] = [];
    await onEveryCluster(clusters, async (cluster, index) => {
      const ns = (await testNamespace(index, 'kube-secret')).name;
      const secret = (password: string, apiKey: string, stringData = false): KubeObject => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'creds', namespace: ns },
        type: 'Opaque',
        ...(stringData ? { stringData: { password, apiKey } } : { data: { password: b64(password), apiKey: b64(apiKey) } }),
      });
      const created = await diffObject(cluster, secret('first-pa55word', 'api-key-0001'));
      outputs.push(JSON.stringify(created));
      expect(created.action).toBe('created');
      expect(created.diff).toContain('+  password: "***"');
      expect((await applyObject(cluster, secret('first-pa55word', 'api-key-0001'))).action).toBe('created');

      const same = await diffObject(cluster, secret('first-pa55word', 'api-key-0001', true));
      outputs.push(JSON.stringify(same));
      expect(same.action).toBe('unchanged');

      const changed = await diffObject(cluster, secret('second-pa55word', 'api-key-0001'));
      outputs.push(JSON.stringify(changed));
      expect(changed.action).toBe('configured');
      expect(changed.diff.split('\n').filter((line) => /^[-+] /.test(line))).toEqual(['-  password: "*** (before)"', '+  password: "*** (after)"']);
      expect(changed.diff).toContain('   apiKey: "***"');

      const viaStringData = await diffObject(cluster, secret('first-pa55word', 'api-key-0002', true));
      outputs.push(JSON.stringify(viaStringData));
      expect(viaStringData.action).toBe('configured');
      expect(viaStringData.diff).toContain('-  apiKey: "*** (before)"');
    });
    const everything = outputs.join('\n');
    for (const value of values) {
      expect(everything).not.toContain(value);
      expect(everything).not.toContain(b64(value));
    }
    expect(registered.some((value) => values.includes(value))).toBe(false);
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
      expect(failed.error).toMatch(new RegExp(`^cluster ${cluster.name}: Job/${ns}/migrate: immutable field spec.template changed; `));
      expect(failed.error).toMatch(/the API server said: spec\.template: field is immutable$/);
      // The server quotes the whole template; none of it (env values...) reaches the message.
      expect(failed.error).not.toContain('echo');
      const applyError = await applyObject(cluster, job(ns, 'echo two')).catch((e: unknown) => e);
      expect(applyError).toBeInstanceOf(ImmutableFieldError);
      expect((await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' })).metadata.uid).toBe(before.metadata.uid);

      expect((await diffObject(cluster, job(ns, 'echo two'), { force: true })).action).toBe('recreated');
      expect((await diffObject(cluster, job(ns, 'echo two', { 'action.timoni.sh/force': 'enabled' }))).action).toBe('recreated');
      const recreated = await applyObject(cluster, job(ns, 'echo two'), { force: true });
      expect(recreated.action).toBe('recreated');
      const after = await admin.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' });
      expect(after.metadata.uid).not.toBe(before.metadata.uid);
      expect(JSON.stringify(after.spec)).toContain('echo two');
    });
  });

  it('recognises a Service clusterIP change as immutable', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const ns = (await testNamespace(0, 'kube-service')).name;
    const service = (clusterIP?: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: ns },
      spec: { ...(clusterIP ? { clusterIP } : {}), selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    const created = await applyObject(cluster, service());
    const assigned = (created.object.spec as { clusterIP: string }).clusterIP;
    expect(assigned).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await diffObject(cluster, service())).action).toBe('unchanged');
    const last = Number(assigned.split('.')[3]);
    const other = [...assigned.split('.').slice(0, 3), String(last === 200 ? 201 : 200)].join('.');
    const change = await diffObject(cluster, service(other));
    expect(change.action).toBe('failed');
    expect(change.error).toMatch(/immutable fields? spec\.clusterIPs?/);
    // The field that changes, as live and desired have it.
    expect(change.diff).toContain(`-  clusterIP: ${assigned}\n+  clusterIP: ${other}`);
    const error = await applyObject(cluster, service(other)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImmutableFieldError);
    expect((error as ImmutableFieldError).fields.some((field) => field.startsWith('spec.clusterIP'))).toBe(true);
  });

  it('recognises a forbidden StatefulSet spec update as immutable', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[1]!;
    const ns = (await testNamespace(1, 'kube-statefulset')).name;
    const statefulSet = (size: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: ns },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:17' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } } }],
      },
    });
    expect((await applyObject(cluster, statefulSet('1Gi'))).action).toBe('created');
    const error = await applyObject(cluster, statefulSet('2Gi')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImmutableFieldError);
    expect((error as ImmutableFieldError).fields).toEqual(['spec']);
    expect((error as Error).message).toContain('Forbidden: updates to statefulset spec for fields other than');
  });

  it('shows every object as created in a missing namespace without asking the server', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[2]!;
    const ns = `kube-missing-${Date.now().toString(36)}`;
    const change = await diffObject(cluster, deployment(ns, 2), { namespaceExists: false });
    expect(change.action).toBe('created');
    expect(change.diff).toContain('+  replicas: 2');
    expect(await clusterClient(2).getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: ns })).toBeNull();
    const clusterScoped = await diffObject(cluster, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `r-${ns}`, namespace: ns }, rules: [] }, { namespaceExists: false });
    expect(clusterScoped.namespace).toBe('');
    expect(clusterScoped.diff).not.toContain('namespace:');
  });

  it('marks a change too large to diff as configured without its text, and applies it', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const ns = (await testNamespace(0, 'kube-large')).name;
    // As many keys as the edit limit, all changed: twice the edits the diff computes.
    const large = (value: string) => configMap(ns, Object.fromEntries(Array.from({ length: MAX_EDIT_LENGTH }, (_, i) => [`key-${i}`, `${value} ${i}`])));
    expect((await applyObject(cluster, large('old'))).action).toBe('created');
    // Rendered, the ConfigMap has 8 lines besides its data.
    const change = await diffObject(cluster, large('new'));
    expect(change).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', namespace: ns, name: 'settings', action: 'configured', diff: '', diffTooLarge: { liveLines: MAX_EDIT_LENGTH + 8, desiredLines: MAX_EDIT_LENGTH + 8 } });
    expect((await applyObject(cluster, large('new'))).action).toBe('configured');
    expect(await diffObject(cluster, large('new'))).toMatchObject({ action: 'unchanged', diff: '' });
  });

  it('skips an existing one-off object', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[1]!;
    const ns = (await testNamespace(1, 'kube-oneoff')).name;
    const object = (value: string): KubeObject => ({ ...configMap(ns, { value }), metadata: { name: 'once', namespace: ns, annotations: { 'action.timoni.sh/one-off': 'enabled' } } });
    expect((await applyObject(cluster, object('a'))).action).toBe('created');
    expect((await diffObject(cluster, object('b'))).action).toBe('skipped');
    expect((await applyObject(cluster, object('b'))).action).toBe('skipped');
    expect((await clusterClient(1).get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'once' })).data).toEqual({ value: 'a' });
  });
});
