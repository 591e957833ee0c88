// The parts of a cluster's section shared by the reports (src/report/sections.ts): names,
// counts, status words, readiness, the blocks of a section, and the note for a diff too
// large to compute. The sections themselves are tested through comment.test.ts and
// job-summary.test.ts.

import { describe, expect, it } from 'vitest';
import type { ObjectChange } from '../../src/changeset.js';
import {
  clusterHasChanges,
  countActions,
  describeCounts,
  diffTooLargeNote,
  firstFailure,
  moduleRef,
  objectRef,
  readinessLabel,
  readinessOf,
  renderErrorBlock,
  renderRollbackBlock,
  rolloutOutcome,
  sectionOpen,
  shortDigest,
  statusLabel,
  unreachedClusters,
  unreachedNote,
} from '../../src/report/sections.js';
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
    expect(countActions(changed)).toEqual({
      failed: 0,
      created: 1,
      configured: 1,
      unchanged: 2,
      deleted: 0,
      recreated: 0,
      skipped: 0,
    });
    expect(describeCounts(countActions(changed))).toBe('1 created, 1 configured');
    expect(describeCounts(countActions(idle))).toBe('no changes');
    expect(clusterHasChanges(changed)).toBe(true);
    expect(clusterHasChanges(idle)).toBe(false);
  });

  it('words each status and opens sections with changes or failures', () => {
    const failed = cluster('c', 'g', [], { status: 'failed', error: { step: 'apply', message: 'x' } });
    const skipped = cluster('d', 'g', [], { status: 'skipped' });
    expect([changed, idle, failed, skipped].map(statusLabel)).toEqual([
      '🟡 changes',
      '✅ no changes',
      '❌ failed at <code>apply</code>',
      '⏭️ not reached',
    ]);
    expect(statusLabel({ ...idle, status: 'applied' })).toBe('✅ applied (no changes)');
    expect([changed, idle, failed, skipped].map(sectionOpen)).toEqual([true, false, true, false]);
    expect(firstFailure([changed, failed, skipped])?.name).toBe('c');
    expect(unreachedClusters([changed, failed, skipped]).map((item) => item.name)).toEqual(['d']);
  });
});

describe('readiness', () => {
  it('reads a well-formed readiness field and ignores a malformed one', () => {
    const ready: ObjectChange = {
      ...objectChange({ kind: 'Deployment', name: 'podinfo' }),
      readiness: { status: 'Current', message: 'Resource is Ready', durationMs: 5 },
    };
    // A ChangeSet read back from JSON may carry anything.
    const malformed = {
      ...objectChange({ kind: 'Deployment', name: 'podinfo' }),
      readiness: { status: 'Great' },
    } as unknown as ObjectChange;
    expect(readinessOf(ready)).toEqual({ status: 'Current', message: 'Resource is Ready', durationMs: 5 });
    expect(readinessOf(malformed)).toBeUndefined();
    expect(readinessOf(objectChange({ kind: 'Deployment', name: 'podinfo' }))).toBeUndefined();
    expect(readinessLabel({ status: 'InProgress', message: '' })).toBe('⏳ InProgress');
  });
});

describe('rollout outcome and clusters not reached', () => {
  const applied = cluster('a', 'g', [podinfoInstance([1, 2])], { status: 'applied' });
  const failed = cluster('b', 'g', [], { status: 'failed', error: { step: 'wait', message: 'x' } });
  const skipped = cluster('c', 'g', [], { status: 'skipped' });

  it('says where the rollout stopped, or that it applied everywhere', () => {
    expect(rolloutOutcome([applied, failed, skipped])).toBe(
      '❌ Rollout stopped at <code>b</code> (failed at <code>wait</code>); applied to 1 of 3 clusters',
    );
    expect(rolloutOutcome([applied, { ...applied, name: 'd' }])).toBe('✅ Applied to 2 of 2 clusters');
  });

  it('says a cancelled rollout was cancelled, where, and what it did not reach', () => {
    const cancelled = cluster('b', 'g', [], {
      status: 'failed',
      error: { step: 'cancelled', interrupted: 'wait', instance: 'web', message: 'x' },
    });
    const notStarted = cluster('b', 'g', [], {
      status: 'failed',
      error: { step: 'cancelled', interrupted: 'start', message: 'x' },
    });
    expect(rolloutOutcome([applied, cancelled, skipped])).toBe(
      '⏹️ Rollout cancelled at <code>b</code> (during <code>wait</code> of instance <code>web</code>); applied to 1 of 3 clusters',
    );
    expect(rolloutOutcome([applied, notStarted, skipped])).toBe(
      '⏹️ Rollout cancelled before <code>b</code>; applied to 1 of 3 clusters',
    );
    expect([cancelled, notStarted].map(statusLabel)).toEqual([
      '⏹️ cancelled at <code>wait</code>',
      '⏹️ cancelled before it started',
    ]);
    expect(unreachedNote([applied, cancelled, skipped])).toBe(
      '**Not reached** after <code>b</code> was cancelled: <code>c</code>.\n\n',
    );
    const block = renderErrorBlock(cancelled.error!, { cap: 1000, measure: (text) => text.length, cutNote: () => '' });
    expect(block.startsWith('⏹️ **Cancelled during <code>wait</code>** (instance <code>web</code>):')).toBe(true);
  });

  it('names the clusters not reached after the failure, or nothing', () => {
    expect(unreachedNote([applied, failed, skipped])).toBe(
      '**Not reached** after <code>b</code> failed: <code>c</code>.\n\n',
    );
    expect(unreachedNote([applied, failed])).toBe('');
  });
});

describe('diffTooLargeNote', () => {
  const crd = (overrides: Partial<ObjectChange>): ObjectChange =>
    objectChange({
      kind: 'CustomResourceDefinition',
      namespace: '',
      name: 'widgets.acme.io',
      action: 'configured',
      ...overrides,
    });

  it('gives both sizes, grouped by thousands, and a way to see the change', () => {
    expect(diffTooLargeNote(crd({ diffTooLarge: { liveLines: 12_000, desiredLines: 12_500 } }))).toBe(
      '⚠️ diff too large to compute (12,000 lines live, 12,500 desired); compare <code>timoni-fleet build</code> with the live object locally',
    );
    expect(
      diffTooLargeNote(crd({ action: 'created', diffTooLarge: { liveLines: 0, desiredLines: 1_000_000 } })),
    ).toContain('(1,000,000 lines desired)');
    expect(diffTooLargeNote(crd({ action: 'deleted', diffTooLarge: { liveLines: 100, desiredLines: 0 } }))).toContain(
      '(100 lines live)',
    );
  });

  it('is undefined when the diff was computed, or the object does not change', () => {
    expect(diffTooLargeNote(crd({ diff: '-a\n+b\n' }))).toBeUndefined();
    expect(
      diffTooLargeNote(crd({ action: 'unchanged', diffTooLarge: { liveLines: 1, desiredLines: 1 } })),
    ).toBeUndefined();
    expect(
      diffTooLargeNote(crd({ action: 'skipped', diffTooLarge: { liveLines: 1, desiredLines: 1 } })),
    ).toBeUndefined();
  });

  it('leaves out sizes that are not line counts (a ChangeSet read back from JSON may carry anything)', () => {
    const malformed = { ...crd({}), diffTooLarge: { liveLines: 'many', desiredLines: -1 } } as unknown as ObjectChange;
    expect(diffTooLargeNote(malformed)).toBe(
      '⚠️ diff too large to compute; compare <code>timoni-fleet build</code> with the live object locally',
    );
  });
});

describe('a rollback (on-failure: rollback)', () => {
  const options = { cap: 1000, measure: (text: string) => text.length, cutNote: () => '' };
  const web = instance('web', [unchanged('Deployment', 'web', 'apps/v1')]);
  const failed = {
    ...cluster(
      'staging',
      'staging',
      [
        { ...web, rollback: { action: 'restored' as const, module: PODINFO_MODULE, changes: [] } },
        { ...instance('api', []), rollback: { action: 'deleted' as const, changes: [] } },
      ],
      { status: 'failed', error: { step: 'wait', message: 'not ready', instance: 'web' } },
    ),
    rollback: { outcome: 'rolled back' as const },
  };
  const sibling = {
    ...cluster('staging-2', 'staging', [web], { status: 'applied' }),
    rollback: {
      outcome: 'rollback failed' as const,
      wave: { failed: 'staging' },
      error: { message: 'the server refused <it>', instance: 'web', object: 'Deployment/apps/web' },
    },
  };
  const skipped = cluster('prod', 'production', [], { status: 'skipped' });

  it('says rolled back (or rollback failed, and whose failure) where the status is shown', () => {
    expect(statusLabel(failed)).toBe('❌ failed at <code>wait</code> · ↩️ rolled back');
    expect(statusLabel(sibling)).toBe(
      '✅ applied (no changes) · ⚠️ rollback failed (<code>staging</code> of its wave failed)',
    );
    expect(statusLabel(skipped)).toBe('⏭️ not reached');
    expect(rolloutOutcome([failed, sibling, skipped])).toBe(
      '❌ Rollout stopped at <code>staging</code> (failed at <code>wait</code>); applied to 1 of 3 clusters; ↩️ rolled back <code>staging</code>; ⚠️ rollback failed on <code>staging-2</code>',
    );
  });

  it('lists what was put back, and a failed rollback with its instance, object and answer', () => {
    expect(renderRollbackBlock(failed, options)).toBe(
      `↩️ **Rolled back**: the cluster failed, so every instance this run changed on it was put back as it was before the run: <code>web</code> restored to <code>${PODINFO_MODULE.url.replace(':', '&#58;')}</code> <code>${PODINFO_MODULE.version}</code>; <code>api</code> deleted (installed by this run).\n\n`,
    );
    const block = renderRollbackBlock(sibling, options);
    expect(block).toContain(
      '⚠️ **Rollback failed** (instance <code>web</code>, object <code>Deployment/apps/web</code>): cluster <code>staging</code> of its wave failed, so',
    );
    expect(block).toContain('the server refused <it>');
    expect(renderRollbackBlock(skipped, options)).toBe('');
  });
});
