// Fitting a report into its size limit (src/report/budget.ts): cutting text at lines, the
// fair division of the room, and the degradation of whole reports (diffs cut, then object
// lists, then the table alone, then the table cut at a line).

import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, commentLength, utf8Length } from '../../src/github/limits.js';
import { fairAllocation, linesOf, truncateCharacters, truncateLines, waterFill } from '../../src/report/budget.js';
import { renderPullRequestComment } from '../../src/report/comment.js';
import { renderJobSummary } from '../../src/report/job-summary.js';
import { changeSet, cluster, created, instance, podinfoInstance, realisticFleet } from './fixtures.js';

describe('truncateLines', () => {
  it('keeps whole lines within the budget', () => {
    const result = truncateLines('aaa\nbbb\nccc\n', 8, commentLength);
    expect(result).toEqual({ text: 'aaa\nbbb', cut: true, keptLines: 2, totalLines: 3 });
  });

  it('keeps everything when it fits', () => {
    expect(truncateLines('aaa\nbbb\n', 8, commentLength)).toEqual({
      text: 'aaa\nbbb',
      cut: false,
      keptLines: 2,
      totalLines: 2,
    });
  });

  it('keeps part of the first line when no whole line fits', () => {
    const result = truncateLines(`${'x'.repeat(100)}\nshort`, 11, commentLength);
    expect(result.text).toBe('x'.repeat(10));
    expect(result).toMatchObject({ cut: true, keptLines: 0, totalLines: 2 });
  });
});

describe('truncateCharacters', () => {
  it('never splits a surrogate pair', () => {
    const text = '🚀🚀🚀';
    expect(truncateCharacters(text, 3, commentLength)).toBe('🚀');
    expect(truncateCharacters(text, 4, commentLength)).toBe('🚀🚀');
  });

  it('counts UTF-8 bytes when asked to', () => {
    expect(truncateCharacters('ééé', 5, utf8Length)).toBe('éé');
  });
});

describe('linesOf', () => {
  it('does not count a final newline as a line', () => {
    expect(linesOf('a\nb\n')).toEqual(['a', 'b']);
    expect(linesOf('')).toEqual([]);
    expect(linesOf('a\n\nb')).toEqual(['a', '', 'b']);
  });
});

describe('waterFill', () => {
  it('meets every demand when the total suffices', () => {
    expect(waterFill([10, 20, 30], 100)).toEqual([10, 20, 30]);
  });

  it('never cuts a small demand to feed a large one', () => {
    expect(waterFill([10, 1000, 20, 1000], 230)).toEqual([10, 100, 20, 100]);
  });

  it('divides equally among demands that all exceed the share', () => {
    expect(waterFill([500, 800, 900], 300)).toEqual([100, 100, 100]);
  });

  it('never gives more than the total', () => {
    const demands = [7, 13, 999, 4, 250, 31];
    for (const total of [0, 1, 17, 100, 500, 2000]) {
      const given = waterFill(demands, total);
      expect(given.reduce((sum, value) => sum + value, 0)).toBeLessThanOrEqual(total);
      given.forEach((value, index) => expect(value).toBeLessThanOrEqual(demands[index] ?? 0));
    }
  });
});

describe('fairAllocation', () => {
  it('gives each cluster its fair share first, then each diff within the cluster', () => {
    const allocation = fairAllocation(
      [
        {
          items: [
            { id: 'a1', size: 5000 },
            { id: 'a2', size: 50 },
          ],
        },
        { items: [{ id: 'b1', size: 100 }] },
        {
          items: [
            { id: 'c1', size: 3000 },
            { id: 'c2', size: 3000 },
          ],
        },
      ],
      2100,
    );
    expect(allocation.get('b1')).toBe(100);
    expect(allocation.get('a2')).toBe(50);
    expect(allocation.get('a1')).toBe(950);
    expect(allocation.get('c1')).toBe(500);
    expect(allocation.get('c2')).toBe(500);
  });
});

describe('degraded fits', () => {
  it('leaves diffs out and shares the object lists fairly when the lists alone are too long', () => {
    // 5 clusters × 400 created ConfigMaps each: the list of objects alone exceeds the limit.
    const set = changeSet(
      ['a', 'b', 'c', 'd', 'e'].map((name) =>
        cluster(name, 'g', [
          instance(
            'podinfo',
            Array.from({ length: 400 }, (_, index) =>
              created('ConfigMap', `config-${name}-${index}`, [`data: {k: "${index}"}`]),
            ),
          ),
        ]),
      ),
    );
    const body = renderPullRequestComment(set, { commitSha: 'abc', secrets: [] });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body.length).toBeGreaterThan(COMMENT_LIMIT * 0.9);
    expect(body).not.toContain('```diff');
    expect(body).toMatch(
      /Shortened to fit GitHub's comment limit \(65,536 characters\): diffs left out, \d+ objects not listed\./,
    );
    const listed = ['a', 'b', 'c', 'd', 'e'].map(
      (name) => body.match(new RegExp(`ConfigMap/apps/config-${name}-\\d+</code> created`, 'g'))?.length ?? 0,
    );
    expect(Math.min(...listed)).toBeGreaterThan(50);
    expect(Math.max(...listed) - Math.min(...listed)).toBeLessThanOrEqual(2);
    expect(body.match(/_\d+ more changed objects not listed for lack of room._/g)).toHaveLength(5);
    expect(body.match(/\| <code>[a-e]<\/code> \| g \| 400 \|/g)).toHaveLength(5);
  });

  it("never shortens a small cluster's object list to feed a large one", () => {
    const big = cluster('big', 'g', [
      instance(
        'podinfo',
        Array.from({ length: 3000 }, (_, index) => created('ConfigMap', `config-${index}`, [`data: {k: "${index}"}`])),
      ),
    ]);
    const small = ['s1', 's2', 's3'].map((name) => cluster(name, 'g', [podinfoInstance([1, 2])]));
    const body = renderPullRequestComment(changeSet([...small, big]), { commitSha: 'abc', secrets: [] });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    for (const name of ['s1', 's2', 's3']) {
      const section = body.slice(
        body.indexOf(`<summary><b>${name}</b>`),
        body.indexOf('</details>', body.indexOf(`<summary><b>${name}</b>`)),
      );
      expect(section).toContain('<code>Deployment/apps/podinfo</code> configured');
      expect(section).toContain('<code>HorizontalPodAutoscaler/apps/podinfo</code> created');
      expect(section).not.toContain('not listed');
    }
    expect(body).toMatch(/_\d+ more changed objects not listed for lack of room._/);
  });

  it('cuts the table at a line, and says so, only when the table alone exceeds the limit', () => {
    // Each cluster's change differs (replicas), so that no two share a row of the table (cluster-groups.ts).
    const set = changeSet(
      Array.from({ length: 900 }, (_, index) =>
        cluster(`cluster-with-a-long-name-${index}`, 'production-fleet', [podinfoInstance([1, index + 2])]),
      ),
    );
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
