// The parts of a ChangeSet that the size budget shares out, and the changes that touch
// secrets: computed once per report, used by the comment and the job summary alike.

import type { ChangeSet } from '../changeset.js';
import type { ItemGroup } from './fair-share.js';
import { objectListId } from './object-list.js';
import { objectChangesSecret } from './secret-change.js';
import { changeId, type Sharing } from './shared-changes.js';
import type { Measure } from '../github/limits.js';

/** Ids of the changes whose diff touches secret data (read from the unmasked ChangeSet). */
export function secretChangeIds(changeSet: ChangeSet, secrets: readonly string[]): Set<string> {
  const ids = new Set<string>();
  changeSet.clusters.forEach((cluster, clusterIndex) =>
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((change, objectIndex) => {
        if (objectChangesSecret(change, secrets)) ids.add(changeId(clusterIndex, instanceIndex, objectIndex));
      }),
    ),
  );
  return ids;
}

/** The diffs shown (first occurrences), grouped by cluster, with their sizes. */
export function diffGroups(changeSet: ChangeSet, sharing: ReadonlyMap<string, Sharing>, measure: Measure): ItemGroup[] {
  return changeSet.clusters.map((cluster, clusterIndex) => ({
    items: cluster.instances.flatMap((instance, instanceIndex) =>
      instance.changes.flatMap((change, objectIndex) => {
        const id = changeId(clusterIndex, instanceIndex, objectIndex);
        return sharing.get(id)?.kind === 'shown' ? [{ id, size: measure(change.diff) }] : [];
      }),
    ),
  }));
}

/**
 * One group per cluster holding its object list as one item, sized by the lines that
 * `line` renders for each listed object.
 */
export function objectListGroups(changeSet: ChangeSet, sizeOfLine: (clusterIndex: number, instanceIndex: number, objectIndex: number) => number): ItemGroup[] {
  return changeSet.clusters.map((cluster, clusterIndex) => {
    let size = 0;
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((_, objectIndex) => {
        size += sizeOfLine(clusterIndex, instanceIndex, objectIndex);
      }),
    );
    return { items: [{ id: objectListId(clusterIndex), size }] };
  });
}
