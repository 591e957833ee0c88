import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/object.js';
import {
  compareDesired,
  describeDifference,
  desiredState,
  stableJson,
  type DesiredInstance,
} from '../../src/fleet/desired-state.js';

const module = { url: 'oci://registry.example/podinfo', version: '6.5.4', digest: 'sha256:' + 'a'.repeat(64) };
const deployment = (replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'podinfo', namespace: 'apps' },
  spec: { replicas },
});
const secret = (password: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'apps' },
  data: { password: Buffer.from(password).toString('base64') },
  stringData: { token: password },
});
const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } };

function instances(options: { replicas?: number; password?: string; digest?: string } = {}): DesiredInstance[] {
  return [
    {
      name: 'podinfo',
      module: { ...module, digest: options.digest ?? module.digest },
      objects: [namespace, deployment(options.replicas ?? 2), secret(options.password ?? 'hunter2-secret')],
    },
  ];
}

describe('desiredState', () => {
  it('is stable: same objects in another key order and with server-set metadata give the same digest', () => {
    const reordered: KubeObject = {
      spec: { replicas: 2 },
      metadata: { namespace: 'apps', name: 'podinfo', uid: 'x', resourceVersion: '7' },
      kind: 'Deployment',
      apiVersion: 'apps/v1',
    };
    const a = desiredState(instances());
    const b = desiredState([{ name: 'podinfo', module, objects: [secret('hunter2-secret'), reordered, namespace] }]);
    expect(b.digest).toBe(a.digest);
    expect(b.objects).toEqual(a.objects);
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(a.objects)).toEqual([
      'podinfo/Deployment/apps/podinfo',
      'podinfo/Namespace/apps',
      'podinfo/Secret/apps/creds',
    ]);
    expect(a.objectCount).toBe(3);
  });

  it('changes with an object, a secret value or a module digest, and says which object', () => {
    const base = desiredState(instances());
    const scaled = desiredState(instances({ replicas: 3 }));
    expect(scaled.digest).not.toBe(base.digest);
    expect(scaled.objects['podinfo/Deployment/apps/podinfo']).not.toBe(base.objects['podinfo/Deployment/apps/podinfo']);
    expect(scaled.objects['podinfo/Secret/apps/creds']).toBe(base.objects['podinfo/Secret/apps/creds']);
    const rotated = desiredState(instances({ password: 'other-secret-value' }));
    expect(rotated.objects['podinfo/Secret/apps/creds']).not.toBe(base.objects['podinfo/Secret/apps/creds']);
    expect(desiredState(instances({ digest: 'sha256:' + 'b'.repeat(64) })).digest).not.toBe(base.digest);
  });

  it('never holds a secret value in any form', () => {
    const text = JSON.stringify(desiredState(instances({ password: 'hunter2-secret' })));
    for (const form of ['hunter2-secret', Buffer.from('hunter2-secret').toString('base64')])
      expect(text).not.toContain(form);
  });
});

describe('compareDesired', () => {
  it('is null for the same state and names modules and objects that differ', () => {
    const reviewed = desiredState(instances());
    expect(compareDesired(reviewed, desiredState(instances()))).toBeNull();
    const difference = compareDesired(
      reviewed,
      desiredState(instances({ replicas: 5, digest: 'sha256:' + 'c'.repeat(64) })),
    );
    expect(difference).toMatchObject({
      changed: ['podinfo/Deployment/apps/podinfo'],
      added: [],
      removed: [],
      partial: false,
    });
    expect(difference?.modules.map((m) => m.instance)).toEqual(['podinfo']);
    const text = describeDifference(difference!);
    expect(text).toContain(
      'module of instance podinfo: reviewed oci://registry.example/podinfo:6.5.4 (sha256:aaaaaaaaaaaa), now oci://registry.example/podinfo:6.5.4 (sha256:cccccccccccc)',
    );
    expect(text).toContain('objects changed: podinfo/Deployment/apps/podinfo');
  });

  it('names added and removed objects, and says when the record was shortened', () => {
    const reviewed = desiredState(instances());
    const fewer = desiredState([
      { name: 'podinfo', module, objects: [namespace, deployment(2), { ...namespace, metadata: { name: 'extra' } }] },
    ]);
    const difference = compareDesired(reviewed, fewer);
    expect(difference?.removed).toEqual(['podinfo/Secret/apps/creds']);
    expect(difference?.added).toEqual(['podinfo/Namespace/extra']);
    const partial = { ...reviewed, objects: {} };
    const shortened = compareDesired(partial, desiredState(instances({ replicas: 9 })));
    expect(shortened).toMatchObject({ changed: [], added: [], partial: true });
    expect(describeDifference(shortened!)).toContain('did not list one by one');
  });
});

describe('stableJson', () => {
  it('sorts map keys at every depth and keeps array order', () => {
    expect(stableJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
