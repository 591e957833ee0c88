import { describe, expect, it } from 'vitest';
import type { ChangeSet, ClusterChanges, DesiredState } from '../../src/changeset.js';
import { COMMENT_LIMIT, commentLength } from '../../src/github/limits.js';
import { renderPullRequestComment, renderRolloutComment } from '../../src/report/comment.js';
import {
  parseReviewedRecord,
  RECORD_LIMIT,
  reviewedBlock,
  ReviewedRecordError,
} from '../../src/report/reviewed-block.js';

const hex = (seed: number, length: number) => seed.toString(16).padStart(8, '0').repeat(8).slice(0, length);
const module = { url: 'oci://registry.example/podinfo', version: '6.5.4', digest: 'sha256:' + 'a'.repeat(64) };

function cluster(index: number, objects: number, changed = 1): ClusterChanges {
  const desired: DesiredState = {
    digest: hex(index, 64),
    modules: { podinfo: module },
    objects: Object.fromEntries(
      Array.from({ length: objects }, (_, o) => [`podinfo/ConfigMap/apps/config-${o}`, hex(index * 1000 + o, 16)]),
    ),
    objectCount: objects,
  };
  const changes = Array.from({ length: objects }, (_, o) => ({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    namespace: 'apps',
    name: `config-${o}`,
    action: o < changed ? ('configured' as const) : ('unchanged' as const),
    diff: o < changed ? '--- live\n+++ desired\n-a: 1\n+a: 2\n' : '',
  }));
  return {
    name: `cluster-${index}`,
    group: 'production',
    kubeContext: `ctx-${index}`,
    status: 'changed',
    error: null,
    instances: [{ name: 'podinfo', namespace: 'apps', module, changes }],
    desired,
  };
}

const changeSet = (clusters: ClusterChanges[]): ChangeSet => ({
  format: 1,
  bundle: 'apps',
  mode: 'diff',
  commit: 'f'.repeat(40),
  clusters,
});
const context = { commitSha: 'f'.repeat(40), secrets: [] };

describe('the review record', () => {
  it('reads back what it wrote, every object of a small fleet included', () => {
    const set = changeSet([cluster(1, 5), cluster(2, 5)]);
    const record = parseReviewedRecord(`<!-- timoni-fleet:bundle=apps -->\nbody\n${reviewedBlock(set)}`);
    expect(record).toMatchObject({ bundle: 'apps', commit: 'f'.repeat(40), scope: 'all' });
    expect(record?.clusters['cluster-1']).toEqual(set.clusters[0]?.desired);
    expect(record?.clusters['cluster-2']).toEqual(set.clusters[1]?.desired);
  });

  it('fits 50 clusters x 60 objects by keeping only the changed objects, then only cluster digests', () => {
    const set = changeSet(Array.from({ length: 50 }, (_, i) => cluster(i, 60, 2)));
    const block = reviewedBlock(set);
    expect(commentLength(block)).toBeLessThanOrEqual(RECORD_LIMIT);
    const record = parseReviewedRecord(block);
    expect(record?.scope).toBe('changed');
    expect(Object.keys(record?.clusters['cluster-7']?.objects ?? {})).toEqual([
      'podinfo/ConfigMap/apps/config-0',
      'podinfo/ConfigMap/apps/config-1',
    ]);
    expect(record?.clusters['cluster-7']?.objectCount).toBe(60);
    const tight = parseReviewedRecord(reviewedBlock(set, 6_000));
    expect(tight?.scope).toBe('cluster');
    expect(tight?.clusters['cluster-49']).toMatchObject({ digest: hex(49, 64), objects: {}, objectCount: 60 });
  });

  it('is at the end of the PR comment, which stays within the comment limit', () => {
    const set = changeSet(Array.from({ length: 50 }, (_, i) => cluster(i, 60, 60)));
    const body = renderPullRequestComment(set, context);
    expect(commentLength(body)).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body.startsWith('<!-- timoni-fleet:bundle=apps -->')).toBe(true);
    expect(parseReviewedRecord(body)?.clusters['cluster-0']?.digest).toBe(hex(0, 64));
  });

  it('is carried into the rollout comment, with the warnings under the headline', () => {
    const record = parseReviewedRecord(reviewedBlock(changeSet([cluster(1, 3)])));
    const applied: ChangeSet = { ...changeSet([{ ...cluster(1, 3), status: 'applied' }]), mode: 'apply' };
    const body = renderRolloutComment(applied, context, {
      ...(record ? { reviewed: record } : {}),
      warnings: ['cluster cluster-1: the desired state differs'],
    });
    expect(body).toContain('> [!WARNING]\n> cluster cluster-1&#58; the desired state differs');
    expect(parseReviewedRecord(body)).toEqual(record);
  });

  it('cannot end the HTML comment early, and refuses a damaged block', () => {
    const sneaky = cluster(1, 1);
    sneaky.desired = { ...sneaky.desired!, modules: { podinfo: { ...module, url: 'oci://x/--> <b>' } } };
    const block = reviewedBlock(changeSet([sneaky]));
    expect(block.indexOf('-->')).toBe(block.length - 3);
    expect(parseReviewedRecord(block)?.clusters['cluster-1']?.modules.podinfo?.url).toBe('oci://x/--> <b>');
    expect(parseReviewedRecord('no record here')).toBeNull();
    expect(() => parseReviewedRecord('<!-- timoni-fleet:reviewed {"v":1,"bundle":"apps"} -->')).toThrow(
      ReviewedRecordError,
    );
    expect(() => parseReviewedRecord('<!-- timoni-fleet:reviewed {"v":2} -->')).toThrow(/format 2/);
  });
});

describe('the review record cannot be forged through text the author controls', () => {
  const forged = (bundle: string) => reviewedBlock({ ...changeSet([{ ...cluster(9, 2), name: 'cluster-1' }]), bundle });

  it('a diff or an error message holding a record renders it escaped, and the comment reads back only its own record', () => {
    const block = forged('apps');
    const base = cluster(1, 2);
    const first = base.instances[0];
    if (!first) throw new Error('fixture');
    const hostile: ClusterChanges = {
      ...base,
      error: { step: 'diff', message: `refused: ${block}` },
      instances: [
        {
          ...first,
          changes: first.changes.map((change, index) =>
            index === 0 ? { ...change, diff: `--- live\n+++ desired\n-a: 1\n+a: "${block}"\n` } : change,
          ),
        },
      ],
    };
    const body = renderPullRequestComment(changeSet([hostile]), context);
    // The renderer's own record is the one block in the body; the forged ones are shown escaped.
    expect(body.split('<!-- timoni-fleet:reviewed ').length - 1).toBe(1);
    expect(body).toContain('\\u003C!-- timoni-fleet:reviewed ');
    expect(parseReviewedRecord(body)?.clusters['cluster-1']).toEqual(hostile.desired);
    // Without a record of its own (no desired state), the comment holds none, whatever its text says.
    const withoutRecord = renderPullRequestComment(changeSet([{ ...hostile, desired: undefined }]), context);
    expect(parseReviewedRecord(withoutRecord)).toBeNull();
    expect(withoutRecord).not.toContain('<!-- timoni-fleet:reviewed');
  });

  it('is read only from the last line of a body', () => {
    const block = forged('apps');
    expect(parseReviewedRecord(`<!-- timoni-fleet:bundle=apps -->\n${block}\n</details>\n`)).toBeNull();
    expect(parseReviewedRecord(`<!-- timoni-fleet:bundle=apps -->\ntext\n${block}\n`)?.bundle).toBe('apps');
    expect(() =>
      parseReviewedRecord(`<!-- timoni-fleet:bundle=apps -->\ntext\n<!-- timoni-fleet:reviewed {"v":1}`),
    ).toThrow(ReviewedRecordError);
  });
});
