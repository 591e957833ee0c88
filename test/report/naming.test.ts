import type { ObjectChange } from '../../src/changeset.js';
import { describe, expect, it } from 'vitest';
import { clusterHasChanges, countActions, describeCounts } from '../../src/report/cluster-counts.js';
import { firstFailure, sectionOpen, statusLabel, unreachedClusters } from '../../src/report/cluster-status.js';
import { moduleRef, objectRef, shortDigest } from '../../src/report/object-ref.js';
import { readinessLabel, readinessOf } from '../../src/report/readiness.js';
import { commitLink, linkTarget, runLink } from '../../src/report/report-context.js';
import { cluster, instance, objectChange, PODINFO_MODULE, podinfoInstance, unchanged } from './fixtures.js';

describe('object and module names', () => {
  it('names objects as Timoni does', () => {
    expect(objectRef({ kind: 'Service', namespace: 'apps', name: 'podinfo' })).toBe('Service/apps/podinfo');
    expect(objectRef({ kind: 'ClusterRole', namespace: '', name: 'podinfo' })).toBe('ClusterRole/podinfo');
  });

  it('shortens digests to 12 hex digits and leaves other forms alone', () => {
    expect(shortDigest(PODINFO_MODULE.digest)).toBe('sha256:54d38da7d42b');
    expect(shortDigest('latest')).toBe('latest');
    expect(shortDigest('')).toBe('');
  });

  it('names a module with its version', () => {
    expect(moduleRef(PODINFO_MODULE)).toBe('oci://ghcr.io/stefanprodan/modules/podinfo:6.5.4');
  });
});

describe('cluster counts and status', () => {
  const changed = cluster('a', 'g', [podinfoInstance([1, 2])]);
  const idle = cluster('b', 'g', [instance('podinfo', [unchanged('Service', 'podinfo')])]);

  it('counts objects per action', () => {
    expect(countActions(changed)).toEqual({ failed: 0, created: 1, configured: 1, unchanged: 2, deleted: 0, recreated: 0, skipped: 0 });
    expect(describeCounts(countActions(changed))).toBe('1 created, 1 configured');
    expect(describeCounts(countActions(idle))).toBe('no changes');
    expect(clusterHasChanges(changed)).toBe(true);
    expect(clusterHasChanges(idle)).toBe(false);
  });

  it('words each status and opens sections with changes or failures', () => {
    const failed = cluster('c', 'g', [], { status: 'failed', error: { step: 'apply', message: 'x' } });
    const skipped = cluster('d', 'g', [], { status: 'skipped' });
    expect([changed, idle, failed, skipped].map(statusLabel)).toEqual(['🟡 changes', '✅ no changes', '❌ failed at <code>apply</code>', '⏭️ not reached']);
    expect(statusLabel({ ...idle, status: 'applied' })).toBe('✅ applied (no changes)');
    expect([changed, idle, failed, skipped].map(sectionOpen)).toEqual([true, false, true, false]);
    expect(firstFailure([changed, failed, skipped])?.name).toBe('c');
    expect(unreachedClusters([changed, failed, skipped]).map((item) => item.name)).toEqual(['d']);
  });
});

describe('readiness', () => {
  it('reads a well-formed readiness field and ignores a malformed one', () => {
    const ready: ObjectChange = { ...objectChange({ kind: 'Deployment', name: 'podinfo' }), readiness: { status: 'Current', message: 'Resource is Ready', durationMs: 5 } };
    // A ChangeSet read back from JSON may carry anything.
    const malformed = { ...objectChange({ kind: 'Deployment', name: 'podinfo' }), readiness: { status: 'Great' } } as unknown as ObjectChange;
    expect(readinessOf(ready)).toEqual({ status: 'Current', message: 'Resource is Ready', durationMs: 5 });
    expect(readinessOf(malformed)).toBeUndefined();
    expect(readinessOf(objectChange({ kind: 'Deployment', name: 'podinfo' }))).toBeUndefined();
    expect(readinessLabel({ status: 'InProgress', message: '' })).toBe('⏳ InProgress');
  });
});

describe('links', () => {
  it('links the commit when the repository is known, on the configured server', () => {
    const sha = 'abcdef0123456789abcdef0123456789abcdef01';
    expect(commitLink({ commitSha: sha, secrets: [] })).toBe('<code>abcdef0</code>');
    expect(commitLink({ commitSha: sha, repository: 'o/r', serverUrl: 'https://ghe.example.com/', secrets: [] })).toBe(
      `[<code>abcdef0</code>](https://ghe.example.com/o/r/commit/${sha})`,
    );
  });

  it('keeps link targets from breaking the Markdown link', () => {
    expect(linkTarget('https://x/a b)(c<d>')).toBe('https://x/a%20b%29%28c%3Cd%3E');
    expect(runLink({ commitSha: 'x', secrets: [] }, 'run')).toBe('run');
  });
});
