import { describe, expect, it } from 'vitest';
import { renderPullRequestComment } from '../../src/report/pull-request-comment.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import {
  changeSet,
  cluster,
  created,
  deploymentConfigured,
  hugeConfigMap,
  instance,
  objectChange,
  podinfoInstance,
  realisticFleet,
  unchanged,
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
  return [...body.matchAll(/<details( open)?>\n<summary><b>([^<]*)<\/b>/g)].map((match) => ({ name: match[2] ?? '', open: match[1] !== undefined }));
}

describe('renderPullRequestComment', () => {
  it('names the commit and links the run', () => {
    const body = renderPullRequestComment(realisticFleet(), context);
    expect(body).toContain('[<code>0123456</code>](https://github.com/acme/fleet/commit/0123456789abcdef0123456789abcdef01234567)');
    expect(body).toContain('(https://github.com/acme/fleet/actions/runs/42)');
  });

  it('opens with a table of clusters in runtime order with counts and status', () => {
    const set = changeSet([
      cluster('staging-eu-1', 'staging', [podinfoInstance([1, 2])]),
      cluster('production-us-1', 'production', [instance('podinfo', [unchanged('Service', 'podinfo')])]),
      cluster('production-eu-1', 'production', [
        instance('podinfo', [
          objectChange({ kind: 'ConfigMap', name: 'old', action: 'deleted', diff: '--- live\n+++ desired\n-data: {}\n' }),
          objectChange({ kind: 'Job', apiVersion: 'batch/v1', name: 'migrate', action: 'recreated', diff: '-  image: a\n+  image: b\n' }),
          objectChange({ kind: 'Job', apiVersion: 'batch/v1', name: 'seed', action: 'recreated', diff: '-  image: c\n+  image: d\n' }),
        ]),
      ]),
      cluster('production-ap-1', 'production', [], { status: 'failed', error: { step: 'diff', message: 'connection refused' } }),
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
      cluster('production-eu-1', 'production', [], { status: 'failed', error: { step: 'build', message: 'module not found' } }),
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
    expect(body).toContain('<code>oci&#58;//ghcr.io/stefanprodan/modules/podinfo</code> <code>6.5.4</code> <code>sha256&#58;54d38da7d42b</code>');
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
      cluster('edge|case', 'g<1>', [instance('app`x', [objectChange({ kind: 'ConfigMap', name: 'weird|`name`<i>', action: 'configured', diff })])]),
    ]);
    const body = renderPullRequestComment(set, context);
    const row = body.split('\n').find((line) => line.includes('edge'));
    expect(row).toBe('| <code>edge&#124;case</code> | g&#60;1&#62; | 0 | 1 | 0 | 0 | 🟡 changes |');
    expect(body).toContain('<summary><code>ConfigMap/apps/weird&#124;&#96;name&#96;&#60;i&#62;</code> configured</summary>');
    expect(body).toContain(`\`\`\`\`\`diff\n${diff}\`\`\`\`\`\n`);
    expect(body).not.toContain('<i>');
  });

  it('caps a long error message and says where it is whole', () => {
    const message = Array.from({ length: 2_000 }, (_, index) => `line ${index}: admission webhook denied the request`).join('\n');
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
    const set = changeSet(clusters.map((name) => cluster(name, 'g', [instance('podinfo', [objectChange({ kind: 'ConfigMap', name: 'motd', action: 'configured', diff: `${emojiDiff}# ${name}\n` })])])));
    const body = renderPullRequestComment(set, context);
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect([...body].length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(262_144);
    expect(body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
