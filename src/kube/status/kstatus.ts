// Readiness of one live object, with the rules of kstatus (sigs.k8s.io/cli-utils
// pkg/kstatus/status) and Timoni's Job rule (a Job is ready once complete, not once
// started). Pure functions over the object as the API server returns it.
import type { ReadinessStatus } from '../../changeset.js';
import { groupOf, isRecord, type KubeObject } from '../object.js';

export interface StatusResult {
  status: ReadinessStatus;
  message: string;
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

const current = (message: string): StatusResult => ({ status: 'Current', message });
const inProgress = (message: string): StatusResult => ({ status: 'InProgress', message });
const failed = (message: string): StatusResult => ({ status: 'Failed', message });

/** A field read by a dotted path, e.g. `spec.replicas`. */
function field(object: KubeObject, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[part];
  }
  return value;
}

function int(object: KubeObject, path: string, fallback: number): number {
  const value = field(object, path);
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
}

function str(object: KubeObject, path: string, fallback: string): string {
  const value = field(object, path);
  return typeof value === 'string' ? value : fallback;
}

function conditions(object: KubeObject): Condition[] {
  const list = field(object, 'status.conditions');
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((c) => ({
    type: String(c.type ?? ''),
    status: String(c.status ?? ''),
    reason: String(c.reason ?? ''),
    message: String(c.message ?? ''),
  }));
}

function hasCondition(object: KubeObject, type: string, status: string): boolean {
  return conditions(object).some((c) => c.type === type && c.status === status);
}

/** Deletion, observed generation, and the standard Reconciling / Stalled conditions. */
function genericStatus(object: KubeObject): StatusResult | null {
  if (typeof object.metadata.deletionTimestamp === 'string' && object.metadata.deletionTimestamp) {
    return { status: 'Terminating', message: 'Resource scheduled for deletion' };
  }
  const generation = object.metadata.generation;
  const observed = field(object, 'status.observedGeneration');
  if (typeof generation === 'number' && typeof observed === 'number' && observed !== generation) {
    return inProgress(`${object.kind} generation is ${generation}, but latest observed generation is ${observed}`);
  }
  for (const c of conditions(object)) {
    if (c.type === 'Reconciling' && c.status === 'True') return inProgress(c.message || c.reason || 'Reconciling');
    if (c.type === 'Stalled' && c.status === 'True') return failed(c.message || c.reason || 'Stalled');
  }
  return null;
}

function deploymentStatus(o: KubeObject): StatusResult {
  // Without progressDeadlineSeconds the controller never sets Progressing: treat as progressing.
  let progressing = field(o, 'spec.progressDeadlineSeconds') === undefined;
  let available = false;
  for (const c of conditions(o)) {
    if (c.type === 'Progressing') {
      if (c.reason === 'ProgressDeadlineExceeded')
        return failed(`Progress deadline exceeded${c.message ? `: ${c.message}` : ''}`);
      if (c.status === 'True' && c.reason === 'NewReplicaSetAvailable') progressing = true;
    }
    if (c.type === 'Available' && c.status === 'True') available = true;
  }
  const spec = int(o, 'spec.replicas', 1);
  const replicas = int(o, 'status.replicas', 0);
  const updated = int(o, 'status.updatedReplicas', 0);
  const ready = int(o, 'status.readyReplicas', 0);
  const availableReplicas = int(o, 'status.availableReplicas', 0);
  if (spec > replicas) return inProgress(`Replicas: ${replicas}/${spec}`);
  if (spec > updated) return inProgress(`Updated: ${updated}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  if (updated > availableReplicas) return inProgress(`Available: ${availableReplicas}/${updated}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (!progressing) return inProgress('ReplicaSet not Available');
  if (!available) return inProgress('Deployment not Available');
  return current(`Deployment is available. Replicas: ${replicas}`);
}

function statefulSetStatus(o: KubeObject): StatusResult {
  if (str(o, 'spec.updateStrategy.type', '') === 'OnDelete')
    return current('StatefulSet is using the ondelete update strategy');
  const spec = int(o, 'spec.replicas', 1);
  const ready = int(o, 'status.readyReplicas', 0);
  const currentReplicas = int(o, 'status.currentReplicas', 0);
  const updated = int(o, 'status.updatedReplicas', 0);
  const replicas = int(o, 'status.replicas', 0);
  const partition = int(o, 'spec.updateStrategy.rollingUpdate.partition', -1);
  if (spec > replicas) return inProgress(`Replicas: ${replicas}/${spec}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  if (partition !== -1) {
    if (updated < spec - partition) return inProgress(`updated: ${updated}/${spec - partition}`);
    return current(`Partition rollout complete. updated: ${updated}`);
  }
  if (spec > currentReplicas) return inProgress(`current: ${currentReplicas}/${spec}`);
  if (str(o, 'status.currentRevision', '') !== str(o, 'status.updateRevision', ''))
    return inProgress('Waiting for updated revision to match current');
  return current(`All replicas scheduled as expected. Replicas: ${replicas}`);
}

function daemonSetStatus(o: KubeObject): StatusResult {
  if (typeof o.metadata.generation !== 'number') return inProgress(`${o.kind} metadata.generation not found`);
  if (typeof field(o, 'status.observedGeneration') !== 'number')
    return inProgress(`${o.kind} status.observedGeneration not found`);
  const desired = int(o, 'status.desiredNumberScheduled', -1);
  const scheduled = int(o, 'status.currentNumberScheduled', 0);
  const updated = int(o, 'status.updatedNumberScheduled', 0);
  const availableNumber = int(o, 'status.numberAvailable', 0);
  const ready = int(o, 'status.numberReady', 0);
  if (desired === -1) return inProgress('Missing .status.desiredNumberScheduled');
  if (desired > scheduled) return inProgress(`Current: ${scheduled}/${desired}`);
  if (desired > updated) return inProgress(`Updated: ${updated}/${desired}`);
  if (desired > availableNumber) return inProgress(`Available: ${availableNumber}/${desired}`);
  if (desired > ready) return inProgress(`Ready: ${ready}/${desired}`);
  return current(`All replicas scheduled as expected. Replicas: ${desired}`);
}

function replicaSetStatus(o: KubeObject): StatusResult {
  if (hasCondition(o, 'ReplicaFailure', 'True')) return inProgress('Replica Failure condition. Check Pods');
  const spec = int(o, 'spec.replicas', 1);
  const replicas = int(o, 'status.replicas', 0);
  const ready = int(o, 'status.readyReplicas', 0);
  const availableReplicas = int(o, 'status.availableReplicas', 0);
  const labelled = int(o, 'status.fullyLabeledReplicas', 0);
  if (spec > labelled) return inProgress(`Labelled: ${labelled}/${spec}`);
  if (spec > availableReplicas) return inProgress(`Available: ${availableReplicas}/${spec}`);
  if (spec > ready) return inProgress(`Ready: ${ready}/${spec}`);
  if (replicas > spec) return inProgress(`Pending termination: ${replicas - spec}`);
  return current(`ReplicaSet is available. Replicas: ${replicas}`);
}

/** Timoni's Job rule (internal/runtime/job_wait.go): Current only once complete (or suspended). */
function jobStatus(o: KubeObject): StatusResult {
  if (field(o, 'spec.suspend') === true) return current('Job is suspended');
  const parallelism = int(o, 'spec.parallelism', 1);
  const completions = int(o, 'spec.completions', parallelism);
  const succeeded = int(o, 'status.succeeded', 0);
  const active = int(o, 'status.active', 0);
  const failedPods = int(o, 'status.failed', 0);
  for (const c of conditions(o)) {
    if (c.type === 'Complete' && c.status === 'True')
      return current(`Job Completed. succeeded: ${succeeded}/${completions}`);
    if (c.type === 'Failed' && c.status === 'True') {
      return failed(`Job Failed. failed: ${failedPods}/${completions}${c.message ? ` error: ${c.message}` : ''}`);
    }
  }
  if (!str(o, 'status.startTime', '')) return inProgress(`Job not started. active: 0/${parallelism}`);
  return inProgress(`Job in progress. success:${succeeded}, active: ${active}, failed: ${failedPods}`);
}

/** Plain kstatus' Job rule (what `timoni status` shows): a started Job is Current. */
function startedJobStatus(o: KubeObject): StatusResult {
  const result = jobStatus(o);
  if (result.status === 'InProgress' && str(o, 'status.startTime', '')) return current(result.message);
  return result;
}

function pvcStatus(o: KubeObject): StatusResult {
  const phase = str(o, 'status.phase', 'unknown');
  return phase === 'Bound' ? current('PVC is Bound') : inProgress(`PVC is not Bound. phase: ${phase}`);
}

function crdStatus(o: KubeObject): StatusResult {
  for (const c of conditions(o)) {
    if (c.type === 'NamesAccepted' && c.status === 'False')
      return failed(c.message || c.reason || 'names not accepted');
    if (c.type === 'Established') {
      if (c.status === 'False' && c.reason !== 'Installing') return failed(c.message || c.reason || 'not established');
      if (c.status === 'True') return current('CRD is established');
    }
  }
  return inProgress('Install in progress');
}

function namespaceStatus(o: KubeObject): StatusResult {
  const phase = str(o, 'status.phase', '');
  if (phase === 'Active') return current('Namespace is active');
  if (phase === 'Terminating') return { status: 'Terminating', message: 'Namespace is terminating' };
  return inProgress(`Namespace is not active. phase: ${phase || 'unknown'}`);
}

function podStatus(o: KubeObject): StatusResult {
  const phase = str(o, 'status.phase', '');
  switch (phase) {
    case 'Succeeded':
      return current('Pod has completed successfully');
    case 'Failed':
      return current('Pod has completed, but not successfully');
    case 'Running': {
      if (hasCondition(o, 'Ready', 'True')) return current('Pod is Ready');
      const statuses = field(o, 'status.containerStatuses');
      const crashing = (Array.isArray(statuses) ? statuses.filter(isRecord) : [])
        .filter((s) => isRecord(s.state) && isRecord(s.state.waiting) && s.state.waiting.reason === 'CrashLoopBackOff')
        .map((s) => String(s.name));
      if (crashing.length > 0) return failed(`Containers in CrashLoop state: ${crashing.join(',')}`);
      return inProgress('Pod is running but is not Ready');
    }
    case 'Pending': {
      const unschedulable = conditions(o).find(
        (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
      );
      if (unschedulable) {
        const created = Date.parse(String(o.metadata.creationTimestamp ?? ''));
        // kstatus gives a Pod 15 s to be scheduled before calling it unschedulable.
        if (Number.isNaN(created) || Date.now() - created < 15_000) return inProgress('Pod has not been scheduled');
        return failed('Pod could not be scheduled');
      }
      return inProgress('Pod is in the Pending phase');
    }
    case '':
      return inProgress('Pod phase not available');
    default:
      return { status: 'Unknown', message: `unknown Pod phase ${phase}` };
  }
}

function serviceStatus(o: KubeObject): StatusResult {
  if (str(o, 'spec.type', 'ClusterIP') === 'LoadBalancer' && !str(o, 'spec.clusterIP', '')) {
    return inProgress('ClusterIP not set. Service type: LoadBalancer');
  }
  return current('Service is ready');
}

const alwaysReady = (): StatusResult => current('Resource is always ready');

/** Rules per `group/Kind` (`Kind` for the core group), as kstatus' legacy types. */
const kindRules: Record<string, (o: KubeObject) => StatusResult> = {
  Service: serviceStatus,
  Pod: podStatus,
  Secret: alwaysReady,
  ConfigMap: alwaysReady,
  PersistentVolumeClaim: pvcStatus,
  Namespace: namespaceStatus,
  'apps/StatefulSet': statefulSetStatus,
  'apps/DaemonSet': daemonSetStatus,
  'extensions/DaemonSet': daemonSetStatus,
  'apps/Deployment': deploymentStatus,
  'extensions/Deployment': deploymentStatus,
  'apps/ReplicaSet': replicaSetStatus,
  'extensions/ReplicaSet': replicaSetStatus,
  'policy/PodDisruptionBudget': () => current('AllowedDisruptions has been computed.'),
  'batch/CronJob': alwaysReady,
  'batch/Job': jobStatus,
  'apiextensions.k8s.io/CustomResourceDefinition': crdStatus,
};

function readyCondition(o: KubeObject): StatusResult | null {
  const ready = conditions(o).find((c) => c.type === 'Ready');
  if (!ready) return null;
  if (ready.status === 'True') return current('Resource is Ready');
  if (ready.status === 'False' || ready.status === 'Unknown')
    return inProgress(ready.message || ready.reason || `Ready is ${ready.status}`);
  return null;
}

export interface StatusOptions {
  /**
   * `complete` (default): a Job is Current once complete, as Timoni waits for it;
   * `started`: once started, as plain kstatus (and `timoni status`) report it.
   */
  jobs?: 'complete' | 'started';
}

/**
 * The kstatus of a live object (null = not found): generic rules first (deletion,
 * observedGeneration, Reconciling/Stalled), then the kind's rule, then a `Ready`
 * condition; an object no rule speaks about is Current.
 */
export function computeStatus(object: KubeObject | null, options: StatusOptions = {}): StatusResult {
  if (!object) return { status: 'NotFound', message: 'Resource not found' };
  const generic = genericStatus(object);
  if (generic) return generic;
  const group = groupOf(object.apiVersion);
  const key = group ? `${group}/${object.kind}` : object.kind;
  const rule = key === 'batch/Job' && options.jobs === 'started' ? startedJobStatus : kindRules[key];
  if (rule) return rule(object);
  return readyCondition(object) ?? current('Resource is current');
}
