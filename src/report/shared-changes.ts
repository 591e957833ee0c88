// The same change on several clusters (same instance, same object, same action and the
// same diff text) is shown once, under the first cluster in runtime order, naming the
// others; the later clusters refer back to it.

import type { ChangeSet, ObjectChange } from '../changeset.js';

export type Sharing =
  /** Shown here; `alsoOn` names the later clusters with the identical change (maybe none). */
  | { kind: 'shown'; alsoOn: string[] }
  /** Identical to the change shown under an earlier cluster. */
  | { kind: 'repeat'; shownOn: string };

/** The id of one object change in a ChangeSet: `cluster/instance/object` indexes. */
export function changeId(cluster: number, instance: number, object: number): string {
  return `${cluster}/${instance}/${object}`;
}

function hasDiff(change: ObjectChange): boolean {
  return change.diff !== '' && change.action !== 'unchanged' && change.action !== 'skipped';
}

/** How each object change with a diff is shown, by change id. Changes without a diff are absent. */
export function indexSharedChanges(changeSet: ChangeSet): Map<string, Sharing> {
  const firstByKey = new Map<string, { id: string; cluster: string }>();
  const sharing = new Map<string, Sharing>();
  changeSet.clusters.forEach((cluster, clusterIndex) => {
    cluster.instances.forEach((instance, instanceIndex) => {
      instance.changes.forEach((change, objectIndex) => {
        if (!hasDiff(change)) return;
        const id = changeId(clusterIndex, instanceIndex, objectIndex);
        const key = JSON.stringify([
          instance.name,
          instance.namespace,
          change.apiVersion,
          change.kind,
          change.namespace,
          change.name,
          change.action,
          change.diff,
        ]);
        const first = firstByKey.get(key);
        if (!first) {
          firstByKey.set(key, { id, cluster: cluster.name });
          sharing.set(id, { kind: 'shown', alsoOn: [] });
          return;
        }
        const shown = sharing.get(first.id);
        if (shown?.kind === 'shown' && !shown.alsoOn.includes(cluster.name) && cluster.name !== first.cluster) {
          shown.alsoOn.push(cluster.name);
        }
        sharing.set(id, { kind: 'repeat', shownOn: first.cluster });
      });
    });
  });
  return sharing;
}
