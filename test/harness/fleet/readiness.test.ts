// The readiness helper: on clusters without nodes, workloads are made to read as ready by
// patching their status subresource, in the shape kstatus checks.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from './kube-client.js';
import { computeStatus } from '../../../src/kube/status/kstatus.js';
import { keepReady, markNamespaceReady, markReady, neverReadyAnnotation, setNotReadyMarker } from './readiness.js';
import { clusterClient, testNamespace } from './test-context.js';

const labels = { app: 'web' };
const podTemplate = {
  metadata: { labels },
  spec: { containers: [{ name: 'web', image: 'registry.example/web:1.0.0' }] },
};

function workloads(namespace: string): KubeObject[] {
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: podTemplate },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace },
      spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: labels }, template: podTemplate },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace },
      spec: { selector: { matchLabels: labels }, template: podTemplate },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace },
      spec: { completions: 2, template: { spec: { ...podTemplate.spec, restartPolicy: 'Never' } } },
    },
  ];
}

type Status = Record<string, unknown> & { conditions?: Array<{ type: string; status: string }> };

const statusOf = (object: KubeObject) => (object.status ?? {}) as Status;
const conditionTrue = (status: Status, type: string) =>
  (status.conditions ?? []).some((entry) => entry.type === type && entry.status === 'True');

describe('readiness helper', () => {
  it('marks a Deployment, StatefulSet, DaemonSet and Job ready, as their controllers would', async () => {
    const client = clusterClient(0);
    const namespace = await testNamespace(0, 'ready');
    for (const object of workloads(namespace.name)) await client.apply(object);

    // Nothing runs workloads here: before the helper, none reads as ready.
    const ref = (kind: string, apiVersion: string, name: string) => ({
      apiVersion,
      kind,
      namespace: namespace.name,
      name,
    });
    const deploymentRef = ref('Deployment', 'apps/v1', 'web');
    expect(statusOf(await client.get(deploymentRef)).readyReplicas).toBeUndefined();

    await markReady(client, deploymentRef);
    const deployment = await client.get(deploymentRef);
    const deploymentStatus = statusOf(deployment);
    expect(deploymentStatus).toMatchObject({
      observedGeneration: deployment.metadata.generation,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
    expect(conditionTrue(deploymentStatus, 'Available')).toBe(true);

    expect(await markNamespaceReady(client, namespace.name)).toBe(3);
    const statefulSet = await client.get(ref('StatefulSet', 'apps/v1', 'db'));
    expect(statusOf(statefulSet)).toMatchObject({
      observedGeneration: statefulSet.metadata.generation,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      currentReplicas: 3,
    });
    expect(statusOf(statefulSet).currentRevision).toBe(statusOf(statefulSet).updateRevision);
    const daemonSet = await client.get(ref('DaemonSet', 'apps/v1', 'agent'));
    expect(statusOf(daemonSet)).toMatchObject({
      observedGeneration: daemonSet.metadata.generation,
      desiredNumberScheduled: 1,
      numberReady: 1,
      numberAvailable: 1,
      updatedNumberScheduled: 1,
    });
    const job = statusOf(await client.get(ref('Job', 'batch/v1', 'migrate')));
    expect(job.succeeded).toBe(2);
    expect(job.completionTime).toBeTruthy();
    expect(conditionTrue(job, 'Complete')).toBe(true);

    // Everything already ready: a second pass patches nothing.
    expect(await markNamespaceReady(client, namespace.name)).toBe(0);
  });

  it('keeps up with a changed spec: a new generation becomes ready again', async () => {
    const client = clusterClient(2);
    const namespace = await testNamespace(2, 'keep-ready');
    const loop = keepReady(client, namespace.name, 100);
    try {
      const [deployment] = workloads(namespace.name);
      if (!deployment) throw new Error('no Deployment in the fixture');
      await client.apply(deployment);
      const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: namespace.name, name: 'web' };
      const waitForGeneration = async (generation: number, replicas: number) => {
        const deadline = Date.now() + 20_000;
        for (;;) {
          const live = await client.get(ref);
          const status = statusOf(live);
          if (
            live.metadata.generation === generation &&
            status.observedGeneration === generation &&
            status.readyReplicas === replicas
          )
            return;
          if (Date.now() > deadline)
            throw new Error(`Deployment not ready at generation ${generation}: ${JSON.stringify(status)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await waitForGeneration(1, 2);
      await client.apply({ ...deployment, spec: { ...(deployment.spec as object), replicas: 4 } });
      await waitForGeneration(2, 4);
    } finally {
      await loop.stop();
    }
  });

  it('never makes a workload annotated never-ready ready: a Deployment past its deadline, a failed Job', async () => {
    const client = clusterClient(1);
    const namespace = await testNamespace(1, 'never-ready');
    const marked = { [neverReadyAnnotation]: 'true' };
    const [deployment, , , job] = workloads(namespace.name);
    if (!deployment || !job) throw new Error('no Deployment or Job in the fixture');
    await client.apply({ ...deployment, metadata: { ...deployment.metadata, annotations: marked } });
    await client.apply({ ...deployment, metadata: { ...deployment.metadata, name: 'plain' } });
    await client.apply({ ...job, metadata: { ...job.metadata, annotations: marked } });

    expect(await markNamespaceReady(client, namespace.name)).toBe(3);
    const ref = (kind: string, apiVersion: string, name: string) => ({
      apiVersion,
      kind,
      namespace: namespace.name,
      name,
    });
    const web = await client.get(ref('Deployment', 'apps/v1', 'web'));
    expect(computeStatus(web)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/deadline exceeded/) });
    expect(statusOf(web).observedGeneration).toBe(web.metadata.generation);
    expect(computeStatus(await client.get(ref('Deployment', 'apps/v1', 'plain'))).status).toBe('Current');
    const migrate = await client.get(ref('Job', 'batch/v1', 'migrate'));
    expect(computeStatus(migrate)).toMatchObject({ status: 'Failed', message: expect.stringMatching(/^Job Failed/) });
    expect(conditionTrue(statusOf(migrate), 'Complete')).toBe(false);

    // Stable: a second pass leaves them as they are.
    expect(await markNamespaceReady(client, namespace.name)).toBe(0);

    // A new generation of the marked Deployment stays not ready; without the marker it becomes ready.
    await client.apply({
      ...deployment,
      metadata: { ...deployment.metadata, annotations: marked },
      spec: { ...(deployment.spec as object), replicas: 3 },
    });
    expect(await markNamespaceReady(client, namespace.name)).toBe(1);
    expect(computeStatus(await client.get(ref('Deployment', 'apps/v1', 'web'))).status).toBe('Failed');
    await client.apply({ ...deployment, spec: { ...(deployment.spec as object), replicas: 3 } });
    expect(await markNamespaceReady(client, namespace.name)).toBe(1);
    expect(computeStatus(await client.get(ref('Deployment', 'apps/v1', 'web'))).status).toBe('Current');
  });

  it('turns a live, ready workload not ready once annotated turn-not-ready, and ready again without it', async () => {
    const client = clusterClient(2);
    const namespace = await testNamespace(2, 'turn-not-ready');
    const loop = keepReady(client, namespace.name, 100);
    try {
      const [deployment, statefulSet] = workloads(namespace.name);
      if (!deployment || !statefulSet) throw new Error('no Deployment or StatefulSet in the fixture');
      await client.apply(deployment);
      await client.apply(statefulSet);
      const refs = [
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: namespace.name, name: 'web' },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: namespace.name, name: 'db' },
      ];
      const waitForStatus = async (wanted: string) => {
        const deadline = Date.now() + 20_000;
        for (;;) {
          const statuses = await Promise.all(refs.map(async (ref) => computeStatus(await client.get(ref))));
          if (statuses.every((entry) => entry.status === wanted)) return statuses;
          if (Date.now() > deadline) throw new Error(`not all ${wanted}: ${JSON.stringify(statuses)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await waitForStatus('Current');

      for (const ref of refs) await setNotReadyMarker(client, ref, 'turn-not-ready');
      const [web, db] = await waitForStatus('InProgress');
      expect(web?.message).toBe('Available: 0/2');
      expect(db?.message).toBe('Ready: 0/3');
      // The marker is an annotation only, with a field manager of its own: the spec stays.
      const live = await client.get(refs[0] ?? refs[1]!);
      expect((live.spec as { replicas?: number }).replicas).toBe(2);
      expect(live.metadata.managedFields?.map((entry) => entry.manager)).toContain('fleet-test-marker');

      for (const ref of refs) await setNotReadyMarker(client, ref, undefined);
      await waitForStatus('Current');
    } finally {
      await loop.stop();
    }
  });

  it('leaves a completed Job complete when it is marked turn-not-ready (a finished Job is final)', async () => {
    const client = clusterClient(0);
    const namespace = await testNamespace(0, 'job-final');
    const [, , , job] = workloads(namespace.name);
    if (!job) throw new Error('no Job in the fixture');
    await client.apply(job);
    expect(await markNamespaceReady(client, namespace.name)).toBe(1);
    const ref = { apiVersion: 'batch/v1', kind: 'Job', namespace: namespace.name, name: 'migrate' };
    await setNotReadyMarker(client, ref, 'turn-not-ready');
    expect(await markNamespaceReady(client, namespace.name)).toBe(0);
    expect(computeStatus(await client.get(ref)).status).toBe('Current');
  });
});
