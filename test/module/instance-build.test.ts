// Building a module written here into Kubernetes objects through the real CUE engine.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import { buildInstance, InstanceBuildError } from '../../src/module/instance-build.js';
import { loadLocalModule } from '../../src/module/local-module.js';
import type { ModuleSource } from '../../src/module/module-source.js';

const examples = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'modules');
let engine: CueEngine;
let webapp: ModuleSource;

beforeAll(async () => {
  engine = await loadCueEngine();
  webapp = loadLocalModule('file://webapp', examples, engine);
});

const names = (objects: Array<{ kind: string; metadata: Record<string, unknown> }>) => objects.map((o) => `${o.kind}/${String(o.metadata.name)}`);

describe('buildInstance', () => {
  it('reads the module name and the devel version of a local module', () => {
    expect(webapp).toMatchObject({ name: 'example.com/webapp', version: '0.0.0-devel', digest: 'unknown' });
  });

  it('builds the apply sets in declaration order with tags and tag variables', () => {
    const built = buildInstance(engine, webapp, { name: 'shop', namespace: 'apps', values: '{}', kubeVersion: '1.36.3' });
    expect(built.sets.map((s) => s.name)).toEqual(['app', 'test']);
    expect(names(built.sets[0]?.objects ?? [])).toEqual(['ServiceAccount/shop', 'ConfigMap/shop', 'Service/shop', 'Deployment/shop']);
    expect(names(built.sets[1]?.objects ?? [])).toEqual(['Job/shop-test']);
    const configMap = built.sets[0]?.objects[1];
    expect(configMap?.metadata).toEqual({ name: 'shop', namespace: 'apps', labels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/version': '0.0.0-devel' } });
    expect(configMap?.data).toEqual({ message: 'hello', kubeVersion: '1.36.3' });
    expect(built.images).toEqual(['ghcr.io/example/webapp:1.4.0']);
  });

  it('merges bundle values onto values.cue: scalars win, structs merge, optional parts switch on', () => {
    const built = buildInstance(engine, webapp, {
      name: 'shop',
      namespace: 'apps',
      values: JSON.stringify({ replicas: 3, image: { digest: 'sha256:' + 'a'.repeat(64) }, ingress: { enabled: true, host: 'shop.example.com' }, test: { enabled: false } }),
      kubeVersion: '1.35.0',
    });
    const app = built.sets[0]?.objects ?? [];
    expect(names(app)).toEqual(['ServiceAccount/shop', 'ConfigMap/shop', 'Service/shop', 'Deployment/shop', 'Ingress/shop']);
    const deployment = app[3] as unknown as { spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } };
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0]?.image).toBe(`ghcr.io/example/webapp@sha256:${'a'.repeat(64)}`);
    expect(built.sets[1]?.objects).toEqual([]);
    expect(built.images).toEqual([`ghcr.io/example/webapp@sha256:${'a'.repeat(64)}`]);
    expect(built.valuesSource).toMatch(/^package main\nvalues: \{/);
    expect(built.valuesSource).toContain('replicas: 3');
    // What the instance record stores: the merged values struct alone.
    expect(built.values).toMatch(/^\{\n/);
    expect(built.values).toContain('replicas: 3');
  });

  it('reports values that break the module schema with the instance and the field', () => {
    let error: unknown;
    try {
      buildInstance(engine, webapp, { name: 'shop', namespace: 'apps', values: '{replicas: -1}', kubeVersion: '1.36.3' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InstanceBuildError);
    expect((error as Error).message).toContain('instance shop (module file://webapp): build failed:\n');
    expect((error as InstanceBuildError).diagnostics.some((d) => d.path.includes('replicas'))).toBe(true);
  });

  it('reports an invalid object name with its CUE path', () => {
    expect(() => buildInstance(engine, webapp, { name: 'Shop_1', namespace: 'apps', values: '{}', kubeVersion: '1.36.3' })).toThrow(/invalid object at path timoni\.apply\.app\[0\]: metadata\.name "Shop_1"/);
  });
});
