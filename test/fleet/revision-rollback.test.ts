// Which revision of an instance's history a rollback puts back (src/fleet/revision-rollback.ts
// chooseRevision): the one asked for, or the one before the live one; what is left as it is
// when every instance is rolled back; what fails the cluster when the target cannot be met.
import { describe, expect, it } from 'vitest';
import { chooseRevision, reviewedText, UnreviewedRevisionError } from '../../src/fleet/revision-rollback.js';
import type { HistoryEntry } from '../../src/kube/instance/index.js';

const entry = (revision: number): HistoryEntry => ({
  revision,
  module: { url: 'oci://registry.example/webapp', version: `1.${revision}.0`, digest: `sha256:${revision}` },
  values: `{message: "r${revision}"}`,
  appliedAt: '2026-11-27T10:00:00Z',
  record: `{"revision":${revision}}`,
});
/** Newest first, as the history store answers. */
const history = [entry(4), entry(3), entry(2), entry(1)];
const every = { instance: '' };
const one = { instance: 'frontend' };

describe('chooseRevision', () => {
  it('puts back the revision before the live one, which need not be the newest', () => {
    expect(chooseRevision(history, entry(4).record, every)).toEqual({ entry: entry(3), from: 4 });
    // After a rollback to 2 was itself rolled back by hand to 3, the live one is 3: its previous is 2.
    expect(chooseRevision(history, entry(3).record, one)).toEqual({ entry: entry(2), from: 3 });
  });

  it('puts back the revision asked for, live or not, and names the kept ones when it is missing', () => {
    expect(chooseRevision(history, entry(4).record, { instance: '', revision: 1 })).toEqual({
      entry: entry(1),
      from: 4,
    });
    expect(chooseRevision(history, 'applied by another tool', { instance: '', revision: 2 })).toEqual({
      entry: entry(2),
    });
    expect(() => chooseRevision(history, entry(4).record, { instance: '', revision: 9 })).toThrow(
      'has no revision 9 in its history (revisions kept: 4, 3, 2, 1)',
    );
    expect(() => chooseRevision([], null, { instance: '', revision: 1 })).toThrow('(revisions kept: none)');
  });

  it('leaves an instance with nothing to go back to when every instance is rolled back, and fails it when named', () => {
    expect(chooseRevision([entry(1)], entry(1).record, every)).toEqual({
      leave: 'revision 1 is the oldest kept: there is none before it',
    });
    expect(chooseRevision([], entry(1).record, every)).toMatchObject({ leave: expect.stringContaining('no history') });
    expect(chooseRevision(history, null, every)).toEqual({ leave: 'it is not installed' });
    expect(() => chooseRevision([entry(1)], entry(1).record, one)).toThrow('revision 1 is the oldest kept');
    expect(() => chooseRevision(history, null, one)).toThrow('it is not installed');
  });

  it('refuses to guess when the live record is none of the revisions kept', () => {
    expect(() => chooseRevision(history, 'applied by another tool', every)).toThrow(
      'its live record is none of the revisions kept (4, 3, 2, 1): it was applied since by another tool; name the revision to put back',
    );
  });

  describe("under unreviewed: refuse (the action's reviewed: require)", () => {
    const mark = { commit: 'c'.repeat(40), pullRequest: 41 };
    const reviewed = (revision: number): HistoryEntry => ({ ...entry(revision), reviewed: mark });
    // 5 put back 3 (reviewed, so 5 inherited its mark); 4 and 2 were applied with nothing reviewed.
    const kept = [{ ...reviewed(5), rollbackTo: 3 }, entry(4), reviewed(3), entry(2), { ...entry(1), rollbackTo: 0 }];
    const refuse = { instance: '', unreviewed: 'refuse' as const, unreviewedAdvice: 'Roll forward.' };

    it('puts back a revision a reviewed run applied, or a rollback to one', () => {
      expect(chooseRevision(kept, entry(4).record, { ...refuse, revision: 3 })).toEqual({
        entry: reviewed(3),
        from: 4,
      });
      expect(chooseRevision(kept, entry(4).record, { ...refuse, revision: 5 })).toEqual({ entry: kept[0], from: 4 });
      // The previous revision of the live one (4) is 3: reviewed.
      expect(chooseRevision(kept, entry(4).record, refuse)).toEqual({ entry: reviewed(3), from: 4 });
    });

    it('refuses one that no reviewed run applied, saying why and how to go on', () => {
      const refused = () => chooseRevision(kept, entry(5).record, { ...refuse, revision: 2 });
      expect(refused).toThrow(UnreviewedRevisionError);
      expect(refused).toThrow(
        'revision 2 was not applied by a reviewed run: its history entry records no review; nothing was applied to this cluster. Roll forward.',
      );
      // The previous revision (no revision asked) is held to the same rule.
      expect(() => chooseRevision(kept, reviewed(3).record, refuse)).toThrow(
        'revision 2 was not applied by a reviewed run',
      );
      // A rollback to an unreviewed revision is not reviewed either, and says which one it put back.
      expect(() => chooseRevision(kept, entry(4).record, { ...refuse, revision: 1 })).toThrow(
        'revision 1 was not applied by a reviewed run (it put back revision 0, which was not applied by a reviewed run either)',
      );
    });

    it('leaves an instance with nothing to go back to as it is, whatever the rule', () => {
      expect(chooseRevision([reviewed(1)], entry(1).record, refuse)).toEqual({
        leave: 'revision 1 is the oldest kept: there is none before it',
      });
      expect(chooseRevision([entry(1)], null, refuse)).toEqual({ leave: 'it is not installed' });
    });

    it('warn: puts back an unreviewed revision with the reason; absent: says nothing', () => {
      expect(chooseRevision(kept, entry(5).record, { instance: '', revision: 2, unreviewed: 'warn' })).toEqual({
        entry: entry(2),
        from: 5,
        unreviewed: 'revision 2 was not applied by a reviewed run: its history entry records no review',
      });
      expect(chooseRevision(kept, entry(5).record, { instance: '', revision: 2 })).toEqual({
        entry: entry(2),
        from: 5,
      });
    });

    it('says how a revision was reviewed', () => {
      expect(reviewedText(reviewed(3))).toBe('reviewed (pull request #41, diff of commit ccccccc)');
      expect(reviewedText({ ...entry(3), reviewed: { pullRequest: 9 } })).toBe('reviewed (pull request #9)');
      expect(reviewedText(entry(2))).toBe('not applied by a reviewed run');
    });
  });
});
