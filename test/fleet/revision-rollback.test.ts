// Which revision of an instance's history a rollback puts back (src/fleet/revision-rollback.ts
// chooseRevision): the one asked for, or the one before the live one; what is left as it is
// when every instance is rolled back; what fails the cluster when the target cannot be met.
import { describe, expect, it } from 'vitest';
import { chooseRevision } from '../../src/fleet/revision-rollback.js';
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
});
