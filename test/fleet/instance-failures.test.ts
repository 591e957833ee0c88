// An instance that fails as a whole (src/fleet/instance-failures.ts): its ChangeSet entry,
// its error as the cluster's, and a rollout's all-or-nothing over a cluster's builds.
import { describe, expect, it } from 'vitest';
import type { BundleInstance, ClusterBundle } from '../../src/bundle/index.js';
import type { InstanceChanges } from '../../src/changeset.js';
import {
  builtOrNothing,
  clusterErrorOfInstance,
  instanceStepError,
  refuseReservedObjects,
  unbuiltInstanceEntry,
  undiffedInstanceEntry,
} from '../../src/fleet/instance-failures.js';
import { ClusterStepError } from '../../src/fleet/outcome.js';
import type { ClusterInstanceBuild, StartedClusterBuild } from '../../src/fleet/session.js';

function declared(name: string): BundleInstance {
  return {
    name,
    namespace: 'apps',
    module: { url: 'oci://registry.example/modules/web', version: '1.4.0' },
    values: {},
    valuesCue: '{}',
  };
}

function builtInstance(name: string): ClusterInstanceBuild {
  const module = {
    url: 'oci://registry.example/modules/web',
    version: '1.4.0',
    digest: 'sha256:ab',
    name: 'web',
    files: {},
  };
  return {
    name,
    namespace: 'apps',
    module: module as unknown as ClusterInstanceBuild['module'],
    built: { sets: [], images: [], valuesSource: '', values: '{}' },
  };
}

/** The builds of a cluster, in bundle order: an instance name builds, an Error fails its build. */
function started(builds: Array<[string, Error | null]>): StartedClusterBuild {
  const evaluated = {
    bundle: { name: 'apps', instances: builds.map(([name]) => declared(name)) },
  } as unknown as ClusterBundle;
  const instances = builds.map(([name, error]) => {
    const pending = error
      ? Promise.reject(new ClusterStepError('build', error, name))
      : Promise.resolve(builtInstance(name));
    pending.catch(() => undefined);
    return pending;
  });
  return { evaluated, instances };
}

describe('instanceStepError', () => {
  it('keeps a ClusterStepError that names the instance, and wraps anything else with the step given', () => {
    const named = new ClusterStepError('build', new Error('values error'), 'web');
    expect(instanceStepError(named, 'diff', 'web')).toBe(named);
    const wrapped = instanceStepError(new Error('down'), 'diff', 'web');
    expect([wrapped.step, wrapped.instance, wrapped.message]).toEqual(['diff', 'web', 'down']);
  });
});

describe('the entry of an instance that failed as a whole', () => {
  it('holds what the bundle says of an instance that did not build, and its error', () => {
    const failure = new ClusterStepError(
      'build',
      new Error('instance web: build failed: values.replicas: conflicting values'),
      'web',
    );
    expect(unbuiltInstanceEntry(declared('web'), failure)).toEqual({
      name: 'web',
      namespace: 'apps',
      module: { url: 'oci://registry.example/modules/web', version: '1.4.0', digest: '' },
      changes: [],
      error: { step: 'build', message: 'instance web: build failed: values.replicas: conflicting values' },
    });
  });

  it('keeps the changes found before a dry-run stopped, and the object concerned', () => {
    const failure = new ClusterStepError('ownership', new Error('owned by bundle other'), 'web', 'ConfigMap/apps/web');
    const change = {
      kind: 'ServiceAccount',
      apiVersion: 'v1',
      namespace: 'apps',
      name: 'web',
      action: 'created' as const,
      diff: '+kind: ServiceAccount',
    };
    const entry = undiffedInstanceEntry(
      { name: 'web', namespace: 'apps', module: { url: 'u', version: 'v', digest: 'd' } },
      failure,
      [change],
    );
    expect(entry.changes).toEqual([change]);
    expect(entry.error).toEqual({ step: 'ownership', message: 'owned by bundle other', object: 'ConfigMap/apps/web' });
    expect(clusterErrorOfInstance(entry.name, entry.error!)).toEqual({
      step: 'ownership',
      message: 'owned by bundle other',
      instance: 'web',
      object: 'ConfigMap/apps/web',
    });
  });
});

describe('builtOrNothing (a rollout applies a cluster whole or not at all)', () => {
  it('answers every build in bundle order when all built, adding and telling nothing', async () => {
    const into: InstanceChanges[] = [];
    const lines: string[] = [];
    const built = await builtOrNothing(
      'staging-1',
      started([
        ['a', null],
        ['b', null],
      ]),
      into,
      (line) => lines.push(line),
    );
    expect(built.map((instance) => instance.name)).toEqual(['a', 'b']);
    expect(into).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('lists and tells each instance that did not build, in bundle order, and fails the cluster saying nothing was applied', async () => {
    const into: InstanceChanges[] = [];
    const lines: string[] = [];
    const builds = started([
      ['a', null],
      ['b', new Error('instance b: build failed: B')],
      ['c', null],
      ['d', new Error('instance d: build failed: D')],
    ]);
    const failure = await builtOrNothing('production-eu', builds, into, (line) => lines.push(line)).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ClusterStepError);
    const stepError = failure as ClusterStepError;
    expect([stepError.step, stepError.instance]).toEqual(['build', 'b']);
    expect(stepError.message).toBe(
      'nothing was applied to cluster production-eu: instances b, d did not build (an apply is all or nothing per cluster)',
    );
    // Its cause leads to the first instance's own failure (annotations read its diagnostics there).
    expect((stepError.cause as Error).cause).toBeInstanceOf(ClusterStepError);
    expect(into.map((entry) => [entry.name, entry.error?.message])).toEqual([
      ['b', 'instance b: build failed: B'],
      ['d', 'instance d: build failed: D'],
    ]);
    expect(lines).toEqual(['✗ instance b: build failed: B', '✗ instance d: build failed: D']);
  });
});

describe('refuseReservedObjects', () => {
  const withObjects = (name: string, objects: Array<Record<string, unknown>>): ClusterInstanceBuild => {
    const build = builtInstance(name);
    return {
      ...build,
      built: { ...build.built, sets: [{ name: 'app', objects: objects as never }] },
    };
  };
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'apps' } };
  const record = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'timoni.billing', namespace: 'apps' } };
  const identity = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ours', namespace: 'kube-system' } };

  it('lets a cluster whose builds hold no record through, adding nothing', () => {
    const into: InstanceChanges[] = [];
    refuseReservedObjects('staging-1', [withObjects('web', [configMap])], {}, into, () => undefined);
    expect(into).toEqual([]);
  });

  it('fails the cluster at step reserved, listing each refused object as failed, before anything is applied', () => {
    const into: InstanceChanges[] = [];
    const lines: string[] = [];
    let thrown: unknown;
    try {
      refuseReservedObjects(
        'staging-1',
        [withObjects('web', [configMap]), withObjects('api', [record, identity])],
        { identityRecord: 'ours' },
        into,
        (line) => lines.push(line),
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ClusterStepError);
    const failure = thrown as ClusterStepError;
    expect([failure.step, failure.instance, failure.object]).toEqual(['reserved', 'api', 'Secret/apps/timoni.billing']);
    expect(failure.message).toMatch(
      /^nothing was applied to cluster staging-1: instance api: Secret\/apps\/timoni.billing: refused: .*Timoni instance record.*; instance api: ConfigMap\/kube-system\/ours: refused: .*cluster identity record/,
    );
    expect(into.map((entry) => [entry.name, entry.changes.map((c) => [c.kind, c.name, c.action])])).toEqual([
      [
        'api',
        [
          ['Secret', 'timoni.billing', 'failed'],
          ['ConfigMap', 'ours', 'failed'],
        ],
      ],
    ]);
    expect(lines).toHaveLength(2);
  });
});
