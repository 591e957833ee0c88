// One row of the fleet's state (`mode: status`, `timoni-fleet status -o json`): the states an instance on a
// cluster can be in, what a row holds, and how a row's module and readiness are read from what the cluster
// stores. The rows themselves are made by `fleet-state.ts` (selected clusters) and `orphaned-clusters.ts`
// (clusters that left the runtime).
import type { ModuleInfo } from '../changeset.js';
import type { DecodedInstanceSecret, InstanceStatus } from '../kube/instance/index.js';
import { formatRef } from '../kube/object.js';

export const INSTANCE_STATES = ['deployed', 'stale', 'not installed', 'failed', 'unknown', 'orphaned'] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

/** Version of the `status -o json` document and of the action's `status` output. */
export const FLEET_STATE_FORMAT = 1;

export interface InstanceReadiness {
  /** Objects of the stored inventory that are Current. */
  ready: number;
  total: number;
  /** The others: `Deployment/apps/web InProgress: Deployment not ready`. */
  notReady: string[];
}

export interface InstanceStateRow {
  cluster: string;
  group: string;
  /** '' when the cluster's instances could not be named (the bundle did not evaluate for it). */
  instance: string;
  namespace: string;
  state: InstanceState;
  /** The module the cluster stores for the instance (its last apply); null when none is stored or it could not be read. */
  module: ModuleInfo | null;
  /** The module the bundle asks for; null when the bundle no longer lists the instance or did not build. */
  desired: ModuleInfo | null;
  /** RFC 3339 time of the last apply (the inventory's `lastTransitionTime`); null when none is stored. */
  lastApplied: string | null;
  /** Readiness of the stored objects; null when none is stored or the cluster was not reached. */
  readiness: InstanceReadiness | null;
  /** Why the state is not `deployed` (empty when it is). */
  reason: string;
}

export interface FleetState {
  format: typeof FLEET_STATE_FORMAT;
  bundle: string;
  /** The commit the state was read for (the action sets it). */
  commit?: string;
  /** Every selected cluster x instance, clusters in runtime order, instances in bundle order. */
  instances: InstanceStateRow[];
  /** How many rows are in each state. */
  counts: Record<InstanceState, number>;
}

/** True when the stored module is another than the bundle's: another version, or another known digest. */
export function moduleDiffers(stored: ModuleInfo, desired: ModuleInfo): boolean {
  const known = (digest: string) => digest !== '' && digest !== 'unknown';
  if (known(stored.digest) && known(desired.digest) && stored.digest !== desired.digest) return true;
  return stored.version !== desired.version;
}

/** The module a stored instance record names. */
export function storedModuleOf(stored: DecodedInstanceSecret): ModuleInfo {
  const { module } = stored.instance;
  return { url: module.repository, version: module.version, digest: module.digest };
}

export function readinessOf(status: InstanceStatus): InstanceReadiness {
  const notReady = status.objects
    .filter((o) => o.status !== 'Current')
    .map((o) => `${formatRef(o.object)} ${o.status}${o.message ? `: ${o.message}` : ''}`);
  return { ready: status.objects.length - notReady.length, total: status.objects.length, notReady };
}

export function countStates(rows: readonly InstanceStateRow[]): Record<InstanceState, number> {
  const counts = Object.fromEntries(INSTANCE_STATES.map((state) => [state, 0])) as Record<InstanceState, number>;
  for (const r of rows) counts[r.state] += 1;
  return counts;
}
