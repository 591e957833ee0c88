// How one cluster's work is told: its entry of the ChangeSet (status, the error with the
// step it failed in, instances with their module and object changes), and its log lines in
// Timoni's style (`b:apps > c:staging-1 > i:podinfo > Deployment/apps/podinfo configured`;
// the cluster part is left out for the default cluster).
import { DEFAULT_RUNTIME_NAME, type RuntimeCluster } from '../bundle/index.js';
import type { ClusterChanges, ClusterError, InstanceChanges, ObjectChange } from '../changeset.js';
import type { ReadinessCheck } from '../kube/status/index.js';
import { FAILURE_MARK, type FleetRun } from './fleet-run.js';

/** A failure tagged with the step of the cluster's work it happened in. */
export class ClusterStepError extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
    readonly instance?: string,
    readonly object?: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ClusterStepError';
  }
}

export function clusterEntry(
  cluster: RuntimeCluster,
  status: ClusterChanges['status'],
  instances: InstanceChanges[],
  error: ClusterError | null,
  startedAt: number,
): ClusterChanges {
  return {
    name: cluster.name,
    group: cluster.group,
    kubeContext: cluster.kubeContext,
    status,
    error,
    instances,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: Date.now() - startedAt,
  };
}

export function clusterError(error: unknown, fallbackStep: string): ClusterError {
  if (error instanceof ClusterStepError) {
    return {
      step: error.step,
      message: error.message,
      ...(error.instance ? { instance: error.instance } : {}),
      ...(error.object ? { object: error.object } : {}),
    };
  }
  return { step: fallbackStep, message: error instanceof Error ? error.message : String(error) };
}

/**
 * Tells a cluster's failure once. The run's handler hears it first (the action annotates a
 * CUE error on the user's own lines there), then the cluster's log gets the failure line
 * (FAILURE_MARK): the CLI prints it, the action shows it as the one annotation of this
 * failure unless the handler has already told its message.
 */
export function tellFailure(
  run: Pick<FleetRun, 'onClusterError'>,
  cluster: string,
  line: (text: string) => void,
  error: unknown,
  text = error instanceof Error ? error.message : String(error),
): void {
  run.onClusterError?.(cluster, error);
  line(`${FAILURE_MARK}${text}`);
}

export function skippedEntry(cluster: RuntimeCluster): ClusterChanges {
  return {
    name: cluster.name,
    group: cluster.group,
    kubeContext: cluster.kubeContext,
    status: 'skipped',
    error: null,
    instances: [],
  };
}

export function logPrefix(bundle: string, cluster?: string, instance?: string): string {
  const parts = [`b:${bundle}`];
  if (cluster && cluster !== DEFAULT_RUNTIME_NAME) parts.push(`c:${cluster}`);
  if (instance) parts.push(`i:${instance}`);
  return parts.join(' > ');
}

export function changeLine(
  bundle: string,
  cluster: string,
  instance: string,
  change: Pick<ObjectChange, 'kind' | 'namespace' | 'name' | 'action'>,
): string {
  const object = [change.kind, change.namespace, change.name].filter(Boolean).join('/');
  return `${logPrefix(bundle, cluster, instance)} > ${object} ${change.action}`;
}

/** Each applied object's readiness result, matched by kind, namespace and name. */
export function withReadiness(changes: ObjectChange[], readiness: ReadinessCheck[]): ObjectChange[] {
  const key = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;
  const byObject = new Map(readiness.map((r) => [key(r.object.kind, r.object.namespace, r.object.name), r]));
  return changes.map((change) => {
    const found = byObject.get(key(change.kind, change.namespace, change.name));
    return found ? { ...change, readiness: { status: found.status, message: found.message } } : change;
  });
}
