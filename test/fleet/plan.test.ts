// The plan on a real cluster. One bad object does not hide the others (issue 11, item 9):
// with a Service port changed out of band (as `kubectl patch` does), the API server
// refuses the Service's dry-run; as Timoni's dry-run diff (internal/dyff
// InstanceDryRunDiff logs the error and goes on), the Service is a `failed` change with
// the server's answer, the ConfigMap is still configured, the ServiceAccount the build
// dropped is still reported deleted, and the cluster is failed (the CLI diff exits 2).
import { describe, expect, inject, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { clusterFailure } from '../../src/fleet/plan.js';
import { failedService, instance, podinfoInstance, unbuiltRedis, valuesError } from '../report/fixtures.js';
import { runCliCaptured } from '../cli/run-cli.js';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { clusterClient, testNamespace } from '../harness/fleet/test-context.js';
import { fixtures } from './fleet-layer-cli.js';

const cluster = 'fleet-3';

function partsCli(
  command: 'diff' | 'apply',
  namespace: string,
  values: { serviceAccount: boolean; message: string },
  ...extra: string[]
) {
  return runCliCaptured(
    [
      command,
      '-f',
      'parts-bundle.cue',
      '-r',
      'runtime-fleet-3.cue',
      '--kubeconfig',
      inject('fleet').kubeconfigPath,
      '--runtime-from-env',
      ...extra,
    ],
    {
      cwd: fixtures,
      env: { PARTS_NS: namespace, PARTS_SERVICE_ACCOUNT: String(values.serviceAccount), PARTS_MESSAGE: values.message },
    },
  );
}

/** `kubectl patch service web --type=json -p '[{"op":"replace","path":"/spec/ports/0/port","value":8080}]'`. */
async function changePortOutOfBand(namespace: string, port: number): Promise<void> {
  const admin = clusterClient(cluster);
  await admin.requestJson('PATCH', `/api/v1/namespaces/${namespace}/services/web`, {
    query: { fieldManager: 'kubectl-patch' },
    contentType: 'application/json-patch+json',
    body: JSON.stringify([{ op: 'replace', path: '/spec/ports/0/port', value: port }]),
  });
}

describe('a failed object among others in a diff', () => {
  it('reports the refused Service with its error and still the configured ConfigMap and the deleted ServiceAccount; exit 2', async () => {
    const ns = (await testNamespace(cluster, 'parts-fail')).name;
    const applied = await partsCli('apply', ns, { serviceAccount: true, message: 'hello' }, '-o', 'json');
    expect(applied.code, applied.stderr).toBe(0);
    await changePortOutOfBand(ns, 8080);

    const result = await partsCli('diff', ns, { serviceAccount: false, message: 'changed' }, '-o', 'json');
    expect(result.code, result.stderr).toBe(2);
    const changeSet = JSON.parse(result.stdout) as ChangeSet;
    const entry = changeSet.clusters[0]!;
    expect(entry.status).toBe('failed');
    const changes = entry.instances[0]!.changes;
    expect(changes.map((c) => `${c.kind}/${c.name} ${c.action}`)).toEqual([
      'ConfigMap/web configured',
      'Service/web failed',
      'ServiceAccount/web deleted',
    ]);
    const [configMap, service, serviceAccount] = changes;
    expect(configMap!.diff).toContain('-  message: hello\n+  message: changed');
    expect(serviceAccount!.diff).toContain('-kind: ServiceAccount');
    // The server's answer about the Service, naming it; and what the module changes on it.
    expect(service!.error).toContain(`cluster third: Service/${ns}/web: `);
    expect(service!.error).toMatch(/Service "web" is invalid/);
    expect(service!.diff).toContain('-      port: 8080\n+      port: 80');
    expect(entry.error).toEqual({
      step: 'diff',
      instance: 'web',
      object: `Service/${ns}/web`,
      message: `cluster third: the API server refused one object in the dry-run (the other objects are diffed): instance web: ${service!.error!.replace('cluster third: ', '')}`,
    });
    // Nothing was written: the port is still the one set out of band, the ServiceAccount still there.
    const live = await clusterClient(cluster).get<KubeObject & { spec: { ports: Array<{ port: number }> } }>({
      apiVersion: 'v1',
      kind: 'Service',
      namespace: ns,
      name: 'web',
    });
    expect(live.spec.ports.map((p) => p.port)).toEqual([8080]);
    expect(
      await clusterClient(cluster).getOrNull({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: 'web' }),
    ).not.toBeNull();

    // The text output: each object with its action, the failure with its error on stderr.
    const text = await partsCli('diff', ns, { serviceAccount: false, message: 'changed' });
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`Service/${ns}/web failed\n--- live`);
    expect(text.stdout).toContain(`ServiceAccount/${ns}/web deleted\n--- live`);
    expect(text.stdout).toContain(`ConfigMap/${ns}/web configured\n--- live`);
    expect(text.stderr).toContain(
      `b:parts > c:third > i:web > Service/${ns}/web failed: cluster third: Service/${ns}/web: `,
    );
    // However the CLI words the failed cluster's line.
    expect(text.stderr).toMatch(
      /✗ cluster third: .*the API server refused one object in the dry-run \(the other objects are diffed\): instance web: Service\//,
    );
  });
});

describe("the cluster's error from its instances (clusterFailure)", () => {
  const withFailedObject = instance('web', [failedService()]);

  it('is none when no instance failed and no object was refused', () => {
    expect(clusterFailure('staging-eu-1', [podinfoInstance([1, 2])])).toBeNull();
  });

  it("is an instance's own failure, naming it, when it comes first in bundle order (told in its place already)", () => {
    expect(clusterFailure('staging-eu-1', [podinfoInstance([1, 2]), unbuiltRedis(), withFailedObject])).toEqual({
      error: { step: 'build', message: valuesError, instance: 'redis' },
      told: true,
    });
  });

  it('is the refused objects summed up when an instance with a refused object comes first (to be told)', () => {
    const failure = clusterFailure('staging-eu-1', [withFailedObject, unbuiltRedis()]);
    expect(failure?.told).toBe(false);
    expect(failure?.error).toMatchObject({ step: 'diff', instance: 'web', object: 'Service/apps/podinfo' });
    expect(failure?.error.message).toContain('the API server refused one object in the dry-run');
  });
});
