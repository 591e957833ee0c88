import { describe, expect, it } from 'vitest';
import { formatChangeLine, formatClusterChangeLines } from '../../src/report/change-line.js';
import { objectChange, realisticFleet } from './fixtures.js';

describe('formatChangeLine', () => {
  it('writes Timoni-style lines for namespaced objects', () => {
    const line = formatChangeLine({
      bundle: 'apps',
      cluster: 'staging-eu-1',
      instance: 'podinfo',
      change: objectChange({ kind: 'Deployment', apiVersion: 'apps/v1', name: 'podinfo', action: 'configured' }),
    });
    expect(line).toBe('b:apps > c:staging-eu-1 > i:podinfo > Deployment/apps/podinfo configured');
  });

  it('leaves out the namespace of cluster-scoped objects', () => {
    const change = objectChange({ kind: 'Namespace', name: 'apps', namespace: '', action: 'created' });
    expect(formatChangeLine({ bundle: 'apps', cluster: 'c', instance: 'i', change })).toBe('b:apps > c:c > i:i > Namespace/apps created');
  });

  it('lists the lines of one cluster in apply order', () => {
    expect(formatClusterChangeLines(realisticFleet(), 'production-us-1')).toEqual([
      'b:apps > c:production-us-1 > i:podinfo > ServiceAccount/apps/podinfo unchanged',
      'b:apps > c:production-us-1 > i:podinfo > Service/apps/podinfo unchanged',
      'b:apps > c:production-us-1 > i:podinfo > Deployment/apps/podinfo configured',
      'b:apps > c:production-us-1 > i:podinfo > HorizontalPodAutoscaler/apps/podinfo created',
      'b:apps > c:production-us-1 > i:redis > StatefulSet/apps/redis unchanged',
    ]);
    expect(formatClusterChangeLines(realisticFleet(), 'nowhere')).toEqual([]);
  });
});
