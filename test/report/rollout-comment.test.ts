import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { findMarker } from '../../src/report/marker.js';
import { renderRolloutComment } from '../../src/report/rollout-comment.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import { changeSet, cluster, hugeConfigMap, instance, podinfoInstance, withAction } from './fixtures.js';

const context = { commitSha: 'fedcba9876543210fedcba9876543210fedcba98', repository: 'acme/fleet', runUrl: 'https://github.com/acme/fleet/actions/runs/77', secrets: [] };

function appliedFleet(): ChangeSet {
  return changeSet(
    [
      cluster('staging-eu-1', 'staging', [podinfoInstance([1, 2])], { status: 'applied', durationMs: 12_300 }),
      cluster('production-eu-1', 'production', [podinfoInstance([3, 4])], { status: 'applied', durationMs: 20_100 }),
      cluster('production-us-1', 'production', [podinfoInstance([3, 4])], { status: 'applied', durationMs: 19_800 }),
    ],
    'apply',
  );
}

function failedAtStaging(): ChangeSet {
  const staging = podinfoInstance([1, 2]);
  return changeSet(
    [
      cluster('staging-eu-1', 'staging', [staging], {
        status: 'failed',
        durationMs: 300_000,
        error: { step: 'wait', message: 'timeout waiting for Deployment/apps/podinfo: 0 of 2 replicas ready', instance: 'podinfo', object: 'Deployment/apps/podinfo' },
      }),
      cluster('production-eu-1', 'production', [instance('podinfo', podinfoInstance([3, 4]).changes.map((change) => withAction(change, 'skipped')))], { status: 'skipped' }),
      cluster('production-us-1', 'production', [], { status: 'skipped' }),
    ],
    'apply',
  );
}

describe('renderRolloutComment', () => {
  it('reports every cluster applied, keeping the marker', () => {
    const body = renderRolloutComment(appliedFleet(), context);
    expect(findMarker(body)).toEqual({ bundle: 'apps' });
    expect(body).toContain('### timoni-fleet rollout · bundle <code>apps</code>');
    expect(body).toContain('✅ Applied to 3 of 3 clusters at commit [<code>fedcba9</code>]');
    expect(body.match(/\| ✅ applied \|/g)).toHaveLength(3);
    expect(body).not.toContain('Not reached');
  });

  it('reports a failure at staging with its step and error, and production not reached', () => {
    const body = renderRolloutComment(failedAtStaging(), context);
    expect(body).toContain('❌ Rollout stopped at <code>staging-eu-1</code> (failed at <code>wait</code>); applied to 0 of 3 clusters');
    expect(body).toContain('| <code>staging-eu-1</code> | staging | 1 | 1 | 0 | 0 | ❌ failed at <code>wait</code> |');
    expect(body).toContain('| <code>production-eu-1</code> | production | 0 | 0 | 0 | 0 | ⏭️ not reached |');
    expect(body).toContain('| <code>production-us-1</code> | production | 0 | 0 | 0 | 0 | ⏭️ not reached |');
    expect(body).toContain('**Not reached** after <code>staging-eu-1</code> failed: <code>production-eu-1</code>, <code>production-us-1</code>.');
    expect(body).toContain('❌ **Failed at <code>wait</code>** (instance <code>podinfo</code>, object <code>Deployment/apps/podinfo</code>)');
    expect(body).toContain('0 of 2 replicas ready');
  });

  it('opens the failed cluster and keeps the clusters not reached closed and without diffs', () => {
    const body = renderRolloutComment(failedAtStaging(), context);
    expect(body).toContain('<details open>\n<summary><b>staging-eu-1</b>');
    expect(body).toContain('<details>\n<summary><b>production-eu-1</b> · production · ⏭️ not reached</summary>');
    const production = body.slice(body.indexOf('<summary><b>production-eu-1</b>'));
    expect(production).toContain('Not reached: the rollout stopped at an earlier failure.');
    expect(production).not.toContain('```diff');
  });

  it('stays within the comment limit', () => {
    const big = changeSet(
      ['a', 'b', 'c'].map((name) => cluster(name, 'g', [instance('podinfo', [hugeConfigMap('config', 4000, name)])], { status: 'applied' })),
      'apply',
    );
    const body = renderRolloutComment(big, context);
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('3 diffs cut');
  });
});
