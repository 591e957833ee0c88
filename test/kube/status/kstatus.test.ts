// kstatus rules on object fixtures written here (no cluster).
import { describe, expect, it } from 'vitest';
import { computeStatus } from '../../../src/kube/status/kstatus.js';
import type { KubeObject } from '../../../src/kube/object.js';

function obj(
  apiVersion: string,
  kind: string,
  fields: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): KubeObject {
  return { apiVersion, kind, metadata: { name: 'x', namespace: 'ns', ...metadata }, ...fields };
}

const cond = (type: string, status: string, reason = '', message = '') => ({ type, status, reason, message });

function deployment(
  status: Record<string, unknown> | undefined,
  spec: Record<string, unknown> = {},
  generation = 2,
): KubeObject {
  return obj(
    'apps/v1',
    'Deployment',
    { spec: { replicas: 2, progressDeadlineSeconds: 600, ...spec }, ...(status ? { status } : {}) },
    { generation },
  );
}

const readyDeployment = {
  observedGeneration: 2,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  conditions: [
    cond('Available', 'True', 'MinimumReplicasAvailable'),
    cond('Progressing', 'True', 'NewReplicaSetAvailable'),
  ],
};

describe('kstatus: Deployments', () => {
  it('is Current when rolled out and available', () => {
    expect(computeStatus(deployment(readyDeployment))).toEqual({
      status: 'Current',
      message: 'Deployment is available. Replicas: 2',
    });
  });
  it('is InProgress without any status (no controller yet)', () => {
    expect(computeStatus(deployment(undefined))).toEqual({ status: 'InProgress', message: 'Replicas: 0/2' });
  });
  it('is InProgress while the latest generation is not observed', () => {
    const result = computeStatus(deployment({ ...readyDeployment, observedGeneration: 1 }));
    expect(result.status).toBe('InProgress');
    expect(result.message).toBe('Deployment generation is 2, but latest observed generation is 1');
  });
  it('counts updated, available and ready replicas in kstatus order', () => {
    expect(computeStatus(deployment({ ...readyDeployment, updatedReplicas: 1 })).message).toBe('Updated: 1/2');
    expect(computeStatus(deployment({ ...readyDeployment, availableReplicas: 1 })).message).toBe('Available: 1/2');
    expect(computeStatus(deployment({ ...readyDeployment, readyReplicas: 1 })).message).toBe('Ready: 1/2');
    expect(computeStatus(deployment({ ...readyDeployment, replicas: 3 })).message).toBe('Pending termination: 1');
  });
  it('needs Progressing=NewReplicaSetAvailable when a deadline is set, and Available', () => {
    const noProgress = { ...readyDeployment, conditions: [cond('Available', 'True')] };
    expect(computeStatus(deployment(noProgress))).toEqual({
      status: 'InProgress',
      message: 'ReplicaSet not Available',
    });
    // Without progressDeadlineSeconds the controller never sets Progressing.
    expect(computeStatus(deployment(noProgress, { progressDeadlineSeconds: undefined })).status).toBe('Current');
    const notAvailable = {
      ...readyDeployment,
      conditions: [cond('Progressing', 'True', 'NewReplicaSetAvailable'), cond('Available', 'False')],
    };
    expect(computeStatus(deployment(notAvailable))).toEqual({
      status: 'InProgress',
      message: 'Deployment not Available',
    });
  });
  it('is Failed when the progress deadline is exceeded', () => {
    const stuck = {
      ...readyDeployment,
      readyReplicas: 0,
      conditions: [
        cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "x" has timed out progressing.'),
      ],
    };
    expect(computeStatus(deployment(stuck))).toEqual({
      status: 'Failed',
      message: 'Progress deadline exceeded: ReplicaSet "x" has timed out progressing.',
    });
  });
  it('is Terminating once scheduled for deletion, whatever its status', () => {
    expect(
      computeStatus(
        obj('apps/v1', 'Deployment', { status: readyDeployment }, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      ).status,
    ).toBe('Terminating');
  });
});

describe('kstatus: other workloads', () => {
  it('StatefulSets: replicas, ready, current, revisions, partitions, OnDelete', () => {
    const sts = (status: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
      obj('apps/v1', 'StatefulSet', { spec: { replicas: 2, ...spec }, status });
    const ok = {
      replicas: 2,
      readyReplicas: 2,
      currentReplicas: 2,
      updatedReplicas: 2,
      currentRevision: 'r1',
      updateRevision: 'r1',
    };
    expect(computeStatus(sts(ok)).status).toBe('Current');
    expect(computeStatus(sts({ ...ok, readyReplicas: 1 }))).toEqual({ status: 'InProgress', message: 'Ready: 1/2' });
    expect(computeStatus(sts({ ...ok, updateRevision: 'r2' }))).toEqual({
      status: 'InProgress',
      message: 'Waiting for updated revision to match current',
    });
    expect(
      computeStatus(sts({ ...ok, updatedReplicas: 0 }, { updateStrategy: { rollingUpdate: { partition: 1 } } }))
        .message,
    ).toBe('updated: 0/1');
    expect(computeStatus(sts({}, { updateStrategy: { type: 'OnDelete' } })).status).toBe('Current');
  });
  it('DaemonSets need observedGeneration and every node scheduled, updated, available, ready', () => {
    const ds = (status: Record<string, unknown>) => obj('apps/v1', 'DaemonSet', { status }, { generation: 1 });
    const ok = {
      observedGeneration: 1,
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
      numberReady: 3,
    };
    expect(computeStatus(ds(ok)).status).toBe('Current');
    expect(computeStatus(ds({ desiredNumberScheduled: 3 })).message).toBe(
      'DaemonSet status.observedGeneration not found',
    );
    expect(computeStatus(ds({ ...ok, numberAvailable: 2 }))).toEqual({
      status: 'InProgress',
      message: 'Available: 2/3',
    });
  });
  it('ReplicaSets: labelled, available, ready; ReplicaFailure', () => {
    const rs = (status: Record<string, unknown>) => obj('apps/v1', 'ReplicaSet', { spec: { replicas: 1 }, status });
    expect(
      computeStatus(rs({ replicas: 1, fullyLabeledReplicas: 1, availableReplicas: 1, readyReplicas: 1 })).status,
    ).toBe('Current');
    expect(computeStatus(rs({ replicas: 1, fullyLabeledReplicas: 0 })).message).toBe('Labelled: 0/1');
    expect(computeStatus(rs({ conditions: [cond('ReplicaFailure', 'True')] })).message).toBe(
      'Replica Failure condition. Check Pods',
    );
  });
  it('Jobs are Current only once complete (Timoni), Failed when failed, Current when suspended', () => {
    const job = (status: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
      obj('batch/v1', 'Job', { spec: { completions: 1, ...spec }, status });
    expect(computeStatus(job({}))).toEqual({ status: 'InProgress', message: 'Job not started. active: 0/1' });
    expect(computeStatus(job({ startTime: '2026-01-01T00:00:00Z', active: 1 }))).toEqual({
      status: 'InProgress',
      message: 'Job in progress. success:0, active: 1, failed: 0',
    });
    expect(computeStatus(job({ succeeded: 1, conditions: [cond('Complete', 'True')] }))).toEqual({
      status: 'Current',
      message: 'Job Completed. succeeded: 1/1',
    });
    expect(
      computeStatus(
        job({
          failed: 3,
          conditions: [cond('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')],
        }),
      ),
    ).toEqual({
      status: 'Failed',
      message: 'Job Failed. failed: 3/1 error: Job has reached the specified backoff limit',
    });
    expect(computeStatus(job({}, { suspend: true })).status).toBe('Current');
    // Plain kstatus (timoni status): a started Job is Current, an unstarted one is not.
    expect(computeStatus(job({ startTime: '2026-01-01T00:00:00Z', active: 1 }), { jobs: 'started' })).toEqual({
      status: 'Current',
      message: 'Job in progress. success:0, active: 1, failed: 0',
    });
    expect(computeStatus(job({}), { jobs: 'started' }).status).toBe('InProgress');
  });
  it('Pods: running and ready, crash looping, pending, succeeded', () => {
    const pod = (status: Record<string, unknown>) =>
      obj('v1', 'Pod', { status }, { creationTimestamp: '2020-01-01T00:00:00Z' });
    expect(computeStatus(pod({ phase: 'Running', conditions: [cond('Ready', 'True')] })).status).toBe('Current');
    expect(
      computeStatus(
        pod({
          phase: 'Running',
          containerStatuses: [{ name: 'app', state: { waiting: { reason: 'CrashLoopBackOff' } } }],
        }),
      ),
    ).toEqual({
      status: 'Failed',
      message: 'Containers in CrashLoop state: app',
    });
    expect(
      computeStatus(pod({ phase: 'Pending', conditions: [cond('PodScheduled', 'False', 'Unschedulable')] })).status,
    ).toBe('Failed');
    expect(computeStatus(pod({ phase: 'Pending' })).status).toBe('InProgress');
    expect(computeStatus(pod({ phase: 'Succeeded' })).status).toBe('Current');
  });
});

describe('kstatus: other kinds', () => {
  it('PVCs are Current once bound', () => {
    expect(computeStatus(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Pending' } }))).toEqual({
      status: 'InProgress',
      message: 'PVC is not Bound. phase: Pending',
    });
    expect(computeStatus(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Bound' } })).status).toBe('Current');
  });
  it('CRDs are Current once established, Failed when names are not accepted', () => {
    const crd = (conditions: unknown[]) =>
      obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', { status: { conditions } });
    expect(computeStatus(crd([]))).toEqual({ status: 'InProgress', message: 'Install in progress' });
    expect(computeStatus(crd([cond('Established', 'False', 'Installing')])).status).toBe('InProgress');
    expect(computeStatus(crd([cond('NamesAccepted', 'True'), cond('Established', 'True')])).status).toBe('Current');
    expect(computeStatus(crd([cond('NamesAccepted', 'False', 'MultipleNamesConflict', 'plural conflicts')]))).toEqual({
      status: 'Failed',
      message: 'plural conflicts',
    });
  });
  it('Namespaces are Current when active', () => {
    expect(computeStatus(obj('v1', 'Namespace', { status: { phase: 'Active' } })).status).toBe('Current');
    expect(computeStatus(obj('v1', 'Namespace', { status: { phase: 'Terminating' } })).status).toBe('Terminating');
  });
  it('Services wait for a cluster IP only when of type LoadBalancer', () => {
    expect(computeStatus(obj('v1', 'Service', { spec: { type: 'LoadBalancer' } })).status).toBe('InProgress');
    expect(computeStatus(obj('v1', 'Service', { spec: { type: 'LoadBalancer', clusterIP: '10.0.0.1' } })).status).toBe(
      'Current',
    );
    expect(computeStatus(obj('v1', 'Service', { spec: { type: 'ClusterIP' } })).status).toBe('Current');
  });
  it('custom resources: observedGeneration, Reconciling/Stalled, Ready, else Current', () => {
    const cr = (status: Record<string, unknown> | undefined, generation = 3) =>
      obj('example.com/v1', 'Widget', status ? { status } : {}, { generation });
    expect(computeStatus(cr(undefined))).toEqual({ status: 'Current', message: 'Resource is current' });
    expect(computeStatus(cr({ observedGeneration: 2, conditions: [cond('Ready', 'True')] })).status).toBe('InProgress');
    expect(
      computeStatus(
        cr({ observedGeneration: 3, conditions: [cond('Ready', 'False', 'Waiting', 'dependency not ready')] }),
      ),
    ).toEqual({ status: 'InProgress', message: 'dependency not ready' });
    expect(computeStatus(cr({ observedGeneration: 3, conditions: [cond('Ready', 'True')] }))).toEqual({
      status: 'Current',
      message: 'Resource is Ready',
    });
    expect(computeStatus(cr({ conditions: [cond('Stalled', 'True', 'Broken', 'cannot reconcile')] }))).toEqual({
      status: 'Failed',
      message: 'cannot reconcile',
    });
    expect(computeStatus(cr({ conditions: [cond('Reconciling', 'True', 'Progress', 'working')] }))).toEqual({
      status: 'InProgress',
      message: 'working',
    });
  });
  it('ConfigMaps and Secrets are always ready; a missing object is NotFound', () => {
    expect(computeStatus(obj('v1', 'ConfigMap')).status).toBe('Current');
    expect(computeStatus(obj('v1', 'Secret')).status).toBe('Current');
    expect(computeStatus(null)).toEqual({ status: 'NotFound', message: 'Resource not found' });
  });
});
