// The history of an instance on the fleet: our own Secret beside Timoni's, newest first, trimmed,
// and Timoni's inventory Secret left byte for byte as Timoni's apply wrote it.
import { describe, expect, it } from 'vitest';
import {
  appendHistory,
  currentRevision,
  decodeHistorySecret,
  historySecret,
  historySecretName,
  nextHistory,
  readHistory,
  readLiveRecordText,
  trimHistory,
  type HistoryEntry,
} from '../../../src/kube/instance/history-store.js';
import { applyInstance } from '../../../src/kube/instance/instance-apply.js';
import { encodeInstance } from '../../../src/kube/instance/inventory.js';
import { listInstances } from '../../../src/kube/instance/inventory-store.js';
import { deleteRemovedInstance, findRemovedInstances } from '../../../src/kube/instance/unlisted-instances.js';
import { clusterClient } from '../../harness/fleet/test-context.js';
import { built, configMap, engineFleet, freshNamespaceName, module } from '../support.js';

const CLUSTER = 1;

const entry = (revision: number, size = 10): HistoryEntry => ({
  revision,
  module: { url: 'oci://r/m', version: `1.0.${revision}`, digest: 'sha256:00' },
  values: 'x'.repeat(size),
  appliedAt: '2026-01-01T00:00:00Z',
  record: '{}',
});

describe('instance history (pure)', () => {
  it('trims to the newest N, never below the newest one, and under the size bound', () => {
    const entries = [entry(1), entry(3), entry(2)];
    expect(trimHistory(entries, 2).map((e) => e.revision)).toEqual([3, 2]);
    expect(trimHistory(entries, 0).map((e) => e.revision)).toEqual([3]);
    const big = [entry(3, 400), entry(2, 400), entry(1, 400)];
    expect(trimHistory(big, 10, 1500).map((e) => e.revision)).toEqual([3, 2]);
  });

  it('an apply that changed nothing but the transition time adds no revision, and refreshes the record', () => {
    const record = {
      name: 'web',
      namespace: 'apps',
      module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:aa' },
      values: 'values: {}\n',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    const first = nextHistory([], { record }, 10);
    expect(first).toMatchObject({ added: true, entry: { revision: 1 } });
    const again = nextHistory(first.entries, { record: { ...record, lastTransitionTime: '2026-01-02T00:00:00Z' } }, 10);
    expect(again.added).toBe(false);
    expect(again.entries.map((e) => e.revision)).toEqual([1]);
    expect(again.entries[0]!.record).toContain('2026-01-02T00:00:00Z');
    const changed = nextHistory(again.entries, { record: { ...record, values: 'values: {a: 1}\n' } }, 10);
    expect(changed.entries.map((e) => e.revision)).toEqual([2, 1]);
  });

  it('keeps the reviewed mark of an apply, and a rollback inherits the mark of the revision it put back', () => {
    const record = (values: string) => ({
      name: 'web',
      namespace: 'apps',
      module: { name: 'm', repository: 'oci://r/m', version: '1.0.0', digest: 'sha256:aa' },
      values,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const mark = { commit: 'c'.repeat(40), pullRequest: 7 };
    const one = nextHistory([], { record: record('a'), reviewed: mark }, 10);
    expect(one.entry.reviewed).toEqual(mark);
    const two = nextHistory(one.entries, { record: record('b') }, 10);
    expect(two.entry.reviewed).toBeUndefined();
    // Back to 1 (reviewed): revision 3 carries its mark; back to 2 (not reviewed): none.
    const three = nextHistory(two.entries, { record: record('a'), rollbackTo: 1 }, 10);
    expect(three.entry).toMatchObject({ revision: 3, rollbackTo: 1, reviewed: mark });
    const four = nextHistory(three.entries, { record: record('b'), rollbackTo: 2 }, 10);
    expect(four.entry).toMatchObject({ revision: 4, rollbackTo: 2 });
    expect(four.entry.reviewed).toBeUndefined();
    // The same record applied again by a reviewed run: the newest revision is refreshed and marked.
    const refreshed = nextHistory(four.entries, { record: record('b'), reviewed: mark }, 10);
    expect(refreshed).toMatchObject({ added: false, entry: { revision: 4, reviewed: mark } });
    // ...and an unreviewed run applying it again does not take the mark away.
    expect(nextHistory(refreshed.entries, { record: record('b') }, 10).entry.reviewed).toEqual(mark);
  });

  it('reads a reviewed mark back, and a malformed one as no mark (never as reviewed)', () => {
    const stored = (reviewed: unknown) =>
      decodeHistorySecret({
        ...historySecret('web', 'apps', []),
        data: { history: Buffer.from(JSON.stringify({ entries: [{ ...entry(1), reviewed }] })).toString('base64') },
      })[0]!.reviewed;
    expect(stored({ commit: 'abc', pullRequest: 3 })).toEqual({ commit: 'abc', pullRequest: 3 });
    expect(stored({ pullRequest: 3 })).toEqual({ pullRequest: 3 });
    expect(stored({ commit: 'abc' })).toEqual({ commit: 'abc' });
    for (const malformed of [
      true,
      'yes',
      1,
      {},
      { commit: '' },
      { commit: 1 },
      { pullRequest: -1 },
      { pullRequest: '3' },
      { commit: 'abc', pullRequest: 1.5 },
      null,
    ])
      expect(stored(malformed)).toBeUndefined();
  });
});

describe('instance history on the fleet', () => {
  it('appends newest first, trims to N, in a Secret of our own; Timoni’s inventory Secret is untouched', async () => {
    const cluster = engineFleet().clusters[CLUSTER]!;
    const admin = clusterClient(CLUSTER);
    const ns = freshNamespaceName(CLUSTER, 'history');
    const applied = [];
    for (const [index, color] of ['blue', 'green', 'red', 'black'].entries()) {
      const result = await applyInstance(
        cluster,
        built(ns, [configMap(ns, 'settings', { color })], {
          module: { ...module, version: `1.0.${index}` },
          valuesSource: `values: {\n\tcolor: "${color}"\n}\n`,
        }),
        {},
      );
      applied.push(result.record);
      const inventoryBefore = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
      await appendHistory(
        cluster,
        { record: result.record, commit: `c0ffee${index}`, runUrl: 'https://github.com/o/r/actions/runs/1' },
        3,
      );
      const inventoryAfter = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' });
      // Byte for byte, and not even rewritten (same resourceVersion, Timoni's field manager alone).
      expect(inventoryAfter).toEqual(inventoryBefore);
      expect(inventoryAfter.metadata.managedFields?.map((f) => f.manager)).toEqual(['timoni']);
    }

    const history = await readHistory(cluster, 'web', ns);
    expect(history.map((e) => [e.revision, e.module.version, e.commit])).toEqual([
      [4, '1.0.3', 'c0ffee3'],
      [3, '1.0.2', 'c0ffee2'],
      [2, '1.0.1', 'c0ffee1'],
    ]);
    expect(history[0]!.values).toBe('values: {\n\tcolor: "black"\n}\n');
    expect(history[0]!.runUrl).toBe('https://github.com/o/r/actions/runs/1');
    expect(history[0]!.appliedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Each entry holds Timoni's record exactly as the apply stored it.
    expect(history[1]!.record).toBe(encodeInstance(applied[2]!));
    const live = await readLiveRecordText(cluster, 'web', ns);
    expect(history[0]!.record).toBe(live);
    expect(currentRevision(history, live)).toBe(4);

    const secret = await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: historySecretName('web') });
    expect(secret.type).toBe('timoni-fleet.io/history');
    expect(secret.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'timoni-fleet',
      'timoni-fleet.io/instance': 'web',
    });
    expect(secret.metadata.managedFields?.map((f) => `${f.manager}/${f.operation}`)).toEqual(['timoni-fleet/Apply']);

    // Neither Timoni's listing nor our scan of instances a bundle no longer lists takes it for an instance.
    expect((await listInstances(cluster, ns)).map((i) => i.instance.name)).toEqual(['web']);
    // (Other tests' instances of bundle `apps` on this cluster are left out.)
    const scan = await findRemovedInstances(cluster, 'apps', []);
    const mine = scan.removed.filter((r) => r.instance.namespace === ns);
    expect(mine.map((r) => `${r.instance.namespace}/${r.instance.name}`)).toEqual([`${ns}/web`]);

    // Deleting the instance (bundle delete, prune of an unlisted instance) removes its history too.
    await deleteRemovedInstance(cluster, mine[0]!, { wait: false }, Date.now() + 30_000);
    expect(await admin.getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'timoni.web' })).toBeNull();
    expect(await readHistory(cluster, 'web', ns)).toEqual([]);
  });
});
