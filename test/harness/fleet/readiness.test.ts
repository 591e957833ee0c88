// The readiness helper: on clusters without nodes, workloads are made to read as ready by
// patching their status subresource, in the shape kstatus checks.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from './kube-client.js';
import { keepReady, markNamespaceReady, markReady } from './readiness.js';
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
});
