// The ChangeSet: one JSON document that `timoni-fleet diff|apply -o json` print, that the
// action sets as its `changes` output, and that the reports are rendered from.
// Clusters are in runtime order, instances in bundle order, objects in apply order.

export type ChangeSetMode = 'diff' | 'apply';

/** unchanged/changed after a diff; applied/failed after an apply; skipped = not reached after an earlier failure. */
export type ClusterStatus = 'unchanged' | 'changed' | 'applied' | 'failed' | 'skipped';

/** recreated = an immutable field changes and the object is deleted and created again (force). */
export type ObjectAction = 'created' | 'configured' | 'unchanged' | 'deleted' | 'recreated' | 'skipped';

export interface ObjectChange {
  kind: string;
  apiVersion: string;
  /** Empty for cluster-scoped objects. */
  namespace: string;
  name: string;
  action: ObjectAction;
  /**
   * Unified diff of normalised YAML (`--- live` / `+++ desired`), Secret data masked;
   * for `created` the whole object; empty for `unchanged`.
   */
  diff: string;
  /** The result of waiting for the object after apply (kstatus), when it was waited for. */
  readiness?: { status: 'Current' | 'InProgress' | 'Failed' | 'Terminating' | 'NotFound' | 'Unknown'; message: string; durationMs?: number };
}

export interface ModuleInfo {
  url: string;
  version: string;
  digest: string;
}

export interface InstanceChanges {
  name: string;
  namespace: string;
  module: ModuleInfo;
  changes: ObjectChange[];
}

export interface ClusterError {
  /** The step that failed, e.g. `evaluate`, `build`, `diff`, `apply`, `wait`, `prune`. */
  step: string;
  message: string;
  /** The instance and object concerned, when the error concerns one. */
  instance?: string;
  object?: string;
}

export interface ClusterChanges {
  name: string;
  group: string;
  kubeContext: string;
  status: ClusterStatus;
  error: ClusterError | null;
  instances: InstanceChanges[];
  /** Wall time spent on this cluster, in milliseconds. */
  durationMs?: number;
}

export interface ChangeSet {
  bundle: string;
  mode: ChangeSetMode;
  clusters: ClusterChanges[];
}

/** True when any cluster has an object that is not unchanged. */
export function hasChanges(changeSet: ChangeSet): boolean {
  return changeSet.clusters.some((cluster) =>
    cluster.instances.some((instance) => instance.changes.some((change) => change.action !== 'unchanged' && change.action !== 'skipped')),
  );
}
