import { describe, expect, it } from 'vitest';
import { renderPullRequestComment } from '../../src/report/pull-request-comment.js';
import { renderJobSummary } from '../../src/report/job-summary.js';
import { maskChangeSet } from '../../src/report/masked-change-set.js';
import { COMMENT_LIMIT } from '../../src/report/text-size.js';
import { changeSet, cluster, created, instance, podinfoInstance, realisticFleet } from './fixtures.js';

describe('degraded fits', () => {
  it('leaves out object lists, keeping instances, when the lists alone are too long', () => {
    // 5 clusters × 400 created ConfigMaps each: the list of objects alone exceeds the limit.
    const set = changeSet(
      ['a', 'b', 'c', 'd', 'e'].map((name) =>
        cluster(name, 'g', [instance('podinfo', Array.from({ length: 400 }, (_, index) => created('ConfigMap', `config-${name}-${index}`, [`data: {k: "${index}"}`])))]),
      ),
    );
    const body = renderPullRequestComment(set, { commitSha: 'abc', secrets: [] });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('object lists and diffs left out');
    expect(body.match(/_400 changed objects not listed here for lack of room._/g)).toHaveLength(5);
    expect(body.match(/\| <code>[a-e]<\/code> \| g \| 400 \|/g)).toHaveLength(5);
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
