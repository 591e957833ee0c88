// The PR comment and its rollout update (src/report/comment.ts): headline, status table,
// sections per cluster, shared changes shown once, the fit into GitHub's comment limit, the
// marker that finds the comment again, failed objects and removed instances, the golden
// comments (written to test/report/__output__/ for a human to look at), and diffs too
// large to compute.

import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { failedObjects } from '../../src/fleet/plan.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import {
  commentMarker,
  findMarker,
  GROUPING_MIN_CLUSTERS,
  groupClusters,
  groupMembers,
  groupRepresentatives,
  isCommentOf,
  renderPullRequestComment,
  renderRolloutComment,
} from '../../src/report/comment.js';
import {
  brokenInstanceFleet,
  changeSet,
  cluster,
  created,
  deploymentConfigured,
  failedService,
  goldenContext,
  hugeConfigMap,
  instance,
  objectChange,
  planWithFailure,
  PODINFO_MODULE,
  podinfoInstance,
  podinfoWithFailure,
  pullRequestFleet,
  realisticFleet,
  removedRedis,
  rolloutFleet,
  serviceError,
  unbuiltRedis,
  unchanged,
  valuesError,
  withAction,
  writeOutput,
} from './fixtures.js';

const context = {
  commitSha: '0123456789abcdef0123456789abcdef01234567',
  repository: 'acme/fleet',
  runUrl: 'https://github.com/acme/fleet/actions/runs/42',
  secrets: [],
};

/** The rows of the cluster table, as arrays of cells. */
function tableRows(body: string): string[][] {
  const lines = body.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Cluster |'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(2, -2).split(' | '));
  }
  return rows;
}

/** The `<details>` sections of clusters: name and whether open. */
function clusterSections(body: string): { name: string; open: boolean }[] {
  return [...body.matchAll(/<details( open)?>\n<summary><b>([^<]*)<\/b>/g)].map((match) => ({
    name: match[2] ?? '',
    open: match[1] !== undefined,
  }));
}

describe('renderPullRequestComment', () => {
  it('names the commit and links the run', () => {
    const body = renderPullRequestComment(realisticFleet(), context);
    expect(body).toContain(
      '[<code>0123456</code>](https://github.com/acme/fleet/commit/0123456789abcdef0123456789abcdef01234567)',
    );
    expect(body).toContain('(https://github.com/acme/fleet/actions/runs/42)');
  });

  it('says "no changes" once in the section of an unchanged cluster', () => {
    const set = changeSet([
      cluster('staging-eu-1', 'staging', [podinfoInstance([1, 2])]),
      cluster('production-us-1', 'production', [instance('podinfo', [unchanged('Service', 'podinfo')])]),
    ]);
    const body = renderPullRequestComment(set, context);
    expect(body).toContain('<summary><b>production-us-1</b> · production · ✅ no changes</summary>');
    expect(body).not.toContain('no changes · no changes');
    expect(body).toMatch(/<summary><b>staging-eu-1<\/b> · staging · 🟡 changes · 1 created, 1 configured<\/summary>/);
  });

  it('opens with a table of clusters in runtime order with counts and status', () => {
    const set = changeSet([
      cluster('staging-eu-1', 'staging', [podinfoInstance([1, 2])]),
      cluster('production-us-1', 'production', [instance('podinfo', [unchanged('Service', 'podinfo')])]),
      cluster('production-eu-1', 'production', [
        instance('podinfo', [
          objectChange({
            kind: 'ConfigMap',
            name: 'old',
            action: 'deleted',
            diff: '--- live\n+++ desired\n-data: {}\n',
          }),
          objectChange({
            kind: 'Job',
            apiVersion: 'batch/v1',
            name: 'migrate',
            action: 'recreated',
            diff: '-  image: a\n+  image: b\n',
          }),
          objectChange({
            kind: 'Job',
            apiVersion: 'batch/v1',
            name: 'seed',
            action: 'recreated',
            diff: '-  image: c\n+  image: d\n',
          }),
        ]),
      ]),
      cluster('production-ap-1', 'production', [], {
        status: 'failed',
        error: { step: 'diff', message: 'connection refused' },
      }),
    ]);
    const rows = tableRows(renderPullRequestComment(set, context));
    expect(rows.map((row) => row[0])).toEqual([
      '<code>staging-eu-1</code>',
      '<code>production-us-1</code>',
      '<code>production-eu-1</code>',
      '<code>production-ap-1</code>',
    ]);
    expect(rows[0]?.slice(1)).toEqual(['staging', '1', '1', '0', '0', '🟡 changes']);
    expect(rows[1]?.slice(1)).toEqual(['production', '0', '0', '0', '0', '✅ no changes']);
    expect(rows[2]?.slice(1)).toEqual(['production', '0', '0', '1', '2', '🟡 changes']);
    expect(rows[3]?.slice(1)).toEqual(['production', '0', '0', '0', '0', '❌ failed at <code>diff</code>']);
  });

  it('opens the sections of clusters with changes or failures and closes the others', () => {
    const set = changeSet([
      cluster('staging-eu-1', 'staging', [podinfoInstance([1, 2])]),
      cluster('production-us-1', 'production', [instance('podinfo', [unchanged('Service', 'podinfo')])]),
      cluster('production-eu-1', 'production', [], {
        status: 'failed',
        error: { step: 'build', message: 'module not found' },
      }),
    ]);
    const body = renderPullRequestComment(set, context);
    expect(clusterSections(body)).toEqual([
      { name: 'staging-eu-1', open: true },
      { name: 'production-us-1', open: false },
      { name: 'production-eu-1', open: true },
    ]);
    expect(body).toContain('❌ **Failed at <code>build</code>**');
    expect(body).toContain('module not found');
  });

  it('shows instances with module url, version and short digest, and each change as a collapsible diff', () => {
    const body = renderPullRequestComment(realisticFleet(), context);
    expect(body).toContain('**Instance <code>podinfo</code>** in <code>apps</code>');
    expect(body).toContain(
      '<code>oci&#58;//ghcr.io/stefanprodan/modules/podinfo</code> <code>6.5.4</code> <code>sha256&#58;54d38da7d42b</code>',
    );
    expect(body).not.toContain('54d38da7d42b4ce5');
    expect(body).toContain('<summary><code>Deployment/apps/podinfo</code> configured');
    expect(body).toContain('```diff\n--- live\n+++ desired\n');
  });

  it('shows the same change on several clusters once, naming them', () => {
    const body = renderPullRequestComment(realisticFleet(), context);
    // The HPA is identical on all three clusters; the Deployment is identical on the two production ones.
    expect(body.match(/\+kind: HorizontalPodAutoscaler/g)).toHaveLength(1);
    expect(body).toContain('created · also on <code>production-eu-1</code>, <code>production-us-1</code>');
    expect(body.match(/\+ {2}replicas: 4/g)).toHaveLength(1);
    expect(body).toContain('configured · also on <code>production-us-1</code>');
    expect(body).toContain('configured · same change as on <code>production-eu-1</code> (shown there)');
    expect(body.match(/\+ {2}replicas: 2/g)).toHaveLength(1);
  });

  it('does not merge changes that differ in diff text or instance', () => {
    const set = changeSet([
      cluster('a', 'g', [instance('podinfo', [deploymentConfigured('podinfo', [1, 2], ['1', '2'])])]),
      cluster('b', 'g', [instance('podinfo', [deploymentConfigured('podinfo', [1, 3], ['1', '2'])])]),
      cluster('c', 'g', [instance('other', [deploymentConfigured('podinfo', [1, 2], ['1', '2'])])]),
    ]);
    const body = renderPullRequestComment(set, context);
    expect(body).not.toContain('same change as on');
    expect(body.match(/```diff/g)).toHaveLength(3);
  });

  it('escapes names and fences diffs that hold backticks, pipes and HTML', () => {
    const diff = '--- live\n+++ desired\n+  script: |\n+    ```sh\n+    echo "<b>|</b>"\n+    ````\n';
    const set = changeSet([
      cluster('edge|case', 'g<1>', [
        instance('app`x', [objectChange({ kind: 'ConfigMap', name: 'weird|`name`<i>', action: 'configured', diff })]),
      ]),
    ]);
    const body = renderPullRequestComment(set, context);
    const row = body.split('\n').find((line) => line.includes('edge'));
    expect(row).toBe('| <code>edge&#124;case</code> | g&#60;1&#62; | 0 | 1 | 0 | 0 | 🟡 changes |');
    expect(body).toContain(
      '<summary><code>ConfigMap/apps/weird&#124;&#96;name&#96;&#60;i&#62;</code> configured</summary>',
    );
    expect(body).toContain(`\`\`\`\`\`diff\n${diff}\`\`\`\`\`\n`);
    expect(body).not.toContain('<i>');
  });

  it('caps a long error message and says where it is whole', () => {
    const message = Array.from(
      { length: 2_000 },
      (_, index) => `line ${index}: admission webhook denied the request`,
    ).join('\n');
    const set = changeSet([cluster('a', 'g', [], { status: 'failed', error: { step: 'apply', message } })]);
    const body = renderPullRequestComment(set, context);
    expect(body).toContain('line 0: admission webhook denied the request\n');
    expect(body).not.toContain('line 1999:');
    expect(body).toContain('✂️ _Error message cut; the job summary holds it whole._');
    expect(body.length).toBeLessThan(6_000);
  });

  it('writes a short diff whole and notes no truncation', () => {
    const body = renderPullRequestComment(realisticFleet(), context);
    expect(body).not.toContain('[!WARNING]');
    expect(body).not.toContain('✂️');
  });
});

describe('renderPullRequestComment within the comment limit', () => {
  const clusters = ['staging-eu-1', 'staging-us-1', 'production-eu-1', 'production-us-1', 'production-ap-1'];
  // Each cluster: a huge ConfigMap diff (different per cluster), a small Deployment diff, a created HPA.
  const huge = changeSet(
    clusters.map((name, index) =>
      cluster(name, index < 2 ? 'staging' : 'production', [
        instance('podinfo', [
          deploymentConfigured('podinfo', [index, index + 1], ['6.5.3', '6.5.4']),
          hugeConfigMap('podinfo-config', 3000 + index * 500, name),
          created('HorizontalPodAutoscaler', 'podinfo', [`spec:`, `  maxReplicas: ${index + 2}`], 'autoscaling/v2'),
        ]),
      ]),
    ),
  );

  it('stays under 65,536 characters with huge diffs on 5 clusters', () => {
    const total = huge.clusters.reduce((sum, item) => sum + item.instances[0]!.changes[1]!.diff.length, 0);
    expect(total).toBeGreaterThan(5 * COMMENT_LIMIT);
    const body = renderPullRequestComment(huge, context);
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    // and uses the room it has: most of the limit, not a fraction of it
    expect(body.length).toBeGreaterThan(COMMENT_LIMIT * 0.9);
  });

  it('keeps the table complete and every cluster present, and says what was cut with a link to the run', () => {
    const body = renderPullRequestComment(huge, context);
    expect(tableRows(body).map((row) => row[0])).toEqual(clusters.map((name) => `<code>${name}</code>`));
    expect(clusterSections(body).map((section) => section.name)).toEqual(clusters);
    expect(body).toContain("> Shortened to fit GitHub's comment limit (65,536 characters): 5 diffs cut.");
    expect(body).toContain('[job summary of the workflow run](https://github.com/acme/fleet/actions/runs/42)');
    expect(body.match(/✂️ _Diff cut: \d+ of \d+ lines shown/g)).toHaveLength(5);
  });

  it('never cuts the small diffs to feed the large ones, and shares the room fairly between clusters', () => {
    const body = renderPullRequestComment(huge, context);
    for (let index = 0; index < clusters.length; index += 1) expect(body).toContain(`+  replicas: ${index + 1}\n`);
    const shownLines = [...body.matchAll(/Diff cut: (\d+) of (\d+) lines shown/g)].map((match) => Number(match[1]));
    expect(shownLines).toHaveLength(5);
    const fewest = Math.min(...shownLines);
    const most = Math.max(...shownLines);
    expect(fewest).toBeGreaterThan(50);
    expect(most - fewest).toBeLessThanOrEqual(most * 0.1);
  });

  it('respects a smaller budget and degrades to object lists, then to the table alone', () => {
    const lists = renderPullRequestComment(huge, { ...context, maxSize: 6_000 });
    expect(lists.length).toBeLessThanOrEqual(6_000);
    expect(clusterSections(lists)).toHaveLength(5);
    expect(lists).toContain('not shown');
    const tableOnly = renderPullRequestComment(huge, { ...context, maxSize: 1_800 });
    expect(tableOnly.length).toBeLessThanOrEqual(1_800);
    expect(tableRows(tableOnly)).toHaveLength(5);
    expect(tableOnly).toContain('cluster sections left out');
  });

  it('counts characters as UTF-16 code units, so astral characters cannot push it over', () => {
    const emojiDiff = `--- live\n+++ desired\n${'+  motd: 🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀 déploiement\n'.repeat(20_000)}`;
    const set = changeSet(
      clusters.map((name) =>
        cluster(name, 'g', [
          instance('podinfo', [
            objectChange({ kind: 'ConfigMap', name: 'motd', action: 'configured', diff: `${emojiDiff}# ${name}\n` }),
          ]),
        ]),
      ),
    );
    const body = renderPullRequestComment(set, context);
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect([...body].length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(262_144);
    expect(body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

const rolloutContext = {
  commitSha: 'fedcba9876543210fedcba9876543210fedcba98',
  repository: 'acme/fleet',
  runUrl: 'https://github.com/acme/fleet/actions/runs/77',
  secrets: [],
};

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
        error: {
          step: 'wait',
          message: 'timeout waiting for Deployment/apps/podinfo: 0 of 2 replicas ready',
          instance: 'podinfo',
          object: 'Deployment/apps/podinfo',
        },
      }),
      cluster(
        'production-eu-1',
        'production',
        [
          instance(
            'podinfo',
            podinfoInstance([3, 4]).changes.map((change) => withAction(change, 'skipped')),
          ),
        ],
        { status: 'skipped' },
      ),
      cluster('production-us-1', 'production', [], { status: 'skipped' }),
    ],
    'apply',
  );
}

describe('renderRolloutComment', () => {
  it('reports every cluster applied, keeping the marker', () => {
    const body = renderRolloutComment(appliedFleet(), rolloutContext);
    expect(findMarker(body)).toEqual({ bundle: 'apps' });
    expect(body).toContain('### timoni-fleet rollout · bundle <code>apps</code>');
    expect(body).toContain('✅ Applied to 3 of 3 clusters at commit [<code>fedcba9</code>]');
    expect(body.match(/\| ✅ applied \|/g)).toHaveLength(3);
    expect(body).not.toContain('Not reached');
  });

  it('reports a failure at staging with its step and error, and production not reached', () => {
    const body = renderRolloutComment(failedAtStaging(), rolloutContext);
    expect(body).toContain(
      '❌ Rollout stopped at <code>staging-eu-1</code> (failed at <code>wait</code>); applied to 0 of 3 clusters',
    );
    expect(body).toContain('| <code>staging-eu-1</code> | staging | 1 | 1 | 0 | 0 | ❌ failed at <code>wait</code> |');
    expect(body).toContain('| <code>production-eu-1</code> | production | 0 | 0 | 0 | 0 | ⏭️ not reached |');
    expect(body).toContain('| <code>production-us-1</code> | production | 0 | 0 | 0 | 0 | ⏭️ not reached |');
    expect(body).toContain(
      '**Not reached** after <code>staging-eu-1</code> failed: <code>production-eu-1</code>, <code>production-us-1</code>.',
    );
    expect(body).toContain(
      '❌ **Failed at <code>wait</code>** (instance <code>podinfo</code>, object <code>Deployment/apps/podinfo</code>)',
    );
    expect(body).toContain('0 of 2 replicas ready');
  });

  it('opens the failed cluster and keeps the clusters not reached closed and without diffs', () => {
    const body = renderRolloutComment(failedAtStaging(), rolloutContext);
    expect(body).toContain('<details open>\n<summary><b>staging-eu-1</b>');
    expect(body).toContain('<details>\n<summary><b>production-eu-1</b> · production · ⏭️ not reached</summary>');
    const production = body.slice(body.indexOf('<summary><b>production-eu-1</b>'));
    expect(production).toContain('Not reached: the rollout stopped at an earlier failure.');
    expect(production).not.toContain('```diff');
  });

  it('stays within the comment limit', () => {
    const big = changeSet(
      ['a', 'b', 'c'].map((name) =>
        cluster(name, 'g', [instance('podinfo', [hugeConfigMap('config', 4000, name)])], { status: 'applied' }),
      ),
      'apply',
    );
    const body = renderRolloutComment(big, rolloutContext);
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('3 diffs cut');
  });
});

describe('comment marker', () => {
  it('is a hidden HTML comment', () => {
    expect(commentMarker('apps')).toMatch(/^<!-- .* -->$/);
  });

  it.each(['apps', 'my-bundle', 'odd --> name', 'ünïcode bündle', 'with space'])(
    'round-trips the bundle name %j',
    (name) => {
      const body = `${commentMarker(name)}\n### something\n`;
      expect(findMarker(body)).toEqual({ bundle: name });
      expect(isCommentOf(body, name)).toBe(true);
      expect(isCommentOf(body, `${name}x`)).toBe(false);
    },
  );

  it('cannot be closed early by the bundle name', () => {
    expect(commentMarker('a --> b').indexOf('-->')).toBe(commentMarker('a --> b').length - 3);
  });

  it('finds nothing in a body without a marker or with a malformed one', () => {
    expect(findMarker('just a comment')).toBeNull();
    expect(findMarker('<!-- timoni-fleet:bundle=%E0%A4%A -->')).toBeNull();
  });

  it('is kept by the rollout comment, so the PR comment is found again on merge', () => {
    const plan = renderPullRequestComment(realisticFleet(), { commitSha: 'abc1234', secrets: [] });
    const rollout = renderRolloutComment(realisticFleet('apply'), { commitSha: 'def5678', secrets: [] });
    expect(findMarker(plan)).toEqual({ bundle: 'apps' });
    expect(findMarker(rollout)).toEqual({ bundle: 'apps' });
    expect(plan.startsWith(commentMarker('apps'))).toBe(true);
    expect(rollout.startsWith(commentMarker('apps'))).toBe(true);
  });
});

describe('a failed object among others', () => {
  it('the cluster error names each failed object with the server answer, the first as the object', () => {
    const error = failedObjects('staging-eu-1', [podinfoWithFailure()]);
    expect(error).toEqual({
      step: 'diff',
      instance: 'podinfo',
      object: 'Service/apps/podinfo',
      message:
        'cluster staging-eu-1: the API server refused one object in the dry-run (the other objects are diffed): instance podinfo: Service/apps/podinfo: PATCH /api/v1/namespaces/apps/services/podinfo failed: Service "podinfo" is invalid: spec.ports[1].name: Duplicate value: "http" (Invalid)',
    });
    expect(failedObjects('staging-eu-1', [podinfoInstance([1, 2])])).toBeNull();
    const two = failedObjects('c', [
      instance('a', [failedService()]),
      instance('b', [
        objectChange({ kind: 'Job', name: 'j', action: 'failed', error: 'cluster c: Job/apps/j: immutable' }),
      ]),
    ]);
    expect(two?.message).toBe(
      `cluster c: the API server refused 2 objects in the dry-run (the other objects are diffed): instance a: ${serviceError}; instance b: Job/apps/j: immutable`,
    );
  });

  it('the PR comment shows the failed object with its error and field changes, and every other object', () => {
    const body = renderPullRequestComment(planWithFailure(), context);
    expect(body).toContain('Changes on **2 of 2** clusters, **1 failed**');
    // The staging section: counts with the failure, the error block, each object.
    expect(body).toContain(
      '<summary><b>staging-eu-1</b> · staging · ❌ failed at <code>diff</code> · 1 configured, 1 deleted, 1 failed</summary>',
    );
    const staging = body.slice(body.indexOf('<b>staging-eu-1</b>'), body.indexOf('<b>production-eu-1</b>'));
    expect(staging).toContain('- <code>Service/apps/podinfo</code> ❌ failed\n\n```text\n' + serviceError + '\n```\n');
    expect(staging).toContain(
      '<summary>field changes</summary>\n\n```diff\n--- live\n+++ desired\n@@ -9,3 +9,3 @@\n   ports:\n-    - port: 8080\n+    - port: 9898\n```',
    );
    expect(staging).toContain('<summary><code>ServiceAccount/apps/podinfo</code> deleted</summary>');
    expect(staging).toContain('<summary><code>Deployment/apps/podinfo</code> configured</summary>');
    // Apply order kept: deleted (as built here), failed, configured.
    expect(staging.indexOf('ServiceAccount/apps/podinfo')).toBeLessThan(
      staging.indexOf('Service/apps/podinfo</code> ❌'),
    );
    expect(staging.indexOf('Service/apps/podinfo</code> ❌')).toBeLessThan(staging.indexOf('Deployment/apps/podinfo'));
  });

  it('when diffs do not fit, the failed object keeps its error: in a block, or on its line at the objects-only detail', () => {
    const hidden = renderPullRequestComment(planWithFailure(), { ...context, maxSize: 3_200 });
    expect(hidden).toContain(
      `- <code>Service/apps/podinfo</code> ❌ failed · ✂️ diff not shown (6 lines)\n\n\`\`\`text\n${serviceError}\n\`\`\`\n`,
    );
    // The largest size at which only object lists fit.
    let objectsOnly = '';
    for (let size = 3_200; size > 1_500 && !objectsOnly; size -= 20) {
      const body = renderPullRequestComment(planWithFailure(), { ...context, maxSize: size });
      if (body.includes('diffs left out')) objectsOnly = body;
    }
    expect(objectsOnly).not.toContain('```diff');
    expect(objectsOnly).toContain(
      '- <code>Service/apps/podinfo</code> ❌ failed: cluster staging-eu-1&#58; Service/apps/podinfo&#58; PATCH /api/v1/namespaces/apps/services/podinfo failed&#58; Service &#34;podinfo&#34; is invalid',
    );
    expect(objectsOnly).toContain('- <code>ServiceAccount/apps/podinfo</code> deleted\n');
  });
});

describe('an instance removed from the bundle', () => {
  it('the PR comment says how many objects would be deleted, and lists them', () => {
    const body = renderPullRequestComment(planWithFailure(), context);
    const production = body.slice(body.indexOf('<b>production-eu-1</b>'));
    expect(production).toContain(
      '**Instance <code>redis</code>** in <code>apps</code> · module <code>oci&#58;//ghcr.io/stefanprodan/modules/redis</code> <code>7.2.3</code> <code>sha256&#58;0f9e8d7c6b5a</code> · 🗑️ instance removed from the bundle: 3 objects would be deleted\n',
    );
    expect(production).toContain('<summary><code>StatefulSet/apps/redis</code> deleted</summary>');
    // Its deletions count in the cluster's figures.
    expect(production).toContain('· 1 created, 1 configured, 3 deleted</summary>');
  });

  it('counts only objects that go: one kept by its labels is not counted', () => {
    const set = changeSet([cluster('production-eu-1', 'production', [removedRedis('skipped')])]);
    expect(renderPullRequestComment(set, context)).toContain(
      'instance removed from the bundle: 2 objects would be deleted',
    );
  });

  it('after an apply the comment says the objects were deleted', () => {
    const applied = changeSet(
      [cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), removedRedis()], { status: 'applied' })],
      'apply',
    );
    expect(renderRolloutComment(applied, context)).toContain(
      '🗑️ instance removed from the bundle: 3 objects deleted\n',
    );
  });
});

describe('golden PR comment (written to test/report/__output__/comment.md)', () => {
  const body = renderPullRequestComment(pullRequestFleet(), goldenContext);
  writeOutput('comment.md', body);

  it('starts with the marker, names the bundle and commit', () => {
    expect(findMarker(body)).toEqual({ bundle: 'apps' });
    const lines = body.split('\n');
    expect(lines[1]).toBe('### timoni-fleet diff · bundle <code>apps</code>');
    expect(lines[3]).toBe(
      'Changes on **3 of 3** clusters, **1 failed** for commit [<code>3f2a9c1</code>](https://github.com/acme/fleet-config/commit/3f2a9c1e0b7d4a5f8e6c2b1a0d9f8e7c6b5a4f3e) · [workflow run](https://github.com/acme/fleet-config/actions/runs/9876543210).',
    );
  });

  it('has, in order: secret notice, table, then one section per cluster', () => {
    const order = [
      '🔒 A secret value changed (hidden).',
      '| Cluster | Group |',
      '<summary><b>staging-eu-1</b>',
      '<summary><b>production-eu-1</b>',
      '<summary><b>production-us-1</b>',
    ].map((text) => body.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
  });

  it('balances its HTML blocks and code fences', () => {
    expect(body.match(/<details( open)?>/g)?.length).toBe(body.match(/<\/details>/g)?.length);
    expect(body.match(/<summary>/g)?.length).toBe(body.match(/<\/summary>/g)?.length);
    const fences = body.split('\n').filter((line) => /^`{3,}/.test(line));
    expect(fences.length % 2).toBe(0);
  });

  it('shows each distinct diff once', () => {
    // staging podinfo Deployment, production Deployment (shared by eu and us), HPA (shared by
    // staging and eu), Redis Secret (shared by staging and eu), Namespace, Ingress
    expect(body.match(/```diff/g)).toHaveLength(6);
    expect(body).toContain('configured · also on <code>production-us-1</code>');
  });
});

describe('golden rollout comment (written beside it)', () => {
  const rollout = renderRolloutComment(rolloutFleet(), goldenContext);
  writeOutput('rollout-comment.md', rollout);

  it('reports applied, failed and not reached clusters', () => {
    expect(rollout).toContain(
      '❌ Rollout stopped at <code>production-eu-1</code> (failed at <code>wait</code>); applied to 1 of 3 clusters',
    );
    expect(rollout).toContain(
      '**Not reached** after <code>production-eu-1</code> failed: <code>production-us-1</code>.',
    );
  });
});

describe('a diff too large to compute', () => {
  const crd = objectChange({
    kind: 'CustomResourceDefinition',
    apiVersion: 'apiextensions.k8s.io/v1',
    namespace: '',
    name: 'widgets.acme.io',
    action: 'configured',
    diffTooLarge: { liveLines: 12_000, desiredLines: 12_500 },
  });
  const fleet = changeSet([
    cluster('staging-eu-1', 'staging', [
      instance('crds', [crd, unchanged('Namespace', 'acme')]),
      podinfoInstance([1, 2]),
    ]),
  ]);
  const note =
    '⚠️ diff too large to compute (12,000 lines live, 12,500 desired); compare <code>timoni-fleet build</code> with the live object locally';

  it('says so in the PR comment where the diff would be, with both sizes', () => {
    const body = renderPullRequestComment(fleet, context);
    expect(body).toContain(`- <code>CustomResourceDefinition/widgets.acme.io</code> configured · ${note}\n\n`);
    // It is a change: counted, and the other diffs are shown as usual.
    expect(body).toContain('<summary><b>staging-eu-1</b> · staging · 🟡 changes · 1 created, 2 configured</summary>');
    expect(body).toContain('<summary><code>Deployment/apps/podinfo</code> configured</summary>');
    expect(body).not.toContain('[!WARNING]');
  });

  it('says so in the rollout comment', () => {
    const applied = changeSet([{ ...fleet.clusters[0]!, status: 'applied' }], 'apply');
    expect(renderRolloutComment(applied, context)).toContain(
      `- <code>CustomResourceDefinition/widgets.acme.io</code> configured · ${note}\n\n`,
    );
  });

  it('names only the side that exists for a created or deleted object', () => {
    const createdCrd = { ...crd, action: 'created' as const, diffTooLarge: { liveLines: 0, desiredLines: 1_234_567 } };
    const deletedCrd = {
      ...crd,
      name: 'gadgets.acme.io',
      action: 'deleted' as const,
      diffTooLarge: { liveLines: 999, desiredLines: 0 },
    };
    const body = renderPullRequestComment(
      changeSet([cluster('a', 'g', [instance('crds', [createdCrd, deletedCrd])])]),
      context,
    );
    expect(body).toContain('created · ⚠️ diff too large to compute (1,234,567 lines desired); compare');
    expect(body).toContain('deleted · ⚠️ diff too large to compute (999 lines live); compare');
  });

  it('keeps the secret note and the failed object error beside it', () => {
    const failed = { ...crd, action: 'failed' as const, error: 'the API server refused it' };
    const body = renderPullRequestComment(
      changeSet([cluster('a', 'g', [instance('crds', [failed])], { status: 'failed' })]),
      context,
    );
    expect(body).toContain(
      `- <code>CustomResourceDefinition/widgets.acme.io</code> ❌ failed · ${note}\n\n\`\`\`text\nthe API server refused it\n\`\`\`\n`,
    );
  });

  it('is not shown for an object that is not reached or does not change', () => {
    const skipped = changeSet(
      [cluster('a', 'g', [instance('crds', [withAction(crd, 'skipped')])], { status: 'skipped' })],
      'apply',
    );
    expect(renderRolloutComment(skipped, context)).not.toContain('too large');
  });
});

describe('a large fleet: clusters with the same change grouped (cluster-groups.ts)', () => {
  /** Ten instances, each in a namespace of the cluster's own, as a bundle reading TIMONI_CLUSTER_NAME makes them. */
  function tenInstances(clusterName: string, replicas: number, tag = '6.5.4') {
    return Array.from({ length: 10 }, (_, index) => {
      const namespace = `web-${index + 1}-${clusterName}`;
      const inNamespace = (change: ReturnType<typeof created>) => ({
        ...change,
        namespace,
        diff: change.diff.replace(/namespace: apps/g, `namespace: ${namespace}`),
      });
      return instance(
        `web-${index + 1}`,
        [
          inNamespace(created('ServiceAccount', `web-${index + 1}`, [])),
          inNamespace(created('ConfigMap', `web-${index + 1}`, ['data:', `  message: "hello from ${clusterName}"`])),
          inNamespace(
            created('Service', `web-${index + 1}`, ['spec:', '  ports:', '  - port: 80', '    targetPort: 8080']),
          ),
          inNamespace(
            created(
              'Deployment',
              `web-${index + 1}`,
              [
                'spec:',
                `  replicas: ${replicas}`,
                '  template:',
                '    spec:',
                '      containers:',
                `      - image: ghcr.io/acme/web:${tag}`,
                '        name: web',
              ],
              'apps/v1',
            ),
          ),
        ],
        PODINFO_MODULE,
        namespace,
      );
    });
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  /** staging 2, canary 4 (each different), production 44 (the same change, each in its own namespaces). */
  function fiftyClusters(oddProduction?: number) {
    return changeSet([
      ...[1, 2].map((n) => cluster(`staging-${n}`, 'staging', tenInstances(`staging-${n}`, n, `6.6.${n}`))),
      ...[1, 2, 3, 4].map((n) => cluster(`canary-${n}`, 'canary', tenInstances(`canary-${n}`, 1 + n))),
      ...Array.from({ length: 44 }, (_, i) =>
        cluster(
          `production-${pad(i + 1)}`,
          'production',
          tenInstances(`production-${pad(i + 1)}`, i + 1 === oddProduction ? 5 : 3),
        ),
      ),
    ]);
  }

  it('stays under 65,536 characters with a complete table: the odd clusters alone, the 44 the same in one row naming them all', () => {
    const body = renderPullRequestComment(fiftyClusters(), context);
    expect(body.length).toBeLessThan(COMMENT_LIMIT);
    const rows = tableRows(body);
    expect(rows.map((row) => row[0]?.replace(/:.*/, ''))).toEqual([
      '<code>staging-1</code>',
      '<code>staging-2</code>',
      '<code>canary-1</code>',
      '<code>canary-2</code>',
      '<code>canary-3</code>',
      '<code>canary-4</code>',
      '44 clusters',
    ]);
    const grouped = rows[6] ?? [];
    for (let n = 1; n <= 44; n += 1) expect(grouped[0]).toContain(`<code>production-${pad(n)}</code>`);
    expect(grouped.slice(1)).toEqual(['production', '40', '0', '0', '0', '🟡 changes']);
    // Every cluster of the fleet is named in the table.
    const table = body.slice(body.indexOf('| Cluster |'), body.indexOf('\n\n', body.indexOf('| Cluster |')));
    expect(table.match(/<code>(staging|canary|production)-\d+<\/code>/g)).toHaveLength(50);
    expect(body).toContain('Changes on **50 of 50** clusters');
    expect(clusterSections(body).map((section) => section.name)).toEqual([
      'staging-1',
      'staging-2',
      'canary-1',
      'canary-2',
      'canary-3',
      'canary-4',
      '44 clusters',
    ]);
    expect(body).toMatch(
      /Same change on 44 production clusters: <code>production-01<\/code>, .*<code>production-44<\/code>\. Shown for <code>production-01<\/code>; on the others, each cluster's own name stands where <code>production-01<\/code> does\./,
    );
  });

  it('lets a production cluster that is out of line stand alone', () => {
    const body = renderPullRequestComment(fiftyClusters(17), context);
    const rows = tableRows(body);
    expect(rows.map((row) => row[0]?.replace(/:.*/, '')).slice(6)).toEqual([
      '43 clusters',
      '<code>production-17</code>',
    ]);
    expect(rows[6]?.[0]).not.toContain('production-17');
    expect(
      clusterSections(body)
        .map((section) => section.name)
        .slice(6),
    ).toEqual(['43 clusters', 'production-17']);
    expect(body.length).toBeLessThan(COMMENT_LIMIT);
  });

  it('groups clusters without changes and clusters not reached in the rollout comment too', () => {
    const rollout = changeSet(
      [
        cluster(
          'staging-1',
          'staging',
          [instance('web', [withAction(created('ConfigMap', 'web', ['data: {}']), 'created')])],
          { status: 'failed', error: { step: 'apply', message: 'denied' } },
        ),
        ...Array.from({ length: 12 }, (_, i) =>
          cluster(
            `production-${pad(i + 1)}`,
            'production',
            [instance('web', [withAction(created('ConfigMap', 'web', ['data: {}']), 'skipped')])],
            { status: 'skipped' },
          ),
        ),
      ],
      'apply',
    );
    const body = renderRolloutComment(rollout, context);
    expect(tableRows(body).map((row) => row[0]?.replace(/:.*/, ''))).toEqual(['<code>staging-1</code>', '12 clusters']);
    expect(body).toContain('12 production clusters not reached: <code>production-01</code>');
    // The note on clusters not reached still names every one.
    expect(body).toMatch(
      /\*\*Not reached\*\* after <code>staging-1<\/code> failed: (<code>production-\d\d<\/code>(, )?){12}\./,
    );
  });

  it('leaves a fleet of fewer than 10 clusters cluster by cluster, even when all change alike', () => {
    const set = changeSet(
      Array.from({ length: 9 }, (_, i) => cluster(`production-${i + 1}`, 'production', [podinfoInstance([1, 2])])),
    );
    const rows = tableRows(renderPullRequestComment(set, context));
    expect(rows).toHaveLength(9);
    expect(rows.map((row) => row[0])).toEqual(Array.from({ length: 9 }, (_, i) => `<code>production-${i + 1}</code>`));
  });
});

describe('a rollout in waves (strategy: waves)', () => {
  // The staging wave: its middle cluster failed, the two others were in flight and finished;
  // the production wave was not reached.
  const waves = changeSet(
    [
      cluster('staging-1', 'staging', [podinfoInstance([1, 2])], { status: 'applied', durationMs: 20_000 }),
      cluster('staging-2', 'staging', [], {
        status: 'failed',
        durationMs: 3_000,
        error: {
          step: 'apply',
          message: 'cluster staging-2: ConfigMap/apps/podinfo: field is immutable',
          instance: 'podinfo',
          object: 'ConfigMap/apps/podinfo',
        },
      }),
      cluster('staging-3', 'staging', [podinfoInstance([1, 2])], { status: 'applied', durationMs: 21_000 }),
      cluster('production-1', 'production', [], { status: 'skipped' }),
      cluster('production-2', 'production', [], { status: 'skipped' }),
    ],
    'apply',
  );

  it('lists what was applied, what failed and what was not reached', () => {
    const body = renderRolloutComment(waves, rolloutContext);
    expect(body).toContain(
      '❌ Rollout stopped at <code>staging-2</code> (failed at <code>apply</code>); applied to 2 of 5 clusters',
    );
    expect(body.match(/\| ✅ applied \|/g)).toHaveLength(2);
    expect(body).toContain('| <code>staging-2</code> | staging | 0 | 0 | 0 | 0 | ❌ failed at <code>apply</code> |');
    expect(body).toContain(
      '**Not reached** after <code>staging-2</code> failed: <code>production-1</code>, <code>production-2</code>.',
    );
    // The cluster of the failed wave that finished after the failure is applied, not "not reached".
    expect(body).not.toMatch(/<code>staging-3<\/code> \| staging \|[^\n]*not reached/);
  });
});

const none = new Set<string>();

/** A cluster whose one ConfigMap names the cluster (as a bundle reading TIMONI_CLUSTER_NAME does). */
function naming(name: string, group = 'production', text = name) {
  return cluster(name, group, [
    instance('web', [created('ConfigMap', 'web', ['data:', `  cluster: ${text}`])], undefined, `web-${text}`),
  ]);
}

describe('groupClusters', () => {
  it('applies from GROUPING_MIN_CLUSTERS clusters on, and only when two clusters share a change', () => {
    expect(GROUPING_MIN_CLUSTERS).toBe(10);
    const alike = (count: number) =>
      changeSet(Array.from({ length: count }, (_, i) => cluster(`c-${i}`, 'g', [podinfoInstance([1, 2])])));
    expect(groupClusters(alike(9), none)).toBeUndefined();
    expect(groupClusters(alike(10), none)).toEqual([{ members: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], byName: false }]);
    const distinct = changeSet(
      Array.from({ length: 12 }, (_, i) => cluster(`c-${i}`, 'g', [podinfoInstance([1, i + 2])])),
    );
    expect(groupClusters(distinct, none)).toBeUndefined();
  });

  it('keeps runtime groups, statuses and changed secrets apart, and orders groups by their first cluster', () => {
    const set = changeSet([
      ...Array.from({ length: 4 }, (_, i) => cluster(`s-${i}`, 'staging', [podinfoInstance([1, 2])])),
      ...Array.from({ length: 6 }, (_, i) => cluster(`p-${i}`, 'production', [podinfoInstance([1, 2])])),
      cluster('p-failed', 'production', [podinfoInstance([1, 2])], {
        status: 'failed',
        error: { step: 'diff', message: 'refused' },
      }),
    ]);
    // The HPA (instance 0, object 3) of p-5 changes secret data: p-5 is not like the others.
    const groups = groupClusters(set, new Set(['9/0/3']));
    expect(groups?.map((group) => group.members)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7, 8], [9], [10]]);
    const shown = groupRepresentatives(set, groups ?? []);
    expect(shown.clusters.map((entry) => entry.name)).toEqual(['s-0', 'p-0', 'p-5', 'p-failed']);
    expect(groupMembers(set, groups ?? [])[1]?.map((entry) => entry.name)).toEqual(['p-0', 'p-1', 'p-2', 'p-3', 'p-4']);
  });

  it("sets each cluster's own name aside, as a whole word only", () => {
    const names = ['production-1', ...Array.from({ length: 9 }, (_, i) => `production-${i + 2}`), 'production-10x'];
    const set = changeSet([
      ...names.map((name) => naming(name)),
      naming('production-11', 'production', 'production-1'),
    ]);
    const groups = groupClusters(set, none);
    // production-10x names itself too; production-11 names production-1, not itself: it stands alone.
    expect(groups?.map((group) => group.members.length)).toEqual([11, 1]);
    expect(groups?.[0]?.byName).toBe(true);
    expect(groups?.[1]?.members).toEqual([11]);
  });

  it('does not count durations, kube contexts or how long readiness took', () => {
    const ready = (name: string, durationMs: number) => {
      const entry = cluster(
        name,
        'g',
        [
          instance('web', [
            {
              ...created('ConfigMap', 'web', []),
              readiness: { status: 'Current' as const, message: 'ready', durationMs },
            },
          ]),
        ],
        {
          status: 'applied',
          durationMs,
          kubeContext: `ctx-${durationMs}`,
        },
      );
      return entry;
    };
    const set = changeSet(
      Array.from({ length: 10 }, (_, i) => ready(`c-${i}`, i * 100)),
      'apply',
    );
    expect(groupClusters(set, none)).toEqual([{ members: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], byName: false }]);
  });
});

describe('one broken instance among others (InstanceChanges.error)', () => {
  const occurrences = (text: string, part: string) => text.split(part).length - 1;
  /** The section of a cluster: from its summary to the next cluster's. */
  const section = (body: string, name: string) => {
    const start = body.indexOf(`<summary><b>${name}</b>`);
    const end = body.indexOf('<summary><b>', start + 1);
    return body.slice(start, end === -1 ? undefined : end);
  };

  it('shows the broken instance failed with its error under its name, once, and the instances that built with their diffs', () => {
    const body = renderPullRequestComment(brokenInstanceFleet(), context);
    const eu = section(body, 'production-eu-1');
    expect(eu).toContain(
      '**Instance <code>redis</code>** in <code>apps</code> · module <code>oci&#58;//ghcr.io/stefanprodan/modules/redis</code> <code>7.2.3</code> · ❌ failed at <code>build</code>',
    );
    expect(eu).toContain('❌ **Failed at <code>build</code>**:\n\n```text\ninstance redis');
    expect(eu).toContain('**Instance <code>podinfo</code>**');
    expect(eu).toContain('replicas: 4');
    // The cluster's error is the instance's: not shown a second time above the instances.
    expect(occurrences(eu, 'Failed at <code>build</code>')).toBe(1);
    // production-us-1 has the same error: it refers to production-eu-1.
    const us = section(body, 'production-us-1');
    expect(us).toContain(
      '❌ **Failed at <code>build</code>**: the same error as on <code>production-eu-1</code> (shown there).',
    );
    expect(occurrences(body, 'conflicting values "many" and int')).toBe(1);
    expect(body).toContain(
      '| <code>production-eu-1</code> | production | 1 | 1 | 0 | 0 | ❌ failed at <code>build</code> |',
    );
  });

  it('shows different errors of the same instance on two clusters each in full', () => {
    const other =
      'instance redis (module oci://ghcr.io/stefanprodan/modules/redis): build failed:\nvalues.port: conflicting values "http" and int';
    const set = brokenInstanceFleet();
    set.clusters[2] = {
      ...set.clusters[2]!,
      instances: [unbuiltRedis(other), podinfoInstance([3, 4])],
      error: { step: 'build', message: other, instance: 'redis' },
    };
    const body = renderPullRequestComment(set, context);
    expect(body).not.toContain('the same error as on');
    expect(occurrences(body, valuesError.split('\n')[1]!)).toBe(1);
    expect(occurrences(body, 'values.port: conflicting values')).toBe(1);
  });

  it("shows the cluster's error above when it is not the instance's (a rollout that applied nothing)", () => {
    const body = renderRolloutComment(brokenInstanceFleet('apply'), rolloutContext);
    const eu = section(body, 'production-eu-1');
    expect(eu).toContain('nothing was applied to cluster production-eu-1: instance redis did not build');
    expect(eu).toContain(
      '· ❌ failed at <code>build</code>\n\n❌ **Failed at <code>build</code>**:\n\n```text\ninstance redis',
    );
    expect(occurrences(body, 'conflicting values "many" and int')).toBe(1);
    expect(body).toContain(
      '❌ Rollout stopped at <code>production-eu-1</code> (failed at <code>build</code>); applied to 1 of 3 clusters',
    );
  });

  it("masks secrets in an instance's error", () => {
    const set = brokenInstanceFleet();
    const leaked = `${valuesError}\n    token: s3cr3t-t0ken-value`;
    set.clusters[1] = { ...set.clusters[1]!, instances: [unbuiltRedis(leaked), podinfoInstance([3, 4])] };
    const body = renderPullRequestComment(set, { ...context, secrets: ['s3cr3t-t0ken-value'] });
    expect(body).toContain('token: ***');
    expect(body).not.toContain('s3cr3t-t0ken-value');
  });

  it('groups a large fleet only with clusters whose instances failed the same way', () => {
    const failing = (name: string, message: string) =>
      cluster(name, 'production', [unbuiltRedis(message), podinfoInstance([3, 4])], {
        status: 'failed',
        error: { step: 'build', message: 'values error', instance: 'redis' },
      });
    const set = changeSet([
      ...Array.from({ length: 6 }, (_, i) => failing(`p-${i}`, 'error A')),
      ...Array.from({ length: 5 }, (_, i) => failing(`q-${i}`, 'error B')),
    ]);
    expect(groupClusters(set, none)?.map((group) => group.members.length)).toEqual([6, 5]);
  });
});
