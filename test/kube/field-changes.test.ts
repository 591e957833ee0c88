// The field changes shown for an object that must be recreated: the live object seen
// through the desired object's shape, so that server defaults do not pass for changes.
import { describe, expect, it } from 'vitest';
import { fieldChangesDiff, projectOnto, recreateDiff, recreateNote } from '../../src/kube/field-changes.js';
import type { KubeObject } from '../../src/kube/object.js';

/** A Job as the API server holds it: defaults, server metadata and status added. */
function liveJob(command: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace: 'apps', uid: 'u-1', resourceVersion: '12', generation: 1, creationTimestamp: '2025-01-01T00:00:00Z', labels: { app: 'migrate', 'batch.kubernetes.io/job-name': 'migrate' } },
    spec: {
      backoffLimit: 6,
      completions: 1,
      parallelism: 1,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
      template: {
        metadata: { labels: { 'batch.kubernetes.io/job-name': 'migrate' } },
        spec: {
          restartPolicy: 'Never',
          dnsPolicy: 'ClusterFirst',
          terminationGracePeriodSeconds: 30,
          containers: [{ name: 'run', image: 'busybox:1.36', command: ['sh', '-c', command], imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' }],
        },
      },
    },
    status: { succeeded: 1 },
  };
}

function desiredJob(command: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace: 'apps', labels: { app: 'migrate' } },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.36', command: ['sh', '-c', command] }] } } },
  };
}

describe('field changes of a recreated object', () => {
  it('keeps only the paths the desired object has, lists by position, extra live items included', () => {
    expect(projectOnto({ a: 1, b: { c: 2, d: 3 }, e: 4 }, { a: 9, b: { c: 9 } })).toEqual({ a: 1, b: { c: 2 } });
    // A key live lacks stays absent: it shows as added.
    expect(projectOnto({ a: 1 }, { a: 2, z: 3 })).toEqual({ a: 1 });
    expect(projectOnto([{ port: 8080, protocol: 'TCP', nodePort: 31000 }, { port: 9090 }], [{ port: 80 }])).toEqual([{ port: 8080 }, { port: 9090 }]);
    // Different types: the live value as it is.
    expect(projectOnto('x', { a: 1 })).toBe('x');
    expect(projectOnto({ a: 1 }, ['x'])).toEqual({ a: 1 });
  });

  it('shows the changed command of a Job, not its defaults, server metadata or status', () => {
    const diff = fieldChangesDiff(liveJob('echo one'), desiredJob('echo two'));
    const changed = diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line));
    expect(changed).toEqual(['-            - echo one', '+            - echo two']);
    for (const absent of ['backoffLimit', 'dnsPolicy', 'uid', 'resourceVersion', 'succeeded', 'batch.kubernetes.io/job-name']) expect(diff).not.toContain(absent);
  });

  it('is empty when the fields the module sets are the same (only a default changed)', () => {
    expect(fieldChangesDiff(liveJob('echo one'), desiredJob('echo one'))).toBe('');
  });

  it('shows a field the module adds as added', () => {
    const desired = desiredJob('echo one');
    (desired.spec as { backoffLimit?: number; ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished = 60;
    const diff = fieldChangesDiff(liveJob('echo one'), desired);
    expect(diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line))).toEqual(['+  ttlSecondsAfterFinished: 60']);
  });

  it('masks Secret values, stringData folded into data, changed ones as before/after', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' }, type: 'Opaque', immutable: true, data: { token: Buffer.from('old-pa55').toString('base64'), same: 'c2FtZQ==' } };
    const desired: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' }, type: 'Opaque', immutable: true, stringData: { token: 'new-pa55', same: 'same' } };
    const diff = fieldChangesDiff(live, desired);
    expect(diff).toContain('-  token: "*** (before)"');
    expect(diff).toContain('+  token: "*** (after)"');
    expect(diff).not.toMatch(/[-+]\s+same:/);
    for (const value of ['old-pa55', 'new-pa55', Buffer.from('old-pa55').toString('base64'), 'c2FtZQ==']) expect(diff).not.toContain(value);
  });

  it('ends with a note naming the immutable fields and saying the object is recreated', () => {
    expect(recreateNote(['spec.template'], false)).toBe('# recreated: immutable field spec.template changes; the object is deleted and created again\n');
    expect(recreateNote(['spec.selector', 'spec.template'], true)).toBe('# recreated: immutable fields spec.selector, spec.template change; the object was deleted and created again\n');
    expect(recreateNote([], false)).toBe('# recreated: an immutable field changes; the object is deleted and created again\n');
    const diff = recreateDiff(liveJob('echo one'), desiredJob('echo two'), ['spec.template']);
    expect(diff.startsWith('--- live\n+++ desired\n@@ ')).toBe(true);
    expect(diff.endsWith('+            - echo two\n           image: busybox:1.36\n           name: run\n       restartPolicy: Never\n# recreated: immutable field spec.template changes; the object is deleted and created again\n')).toBe(true);
  });
});
