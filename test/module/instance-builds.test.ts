// One build per distinct input: the same instance for several clusters with the same values
// is evaluated once, through the real CUE engine on a module with the Kubernetes schemas;
// every caller gets the same objects as a build of its own, and a copy it may change.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import { buildInstance, InstanceBuildError } from '../../src/module/instance-build.js';
import { InstanceBuilds } from '../../src/module/instance-builds.js';
import { loadLocalModule } from '../../src/module/local-module.js';
import type { ModuleSource } from '../../src/module/module-source.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'cue', 'fixtures');
let engine: CueEngine;
let loads = 0;
let k8sApp: ModuleSource;

beforeAll(async () => {
  const real = await loadCueEngine();
  // The engine as the builds see it, counting the module loads (the expensive part).
  engine = new Proxy(real, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === 'load' && typeof value === 'function') {
        return (...args: unknown[]) => {
          loads += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  k8sApp = loadLocalModule('file://k8s-app', fixtures, real);
});

describe('InstanceBuilds', () => {
  it('evaluates 3 clusters x 2 instances with 2 distinct inputs twice, with the same result as separate builds', () => {
    const builds = new InstanceBuilds(engine);
    const before = loads;
    const results = [];
    for (let cluster = 0; cluster < 3; cluster += 1) {
      for (const name of ['api', 'web']) results.push(builds.build(k8sApp, { name, namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' }));
    }
    const loadsForSix = loads - before;
    expect(builds.counts()).toEqual({ builds: 2, reused: 4 });
    const single = buildInstance(engine, k8sApp, { name: 'api', namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' });
    const loadsForOne = loads - before - loadsForSix;
    expect(loadsForSix).toBe(2 * loadsForOne);
    expect(results[0]).toEqual(single);
    expect(results[2]).toEqual(single);
  });

  it('builds again when anything that decides the result differs: values, namespace, Kubernetes version', () => {
    const builds = new InstanceBuilds(engine);
    const base = { name: 'api', namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' };
    builds.build(k8sApp, base);
    builds.build(k8sApp, { ...base, values: '{replicas: 3}' });
    builds.build(k8sApp, { ...base, namespace: 'other' });
    builds.build(k8sApp, { ...base, kubeVersion: '1.35.0' });
    expect(builds.counts()).toEqual({ builds: 4, reused: 0 });
  });

  it('gives each caller its own copy, and the same error for the same failing input', () => {
    const builds = new InstanceBuilds(engine);
    const input = { name: 'api', namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' };
    const first = builds.build(k8sApp, input);
    const object = first.sets[0]?.objects[0];
    if (object) object.metadata.name = 'changed-by-one-cluster';
    expect(builds.build(k8sApp, input).sets[0]?.objects[0]?.metadata.name).not.toBe('changed-by-one-cluster');
    const bad = { ...input, values: '{replicas: "many"}' };
    const error = (() => {
      try {
        builds.build(k8sApp, bad);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InstanceBuildError);
    expect(() => builds.build(k8sApp, bad)).toThrow(error as Error);
    expect(builds.counts()).toEqual({ builds: 2, reused: 2 });
  });
});
