// The record stored for a build (pure).
import { describe, expect, it } from 'vitest';
import { instanceRecord, labelledSets, moduleReference } from '../../../src/kube/instance/instance.js';
import { built, configMap, module } from '../support.js';

describe('instance record', () => {
  it('records a registry module by its URL and digest', () => {
    expect(moduleReference(module)).toEqual({
      name: module.name,
      repository: module.url,
      version: module.version,
      digest: module.digest,
    });
  });

  it('records a local module as Timoni does: the path as written, digest unknown', () => {
    expect(
      moduleReference({ name: 'example.com/app', url: 'file://./modules/app', version: '0.0.0-devel', digest: '' }),
    ).toEqual({
      name: 'example.com/app',
      repository: './modules/app',
      version: '0.0.0-devel',
      digest: 'unknown',
    });
  });

  it('holds the inventory in apply order, the bundle label, the values text, and images only when asked', () => {
    const instance = built('apps', [configMap('apps', 'b', {}), configMap('apps', 'a', {})]);
    const refs = instance.sets[0]!.objects.map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      namespace: 'apps',
      name: o.metadata.name,
    }));
    const record = instanceRecord(instance, refs, false);
    expect(record.labels).toEqual({ 'bundle.timoni.sh/name': 'apps' });
    expect(record.values).toBe(instance.valuesSource);
    expect(record.inventory?.entries?.map((e) => e.id)).toEqual(['apps_a__ConfigMap', 'apps_b__ConfigMap']);
    expect(record.images).toBeUndefined();
    expect(instanceRecord(instance, refs, true).images).toEqual(['nginx:1.27']);
  });

  it('labels copies of the objects with the instance, leaving the build untouched', () => {
    const instance = built('apps', [
      { ...configMap('apps', 'a', {}), metadata: { name: 'a', namespace: 'apps', labels: { app: 'x' } } },
    ]);
    const [set] = labelledSets(instance);
    expect(set!.objects[0]!.metadata.labels).toEqual({
      app: 'x',
      'instance.timoni.sh/name': 'web',
      'instance.timoni.sh/namespace': 'apps',
    });
    expect(instance.sets[0]!.objects[0]!.metadata.labels).toEqual({ app: 'x' });
  });
});
