// The job summary (src/report/job-summary.ts): sections per cluster with instances, objects,
// readiness, errors and diffs, the fit into the 1 MiB step-summary limit, the short variant,
// failed objects and removed instances, the golden summary (written to
// test/report/__output__/job-summary.md) and diffs too large to compute.

import { describe, expect, it } from 'vitest';
import type { ChangeSet, ObjectChange } from '../../src/changeset.js';
import { STEP_SUMMARY_BUDGET, STEP_SUMMARY_LIMIT } from '../../src/github/limits.js';
import { renderJobSummary, renderShortJobSummary } from '../../src/report/job-summary.js';
import {
  brokenInstanceFleet,
  changeSet,
  cluster,
  goldenContext,
  hugeConfigMap,
  instance,
  objectChange,
  planWithFailure,
  podinfoInstance,
  realisticFleet,
  REDIS_MODULE,
  removedRedis,
  rolloutFleet,
  serviceError,
  unchanged,
  withAction,
  writeOutput,
} from './fixtures.js';

const context = {
  commitSha: '0123456789abcdef0123456789abcdef01234567',
  repository: 'acme/fleet',
  runUrl: 'https://github.com/acme/fleet/actions/runs/42',
  secrets: [],
};

function rolloutWithReadiness(): ChangeSet {
  const podinfo = podinfoInstance([1, 2]);
  const changes: ObjectChange[] = podinfo.changes.map((change) =>
    change.kind === 'Deployment'
      ? { ...change, readiness: { status: 'Failed', message: 'Progress deadline exceeded', durationMs: 60_000 } }
      : { ...change, readiness: { status: 'Current', message: 'Resource is current' } },
  );
  return changeSet(
    [
      cluster(
        'staging-eu-1',
        'staging',
        [instance('redis', [unchanged('StatefulSet', 'redis', 'apps/v1')], REDIS_MODULE)],
        { status: 'applied', durationMs: 4_200 },
      ),
      cluster('staging-us-1', 'staging', [{ ...podinfo, changes }], {
        status: 'failed',
        durationMs: 61_000,
        error: { step: 'wait', message: 'Deployment/apps/podinfo not ready: Progress deadline exceeded' },
      }),
      cluster(
        'production-eu-1',
        'production',
        [
          instance(
            'podinfo',
            podinfo.changes.map((change) => withAction(change, 'skipped')),
          ),
        ],
        { status: 'skipped' },
      ),
    ],
    'apply',
  );
}

describe('renderJobSummary', () => {
  it('has a section per cluster with status, duration, instances and an object table', () => {
    const summary = renderJobSummary(rolloutWithReadiness(), context);
    expect(summary).toContain('## timoni-fleet apply · bundle <code>apps</code>');
    expect(summary).toContain('### <code>staging-eu-1</code> · staging · ✅ applied (no changes) · 4.2 s');
    expect(summary).toContain('### <code>staging-us-1</code> · staging · ❌ failed at <code>wait</code> · 1 min 01 s');
    expect(summary).toContain(
      '| <code>redis</code> | <code>apps</code> | <code>oci&#58;//ghcr.io/stefanprodan/modules/redis</code> | <code>7.2.3</code> | <code>sha256&#58;0f9e8d7c6b5a</code> |',
    );
    expect(summary).toContain(
      '| <code>podinfo</code> | <code>Deployment/apps/podinfo</code> | <code>apps/v1</code> | configured | ❌ Failed |',
    );
    expect(summary).toContain(
      '| <code>podinfo</code> | <code>Service/apps/podinfo</code> | <code>v1</code> | unchanged | ✅ Current |',
    );
  });

  it('lists readiness problems and the error', () => {
    const summary = renderJobSummary(rolloutWithReadiness(), context);
    expect(summary).toContain(
      '**Not ready**\n\n- <code>Deployment/apps/podinfo</code> ❌ Failed: Progress deadline exceeded',
    );
    expect(summary).toContain('❌ **Failed at <code>wait</code>**');
    expect(summary).toContain('```text\nDeployment/apps/podinfo not ready: Progress deadline exceeded\n```');
  });

  it('has no readiness column when the ChangeSet carries no readiness', () => {
    const summary = renderJobSummary(realisticFleet(), context);
    expect(summary).toContain('| Instance | Object | API version | Action |\n');
    expect(summary).not.toContain('Readiness');
  });

  it('lists the clusters not reached', () => {
    const summary = renderJobSummary(rolloutWithReadiness(), context);
    expect(summary).toContain('**Not reached** after <code>staging-us-1</code> failed: <code>production-eu-1</code>.');
    expect(summary).toContain('### <code>production-eu-1</code> · production · ⏭️ not reached');
    expect(summary).toContain('| <code>production-eu-1</code> | production | 0 | 0 | 0 | 0 | 0 | – | ⏭️ not reached |');
  });

  it('holds the whole diffs the comment may have cut', () => {
    const set = changeSet(
      ['a', 'b', 'c', 'd', 'e'].map((name) =>
        cluster(name, 'g', [instance('podinfo', [hugeConfigMap('config', 1000, name)])]),
      ),
    );
    const summary = renderJobSummary(set, context);
    for (const item of set.clusters) expect(summary).toContain(item.instances[0]!.changes[0]!.diff);
    expect(summary).not.toContain('✂️');
  });

  it('stays under the 1 MiB step summary limit, cutting diffs fairly', () => {
    const set = changeSet(
      ['a', 'b', 'c', 'd', 'e'].map((name, index) =>
        cluster(name, 'g', [
          instance('podinfo', [
            hugeConfigMap('big', 6000 + 1000 * index, name),
            hugeConfigMap('small', 40, `${name}-small`),
          ]),
        ]),
      ),
    );
    const total = set.clusters.reduce((sum, item) => sum + Buffer.byteLength(item.instances[0]!.changes[0]!.diff), 0);
    expect(total).toBeGreaterThan(STEP_SUMMARY_LIMIT);
    const summary = renderJobSummary(set, context);
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(STEP_SUMMARY_BUDGET);
    expect(summary).toContain("Shortened to fit GitHub's 1 MiB job summary limit: 5 diffs cut");
    for (const item of set.clusters) expect(summary).toContain(item.instances[0]!.changes[1]!.diff);
    expect(summary.match(/### <code>/g)).toHaveLength(5);
  });

  it('measures in UTF-8 bytes', () => {
    const diff = `--- live\n+++ desired\n${'+  greeting: こんにちは世界 🌍\n'.repeat(2_000)}`;
    const set = changeSet(
      ['a', 'b'].map((name) =>
        cluster(name, 'g', [
          instance('podinfo', [
            hugeConfigMap('x', 1, name),
            { ...hugeConfigMap('y', 1, name), diff: `${diff}# ${name}\n` },
          ]),
        ]),
      ),
    );
    const summary = renderJobSummary(set, { ...context, maxSize: 50_000 });
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(50_000);
    // measured in bytes, not code units: the text is well under 50,000 code units
    expect(Buffer.byteLength(summary)).toBeGreaterThan(45_000);
    expect(summary.length).toBeLessThan(40_000);
    expect(summary).toContain('2 diffs cut');
  });

  it('has a short variant for diff mode that links the PR comment', () => {
    const summary = renderShortJobSummary(realisticFleet(), {
      ...context,
      commentUrl: 'https://github.com/acme/fleet/pull/7#issuecomment-1',
    });
    expect(summary).toContain('## timoni-fleet diff · bundle <code>apps</code>');
    expect(summary).toContain('🟡 Changes on 3 of 3 clusters');
    expect(summary).toContain('[pull request comment](https://github.com/acme/fleet/pull/7#issuecomment-1)');
    expect(summary).toContain('| <code>staging-eu-1</code> |');
    expect(summary).not.toContain('```diff');
  });

  it('lists objects fairly and leaves diffs out when the object tables alone are too long', () => {
    const many = (name: string, count: number) =>
      cluster(name, 'g', [
        instance(
          'podinfo',
          Array.from({ length: count }, (_, index) => ({
            ...hugeConfigMap(`config-${name}-${index}`, 2, name),
            action: 'created' as const,
          })),
        ),
      ]);
    const set = changeSet([many('small', 3), many('big', 4000)]);
    const summary = renderJobSummary(set, { ...context, maxSize: 100_000 });
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(100_000);
    expect(summary).not.toContain('```diff');
    expect(summary).toContain('_Diffs left out to fit the job summary limit._');
    for (let index = 0; index < 3; index += 1)
      expect(summary).toContain(`<code>ConfigMap/apps/config-small-${index}</code>`);
    expect(summary).toMatch(/_\d+ more objects not listed to fit the job summary limit._/);
    expect(summary).toMatch(
      /Shortened to fit GitHub's 1 MiB job summary limit: diffs left out, \d+ objects not listed\./,
    );
  });

  it('shows the notes it is given, escaped and masked', () => {
    const notes = [
      'The token cannot write comments on pull requests from forks: the diff is only in this summary.',
      'Token <abc-secret-1> | rejected',
      'password p@ss|word! refused',
    ];
    for (const render of [renderJobSummary, renderShortJobSummary]) {
      const summary = render(realisticFleet(), { ...context, notes, secrets: ['abc-secret-1', 'p@ss|word!'] });
      expect(summary).toContain(
        '> [!NOTE]\n> The token cannot write comments on pull requests from forks&#58; the diff is only in this summary.\n>\n> Token &#60;&#42;&#42;&#42;&#62; &#124; rejected\n>\n> password &#42;&#42;&#42; refused\n',
      );
      expect(summary).not.toContain('abc-secret-1');
      expect(summary).not.toContain('p&#64;ss');
    }
  });
});

describe('failed objects and removed instances in the job summary', () => {
  it('lists failed objects with their errors, and the action in the table', () => {
    const summary = renderJobSummary(planWithFailure(), context);
    expect(summary).toContain(
      '| <code>podinfo</code> | <code>Service/apps/podinfo</code> | <code>v1</code> | ❌ failed |',
    );
    expect(summary).toContain(
      `**Failed objects**\n\n- <code>podinfo</code> <code>Service/apps/podinfo</code>\n\n\`\`\`text\n${serviceError}\n\`\`\`\n`,
    );
    expect(summary).toContain(
      '| <code>podinfo</code> | <code>ServiceAccount/apps/podinfo</code> | <code>v1</code> | deleted |',
    );
  });

  it('after an apply says the objects of a removed instance were deleted', () => {
    const applied = changeSet(
      [cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), removedRedis()], { status: 'applied' })],
      'apply',
    );
    const summary = renderJobSummary(applied, context);
    expect(summary).toContain(
      '| <code>redis</code> 🗑️ instance removed from the bundle: 3 objects deleted | <code>apps</code> |',
    );
    expect(summary).not.toContain('would be deleted');
  });
});

describe('golden job summary (written to test/report/__output__/job-summary.md)', () => {
  const summary = renderJobSummary(rolloutFleet(), {
    ...goldenContext,
    commentUrl: 'https://github.com/acme/fleet-config/pull/128#issuecomment-1',
  });
  writeOutput('job-summary.md', summary);

  it('reports applied, failed and not reached clusters', () => {
    expect(summary).toContain('### <code>staging-eu-1</code> · staging · ✅ applied · 41.2 s');
    expect(summary).toContain(
      '### <code>production-eu-1</code> · production · ❌ failed at <code>wait</code> · 5 min 00 s',
    );
    expect(summary).toContain('### <code>production-us-1</code> · production · ⏭️ not reached');
  });
});

describe('a diff too large to compute in the job summary', () => {
  const crd = objectChange({
    kind: 'CustomResourceDefinition',
    apiVersion: 'apiextensions.k8s.io/v1',
    namespace: '',
    name: 'widgets.acme.io',
    action: 'configured',
    diffTooLarge: { liveLines: 12_000, desiredLines: 12_500 },
  });

  it('says so among the diffs, and lists the object in the table', () => {
    const summary = renderJobSummary(
      changeSet([cluster('a', 'g', [instance('crds', [crd]), podinfoInstance([1, 2])])]),
      context,
    );
    expect(summary).toContain(
      '**Diffs**\n\n- <code>crds</code> <code>CustomResourceDefinition/widgets.acme.io</code> configured · ⚠️ diff too large to compute (12,000 lines live, 12,500 desired); compare <code>timoni-fleet build</code> with the live object locally\n\n',
    );
    expect(summary).toContain(
      '| <code>crds</code> | <code>CustomResourceDefinition/widgets.acme.io</code> | <code>apiextensions.k8s.io/v1</code> | configured |',
    );
    expect(summary).toContain(
      '<summary><code>podinfo</code> <code>Deployment/apps/podinfo</code> configured</summary>',
    );
  });

  it('after an apply too, but not for an object left alone (skipped)', () => {
    const summary = renderJobSummary(
      changeSet(
        [
          cluster('a', 'g', [instance('crds', [crd])], { status: 'applied' }),
          cluster('b', 'g', [instance('crds', [withAction(crd, 'skipped')])], { status: 'applied' }),
        ],
        'apply',
      ),
      context,
    );
    expect(summary.match(/diff too large to compute/g)).toHaveLength(1);
  });
});

describe('the cluster identity in the job summary', () => {
  it("shows each cluster's kube-system uid and its record, and what the run wrote", () => {
    const uid = '1a2b3c4d-0000-4000-8000-000000000001';
    const summary = renderJobSummary(
      changeSet(
        [
          {
            ...cluster('staging-1', 'staging', [], { status: 'applied' }),
            identity: { uid, recordedAs: 'staging-1', recordedAt: '2026-11-24T10:00:00.000Z', change: 'recorded' },
          },
          {
            ...cluster('production-eu', 'production', [], {
              status: 'failed',
              error: { step: 'identity', message: 'context "eks-prod" reaches the cluster recorded as "staging-1"' },
            }),
            identity: { uid, recordedAs: 'staging-1', recordedAt: '2026-11-24T10:00:00.000Z' },
          },
          cluster('production-us', 'production', [], { status: 'skipped' }),
        ],
        'apply',
      ),
      context,
    );
    expect(summary).toContain(
      'Identity: kube-system uid <code>1a2b3c4d…</code>, recorded 2026-11-24 as <code>staging-1</code> (first apply: recorded now)\n\n',
    );
    expect(summary).toContain(
      'Identity: kube-system uid <code>1a2b3c4d…</code>, recorded 2026-11-24 as <code>staging-1</code>\n\n',
    );
    expect(summary.match(/Identity: /g)).toHaveLength(2);
  });
});

describe('one broken instance among others (InstanceChanges.error)', () => {
  const occurrences = (text: string, part: string) => text.split(part).length - 1;
  const section = (summary: string, name: string) => {
    const start = summary.indexOf(`### <code>${name}</code>`);
    const end = summary.indexOf('### <code>', start + 1);
    return summary.slice(start, end === -1 ? undefined : end);
  };

  it('marks the broken instance failed in the instance table and shows its error once, under Failed instances', () => {
    const summary = renderJobSummary(brokenInstanceFleet(), context);
    const eu = section(summary, 'production-eu-1');
    expect(eu).toContain('| <code>redis</code> ❌ failed at <code>build</code> | <code>apps</code> |');
    expect(eu).toContain(
      '**Failed instances**\n\n- <code>redis</code>\n\n❌ **Failed at <code>build</code>**:\n\n```text\ninstance redis',
    );
    expect(occurrences(eu, 'Failed at <code>build</code>**')).toBe(1);
    // The instances that built keep their objects and diffs.
    expect(eu).toContain('| <code>podinfo</code> | <code>Deployment/apps/podinfo</code> |');
    expect(eu).toContain('replicas: 4');
    const us = section(summary, 'production-us-1');
    expect(us).toContain('the same error as on <code>production-eu-1</code> (shown there)');
    expect(occurrences(summary, 'conflicting values "many" and int')).toBe(1);
  });

  it('after a rollout, says that nothing was applied and shows the error once', () => {
    const summary = renderJobSummary(brokenInstanceFleet('apply'), context);
    const eu = section(summary, 'production-eu-1');
    expect(eu).toContain('nothing was applied to cluster production-eu-1: instance redis did not build');
    expect(occurrences(summary, 'conflicting values "many" and int')).toBe(1);
  });
});
