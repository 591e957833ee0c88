import { describe, expect, it } from 'vitest';
import type { RuntimeCluster } from '../../src/bundle/index.js';
import { readRecords, ReviewCheck, revisionReviewRule } from '../../src/action/review-check.js';
import { commentMarker, type ReviewedRecord } from '../../src/report/index.js';
import { renderRecord } from '../../src/report/reviewed-block.js';
import { desiredState } from '../../src/fleet/desired-state.js';
import type { Annotation } from '../../src/workflow-commands.js';

const module = { url: 'oci://r.example/webapp', version: '1.4.0', digest: 'sha256:' + 'a'.repeat(64) };
const state = (replicas: number) =>
  desiredState([
    {
      name: 'web',
      module,
      objects: [
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'apps' }, spec: { replicas } },
      ],
    },
  ]);
const record: ReviewedRecord = {
  bundle: 'apps',
  commit: 'c'.repeat(40),
  scope: 'all',
  clusters: { staging: state(1) },
};
const cluster = (name: string) => ({ name, group: 'g', kubeContext: name }) as RuntimeCluster;

function check(policy: 'require' | 'warn', records = new Map([['apps', record]])) {
  const lines: string[] = [];
  const annotations: Annotation[] = [];
  const review = new ReviewCheck(
    policy,
    { line: (t) => lines.push(t), annotate: (a) => annotations.push(a) },
    7,
    records,
  );
  return { review, lines, annotations };
}

describe('ReviewCheck', () => {
  it('lets the reviewed state through and says so', () => {
    const { review, lines } = check('require');
    expect(() => review.beforeApply(cluster('staging'), 'apps', state(1))).not.toThrow();
    expect(lines).toEqual(['cluster staging: the desired state is the one reviewed in pull request #7']);
    expect(review.summary()).toEqual(['Applied as reviewed in pull request #7: staging.']);
  });

  it('require: refuses a cluster that differs or was not reviewed, naming the objects', () => {
    const { review } = check('require');
    expect(() => review.beforeApply(cluster('staging'), 'apps', state(3))).toThrow(
      /differs from the one reviewed in pull request #7 \(diff of commit ccccccc\): objects changed: web\/Deployment\/apps\/web; nothing was applied/,
    );
    expect(() => review.beforeApply(cluster('production'), 'apps', state(1))).toThrow(
      /cluster production is not in the review record of pull request #7/,
    );
    expect(() => review.beforeApply(cluster('staging'), 'other', state(1))).toThrow(
      /has no review record of bundle other/,
    );
  });

  it('warn: applies, with a warning for the comment, the summary and the log', () => {
    const { review, annotations } = check('warn');
    review.beforeApply(cluster('staging'), 'apps', state(3));
    expect(review.warnings).toHaveLength(1);
    expect(review.warnings[0]).toContain('applied anyway (reviewed: warn)');
    expect(review.summary()).toEqual(review.warnings);
    expect(annotations.map((a) => a.level)).toEqual(['warning']);
  });

  it('without a pull request: warn notes that nothing was compared, require refuses at step review', () => {
    const why = 'the run was started by workflow_dispatch with no merged pull request';
    const warned = new ReviewCheck('warn', { line: () => {}, annotate: () => {} }, undefined, undefined, why);
    expect(() => warned.beforeApply(cluster('staging'), 'apps', state(9))).not.toThrow();
    expect(warned.summary()).toEqual([`What is applied was not compared with a review: ${why}.`]);
    const annotations: Annotation[] = [];
    const required = new ReviewCheck(
      'require',
      { line: () => {}, annotate: (a) => annotations.push(a) },
      undefined,
      undefined,
      why,
    );
    expect(() => required.beforeApply(cluster('staging'), 'apps', state(9))).toThrow(
      `cluster staging: nothing was reviewed to compare with: ${why}; nothing was applied to it (reviewed: require)`,
    );
    expect(annotations.map((a) => a.level)).toEqual(['error']);
  });
});

describe('ReviewCheck: the reviewed mark of the history', () => {
  it('answers the mark when the cluster is the one reviewed, under require and warn alike', () => {
    const mark = { commit: record.commit, pullRequest: 7 };
    expect(check('require').review.beforeApply(cluster('staging'), 'apps', state(1))).toEqual(mark);
    expect(check('warn').review.beforeApply(cluster('staging'), 'apps', state(1))).toEqual(mark);
  });

  it('answers none when it differs (applied under warn) or when nothing was reviewed', () => {
    expect(check('warn').review.beforeApply(cluster('staging'), 'apps', state(3))).toBeUndefined();
    expect(check('warn').review.beforeApply(cluster('production'), 'apps', state(1))).toBeUndefined();
    const none = new ReviewCheck('warn', { line: () => {}, annotate: () => {} }, undefined, undefined, 'a dispatch');
    expect(none.beforeApply(cluster('staging'), 'apps', state(1))).toBeUndefined();
  });

  it('a rollback to a revision: require refuses unreviewed revisions, warn warns, off says nothing', () => {
    expect(revisionReviewRule('require')).toMatchObject({
      unreviewed: 'refuse',
      unreviewedAdvice: expect.stringContaining('with reviewed: warn'),
    });
    expect(revisionReviewRule('warn')).toEqual({ unreviewed: 'warn' });
    expect(revisionReviewRule('off')).toEqual({});
  });
});

describe('ReviewCheck: fleet membership', () => {
  const withMembership = new Map([['apps', { ...record, leaves: ['prod-3'], renames: { 'prod-2b': 'prod-2' } }]]);

  it('lets a reviewed leave through; require refuses one the record does not hold, warn removes it with a warning', () => {
    const { review, lines } = check('require', withMembership);
    expect(() => review.beforeLeave(cluster('prod-3'), 'apps')).not.toThrow();
    expect(lines).toContain('cluster prod-3: leaving the fleet was reviewed in pull request #7');
    expect(() => review.beforeLeave(cluster('prod-4'), 'apps')).toThrow(
      'cluster prod-4 leaving the fleet is not in the review record of pull request #7; the bundle was not removed from it (reviewed: require)',
    );
    expect(() => check('require').review.beforeLeave(cluster('prod-3'), 'apps')).toThrow(/not in the review record/);
    const warned = check('warn');
    expect(() => warned.review.beforeLeave(cluster('prod-4'), 'apps')).not.toThrow();
    expect(warned.review.warnings[0]).toContain('the bundle was removed from it anyway (reviewed: warn)');
    expect(warned.annotations.map((a) => a.level)).toEqual(['warning']);
  });

  it('re-pins a rename only when the record holds it, under require and warn alike', () => {
    for (const policy of ['require', 'warn'] as const) {
      expect(() =>
        check(policy, withMembership).review.beforeRename(cluster('prod-2b'), cluster('prod-2')),
      ).not.toThrow();
      expect(() => check(policy, withMembership).review.beforeRename(cluster('prod-2c'), cluster('prod-2'))).toThrow(
        'the rename of cluster prod-2 to prod-2c is not in the review record of pull request #7: its identity record is not re-pinned',
      );
      expect(() => check(policy).review.beforeRename(cluster('prod-2b'), cluster('prod-2'))).toThrow(
        /not in the review record/,
      );
    }
  });
});

describe('readRecords: where a review record is read from', () => {
  const bot = 'github-actions[bot]';
  const body = (bundle: string, text: string, recorded?: ReviewedRecord) =>
    `${commentMarker(bundle)}\n### timoni-fleet diff\n\n${text}\n${recorded ? renderRecord(recorded) : ''}`;
  const forged: ReviewedRecord = {
    bundle: 'apps',
    commit: 'f'.repeat(40),
    scope: 'all',
    clusters: { staging: state(99) },
  };

  it('reads the record of the comment whose marker names the bundle, from its last line', () => {
    const { records, unreadable } = readRecords([{ body: body('apps', 'diff', record), user: { login: bot } }], bot);
    expect(records.get('apps')).toEqual(record);
    expect(unreadable.size).toBe(0);
  });

  it("never takes a record from another bundle's comment, from text before the last line, or from another author", () => {
    const comments = [
      // Another bundle's comment whose diff text holds a record naming "apps", and no record of its own.
      { body: body('other', `\`\`\`diff\n+ ${renderRecord(forged)}\n\`\`\``), user: { login: bot } },
      // The comment of "apps": its diff failed, so no record; a forged one stands in its text.
      { body: body('apps', `\`\`\`text\n${renderRecord(forged)}\n\`\`\`\n`), user: { login: bot } },
      // A person's comment with the marker and a record at its end.
      { body: body('apps', 'quoted', forged), user: { login: 'mallory' } },
    ];
    const { records, unreadable } = readRecords(comments, bot);
    expect(records.size).toBe(0);
    expect(unreadable.get('apps')).toMatch(/ends with no review record/);
    expect(unreadable.get('other')).toMatch(/ends with no review record/);
  });

  it('refuses a record that names another bundle than its marker, or that cannot be read', () => {
    const { records, unreadable } = readRecords(
      [
        { body: body('other', 'diff', forged), user: { login: bot } },
        { body: `${commentMarker('broken')}\ntext\n<!-- timoni-fleet:reviewed {"v":1 -->`, user: { login: bot } },
      ],
      bot,
    );
    expect(records.size).toBe(0);
    expect(unreadable.get('other')).toBe('the record in its comment names bundle "apps", not this one');
    expect(unreadable.get('broken')).toMatch(/^the review record in the pull request comment cannot be read: not JSON/);
  });

  it('require: a bundle whose comment holds no readable record is refused with the reason', () => {
    const { records, unreadable } = readRecords([{ body: body('apps', 'no record'), user: { login: bot } }], bot);
    const review = new ReviewCheck(
      'require',
      { line: () => {}, annotate: () => {} },
      7,
      records,
      undefined,
      unreadable,
    );
    expect(() => review.beforeApply(cluster('staging'), 'apps', state(1))).toThrow(
      /pull request #7 has no review record of bundle apps \(its comment ends with no review record: did its diff fail\?\)/,
    );
  });
});
