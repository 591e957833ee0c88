import { describe, expect, it } from 'vitest';
import type { RuntimeCluster } from '../../src/bundle/index.js';
import { ReviewCheck } from '../../src/action/reviewed.js';
import { desiredState } from '../../src/fleet/reviewed.js';
import type { ReviewedRecord } from '../../src/report/index.js';
import type { Annotation } from '../../src/action/runner.js';

const module = { url: 'oci://r.example/webapp', version: '1.4.0', digest: 'sha256:' + 'a'.repeat(64) };
const state = (replicas: number) => desiredState([{ name: 'web', module, objects: [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'apps' }, spec: { replicas } }] }]);
const record: ReviewedRecord = { bundle: 'apps', commit: 'c'.repeat(40), scope: 'all', clusters: { staging: state(1) } };
const cluster = (name: string) => ({ name, group: 'g', kubeContext: name }) as RuntimeCluster;

function check(policy: 'require' | 'warn', records = new Map([['apps', record]])) {
  const lines: string[] = [];
  const annotations: Annotation[] = [];
  const review = new ReviewCheck(policy, { line: (t) => lines.push(t), annotate: (a) => annotations.push(a) }, 7, records);
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
    expect(() => review.beforeApply(cluster('staging'), 'apps', state(3))).toThrow(/differs from the one reviewed in pull request #7 \(diff of commit ccccccc\): objects changed: web\/Deployment\/apps\/web; nothing was applied/);
    expect(() => review.beforeApply(cluster('production'), 'apps', state(1))).toThrow(/cluster production is not in the review record of pull request #7/);
    expect(() => review.beforeApply(cluster('staging'), 'other', state(1))).toThrow(/has no review record of bundle other/);
  });

  it('warn: applies, with a warning for the comment, the summary and the log', () => {
    const { review, annotations } = check('warn');
    review.beforeApply(cluster('staging'), 'apps', state(3));
    expect(review.warnings).toHaveLength(1);
    expect(review.warnings[0]).toContain('applied anyway (reviewed: warn)');
    expect(review.summary()).toEqual(review.warnings);
    expect(annotations.map((a) => a.level)).toEqual(['warning']);
  });

  it('without a pull request only notes that nothing was compared', () => {
    const review = new ReviewCheck('require', { line: () => {}, annotate: () => {} }, undefined, undefined, 'the run was started by workflow_dispatch, which has no pull request');
    expect(() => review.beforeApply(cluster('staging'), 'apps', state(9))).not.toThrow();
    expect(review.summary()).toEqual(['What is applied was not compared with a review: the run was started by workflow_dispatch, which has no pull request.']);
  });
});
