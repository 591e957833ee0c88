// Status of a bundle's instances on a real cluster.
import { describe, expect, it } from 'vitest';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { bundleStatus } from '../../../src/kube/instance/instance-status.js';
import { markReady } from '../../harness/fleet/readiness.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { built, configMap, deployment, engineFleet, module, service } from '../support.js';

const CLUSTER = 0;

/** Instances are ordered by their Secret's creationTimestamp, which has a one-second resolution. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_100));

describe('instance status', () => {
  it("lists the bundle's instances with module, digest, last applied, images and each object's kstatus", async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = (await testNamespace(CLUSTER, 'lc-status')).name;
    const bundle = `status-${ns}`;
    await applyInstance(cluster, built(ns, [configMap(ns, 'settings', {}), deployment(ns, 'web')], { bundle }));
    await nextSecond();
    await applyInstance(cluster, built(ns, [service(ns, 'api')], { bundle, name: 'api', images: [] }));
    await applyInstance(cluster, built(ns, [configMap(ns, 'x', {})], { bundle: `${bundle}-other`, name: 'elsewhere' }));

    const before = await bundleStatus(cluster, bundle);
    expect(before.map((i) => i.name)).toEqual(['web', 'api']);
    const web = before[0]!;
    expect(web).toMatchObject({
      namespace: ns,
      bundle,
      module: { name: module.name, url: module.url, version: module.version, digest: module.digest },
      images: ['nginx:1.27'],
      pending: false,
      ready: false,
    });
    expect(web.lastApplied).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(web.objects.map((o) => `${o.object.kind}/${o.object.name} ${o.status}: ${o.message}`)).toEqual([
      'ConfigMap/settings Current: Resource is always ready',
      'Deployment/web InProgress: Replicas: 0/1',
    ]);
    expect(before[1]!.ready).toBe(true);

    await markReady(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
    await admin.delete({ apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'api' });
    const after = await bundleStatus(cluster, bundle);
    expect(after[0]!.objects.map((o) => o.status)).toEqual(['Current', 'Current']);
    expect(after[0]!.ready).toBe(true);
    expect(after[1]!.objects.map((o) => o.status)).toEqual(['NotFound']);
    expect(after[1]!.ready).toBe(false);
  });
});
