// The status of a bundle's instances in one cluster, as `timoni bundle status` reports
// it: the instance Secrets labelled with the bundle (oldest first), each with its module,
// digest, last applied time, images, and the kstatus of every object of its inventory.
import type { KubeCluster } from '../connect/index.js';
import { bundleNameLabel, parseInventoryEntry, type DecodedInstanceSecret } from './inventory.js';
import { deletingAnnotation } from './inventory-pending.js';
import { listInstances } from './inventory-store.js';
import { readObjectStatus, type ReadinessCheck } from '../status/index.js';

export interface InstanceStatus {
  name: string;
  namespace: string;
  bundle: string;
  module: { name: string; url: string; version: string; digest: string };
  /** RFC 3339 time of the last inventory write. */
  lastApplied: string;
  images: string[];
  /** kstatus of every inventory object, in inventory (apply) order. */
  objects: ReadinessCheck[];
  /** An upgrade was started and not finished (`data.pending` is set). */
  pending: boolean;
  /** Set when a delete started and did not finish: its start time. */
  deleting?: string;
  /** True when every object is Current. */
  ready: boolean;
}

/** The status of one stored instance: each inventory object read from the cluster. */
export async function instanceStatus(cluster: KubeCluster, stored: DecodedInstanceSecret): Promise<InstanceStatus> {
  const { instance } = stored;
  const refs = (instance.inventory?.entries ?? []).map(parseInventoryEntry);
  // A running Job is Current here, as `timoni bundle status` (plain kstatus) reports it.
  const objects = await Promise.all(refs.map((ref) => readObjectStatus(cluster, ref, { jobs: 'started' })));
  const deleting = instance.annotations?.[deletingAnnotation];
  return {
    name: instance.name,
    namespace: instance.namespace,
    bundle: instance.labels?.[bundleNameLabel] ?? '',
    module: {
      name: instance.module.name,
      url: instance.module.repository,
      version: instance.module.version,
      digest: instance.module.digest,
    },
    lastApplied: instance.lastTransitionTime ?? '',
    images: instance.images ?? [],
    objects,
    pending: !!stored.pending,
    ...(deleting ? { deleting } : {}),
    ready: objects.every((o) => o.status === 'Current'),
  };
}

/** Every instance of the bundle in the cluster (all namespaces), oldest first. */
export async function bundleStatus(
  cluster: KubeCluster,
  bundle: string,
  onIgnored?: (message: string) => void,
): Promise<InstanceStatus[]> {
  // Only records Timoni would have written (record-checks.ts); the others are told to onIgnored.
  const stored = await listInstances(cluster, '', bundle, onIgnored);
  const statuses: InstanceStatus[] = [];
  for (const instance of stored) statuses.push(await instanceStatus(cluster, instance));
  return statuses;
}
