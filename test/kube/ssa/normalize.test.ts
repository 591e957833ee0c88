// Normalisation of live objects (server-set fields dropped) and JSON comparison.
import { describe, expect, it } from 'vitest';
import { jsonEqual, normalizeObject } from '../../../src/kube/ssa/normalize.js';
import { liveDeployment } from '../support.js';

describe('normalisation', () => {
  it('strips server-set metadata, status and empty maps, and leaves the rest alone', () => {
    const normalized = normalizeObject(liveDeployment);
    expect(normalized).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'apps', labels: { app: 'web' } },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
    });
    expect(liveDeployment.metadata.uid).toBe('5f1c');
    expect(normalizeObject(liveDeployment, { dropStatus: false }).status).toEqual({ readyReplicas: 1 });
  });

  it('compares JSON values regardless of key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });
});
