// Log lines for the action log, in the style of `timoni bundle apply`:
// `b:apps > c:staging-eu-1 > i:podinfo > Deployment/apps/podinfo configured`.

import type { ChangeSet, ObjectChange } from '../fleet/changeset.js';
import { objectRef } from './object-ref.js';

export interface ChangeLine {
  bundle: string;
  cluster: string;
  instance: string;
  change: Pick<ObjectChange, 'kind' | 'namespace' | 'name' | 'action'>;
}

/** One Timoni-style log line for one object change. */
export function formatChangeLine(line: ChangeLine): string {
  return `b:${line.bundle} > c:${line.cluster} > i:${line.instance} > ${objectRef(line.change)} ${line.change.action}`;
}

/** The log lines of one cluster of a ChangeSet, objects in apply order. */
export function formatClusterChangeLines(changeSet: ChangeSet, clusterName: string): string[] {
  const cluster = changeSet.clusters.find((candidate) => candidate.name === clusterName);
  if (!cluster) return [];
  return cluster.instances.flatMap((instance) =>
    instance.changes.map((change) =>
      formatChangeLine({ bundle: changeSet.bundle, cluster: cluster.name, instance: instance.name, change }),
    ),
  );
}
