import { describe, expect, it } from 'vitest';
import { renderPullRequestComment } from '../../src/report/pull-request-comment.js';
import { renderJobSummary } from '../../src/report/job-summary.js';
import { maskChangeSet } from '../../src/report/masked-change-set.js';
import { COMMENT_LIMIT } from '../../src/github/limits.js';
import { changeSet, cluster, created, instance, podinfoInstance, realisticFleet } from './fixtures.js';

describe('degraded fits', () => {
  it('leaves diffs out and shares the object lists fairly when the lists alone are too long', () => {
    // 5 clusters × 400 created ConfigMaps each: the list of objects alone exceeds the limit.
    const set = changeSet(
      ['a', 'b', 'c', 'd', 'e'].map((name) =>
        cluster(name, 'g', [instance('podinfo', Array.from({ length: 400 }, (_, index) => created('ConfigMap', `config-${name}-${index}`, [`data: {k: "${index}"}`])))]),
      ),
    );
    const body = renderPullRequestComment(set, { commitSha: 'abc', secrets: [] });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body.length).toBeGreaterThan(COMMENT_LIMIT * 0.9);
    expect(body).not.toContain('```diff');
    expect(body).toMatch(/Shortened to fit GitHub's comment limit \(65,536 characters\): diffs left out, \d+ objects not listed\./);
    const listed = ['a', 'b', 'c', 'd', 'e'].map((name) => body.match(new RegExp(`ConfigMap/apps/config-${name}-\\d+</code> created`, 'g'))?.length ?? 0);
    expect(Math.min(...listed)).toBeGreaterThan(50);
    expect(Math.max(...listed) - Math.min(...listed)).toBeLessThanOrEqual(2);
    expect(body.match(/_\d+ more changed objects not listed for lack of room._/g)).toHaveLength(5);
    expect(body.match(/\| <code>[a-e]<\/code> \| g \| 400 \|/g)).toHaveLength(5);
  });

  it("never shortens a small cluster's object list to feed a large one", () => {
    const big = cluster('big', 'g', [instance('podinfo', Array.from({ length: 3000 }, (_, index) => created('ConfigMap', `config-${index}`, [`data: {k: "${index}"}`])))]);
    const small = ['s1', 's2', 's3'].map((name) => cluster(name, 'g', [podinfoInstance([1, 2])]));
    const body = renderPullRequestComment(changeSet([...small, big]), { commitSha: 'abc', secrets: [] });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    for (const name of ['s1', 's2', 's3']) {
      const section = body.slice(body.indexOf(`<summary><b>${name}</b>`), body.indexOf('</details>', body.indexOf(`<summary><b>${name}</b>`)));
      expect(section).toContain('<code>Deployment/apps/podinfo</code> configured');
      expect(section).toContain('<code>HorizontalPodAutoscaler/apps/podinfo</code> created');
      expect(section).not.toContain('not listed');
    }
    expect(body).toMatch(/_\d+ more changed objects not listed for lack of room._/);
  });

  it('cuts the table at a line, and says so, only when the table alone exceeds the limit', () => {
    const set = changeSet(Array.from({ length: 900 }, (_, index) => cluster(`cluster-with-a-long-name-${index}`, 'production-fleet', [podinfoInstance([1, 2])])));
    const body = renderPullRequestComment(set, { commitSha: 'abc', secrets: [] });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('The cluster table was cut');
    expect(body.trimEnd().endsWith('._')).toBe(true);
  });

  it('applies the same degradation to the job summary', () => {
    const summary = renderJobSummary(realisticFleet(), { commitSha: 'abc', secrets: [], maxSize: 1_500 });
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(1_500);
    expect(summary).toContain('cluster sections left out');
  });
});

describe('maskChangeSet', () => {
  it('masks strings but never the status, action or mode words', () => {
    const set = realisticFleet();
    const masked = maskChangeSet(set, ['configured', 'changed', 'podinfo', 'diff']);
    expect(masked.mode).toBe('diff');
    expect(masked.clusters[0]?.status).toBe('changed');
    expect(masked.clusters[0]?.instances[0]?.changes[2]?.action).toBe('configured');
    expect(masked.clusters[0]?.instances[0]?.name).toBe('***');
    expect(set.clusters[0]?.instances[0]?.name).toBe('podinfo');
  });
});
