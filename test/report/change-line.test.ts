// Timoni-style log lines (src/fleet/outcome.ts), as the action log and the CLI print them.
import { describe, expect, it } from 'vitest';
import { changeLine, logPrefix } from '../../src/fleet/outcome.js';
import { objectChange } from './fixtures.js';

describe('changeLine', () => {
  it('writes Timoni-style lines for namespaced objects', () => {
    const change = objectChange({ kind: 'Deployment', apiVersion: 'apps/v1', name: 'podinfo', action: 'configured' });
    expect(changeLine('apps', 'staging-eu-1', 'podinfo', change)).toBe('b:apps > c:staging-eu-1 > i:podinfo > Deployment/apps/podinfo configured');
  });

  it('leaves out the namespace of cluster-scoped objects', () => {
    const change = objectChange({ kind: 'Namespace', name: 'apps', namespace: '', action: 'created' });
    expect(changeLine('apps', 'c', 'i', change)).toBe('b:apps > c:c > i:i > Namespace/apps created');
  });

  it('leaves out the default cluster, as Timoni does without a runtime', () => {
    expect(logPrefix('apps', '_default', 'podinfo')).toBe('b:apps > i:podinfo');
    expect(logPrefix('apps')).toBe('b:apps');
  });
});
