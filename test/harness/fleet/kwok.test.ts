// A fleet with fake nodes (kwok): a Deployment and a Job become ready by themselves, as on
// a real cluster, with no readiness helper. Its own one-cluster fleet, inside the test
// run's fleet folder.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fleetClient, startFleet, type Fleet } from './fleet.js';
import type { KubeClient, KubeObject, ObjectRef } from './kube-client.js';
import { kwokNodeName } from './kwok.js';
import { createNamespace } from './namespace.js';
import { processesMentioning } from './processes.js';
import { scratchDir } from './test-context.js';

type Status = {
  readyReplicas?: number;
  availableReplicas?: number;
  succeeded?: number;
  conditions?: Array<{ type: string; status: string }>;
};

async function waitFor(
  client: KubeClient,
  ref: ObjectRef,
  done: (status: Status) => boolean,
  timeoutMs = 90_000,
): Promise<Status> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = ((await client.get(ref)).status ?? {}) as Status;
    if (done(status)) return status;
    if (Date.now() > deadline)
      throw new Error(`${ref.kind} ${ref.name} did not get there within ${timeoutMs} ms: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let fleet: Fleet | undefined;
afterAll(async () => {
  await fleet?.stop();
});

describe('fleet with fake nodes (kwok)', () => {
  it('runs a Deployment and a Job to ready on a fake node', { timeout: 900_000 }, async () => {
    const dir = join(scratchDir('kwok'), 'fleet');
    // The first run builds kube-scheduler and kwok (a few minutes on 2 cores).
    fleet = await startFleet({
      clusters: 1,
      dir,
      namePrefix: 'kwok',
      kwok: true,
      log: (line) => process.stderr.write(`kwok fleet: ${line}\n`),
    });
    expect(fleet.kwok).toBe(true);
    const client = fleetClient(fleet, 0);
    try {
      const node = await client.get({ apiVersion: 'v1', kind: 'Node', name: kwokNodeName });
      expect(((node.status as Status).conditions ?? []).find((condition) => condition.type === 'Ready')?.status).toBe(
        'True',
      );

      const namespace = await createNamespace(client, { prefix: 'kwok' });
      const labels = { app: 'web' };
      const deployment: KubeObject = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: namespace.name },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.example/web:1' }] } },
        },
      };
      const job: KubeObject = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'once', namespace: namespace.name },
        spec: {
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'once', image: 'registry.example/once:1' }] },
          },
        },
      };
      await client.apply(deployment);
      await client.apply(job);
      const ref = (object: KubeObject): ObjectRef => ({
        apiVersion: object.apiVersion,
        kind: object.kind,
        namespace: namespace.name,
        name: object.metadata.name,
      });

      const deploymentStatus = await waitFor(client, ref(deployment), (status) => status.availableReplicas === 2);
      expect(deploymentStatus.readyReplicas).toBe(2);
      expect(deploymentStatus.conditions?.find((condition) => condition.type === 'Available')?.status).toBe('True');
      const jobStatus = await waitFor(client, ref(job), (status) =>
        (status.conditions ?? []).some((condition) => condition.type === 'Complete' && condition.status === 'True'),
      );
      expect(jobStatus.succeeded).toBe(1);
      const pods = await client.list('v1', 'Pod', { namespace: namespace.name });
      expect(pods.items.filter((pod) => (pod.spec as { nodeName?: string }).nodeName === kwokNodeName)).toHaveLength(3);
    } finally {
      client.close();
    }

    const marker = `${fleet.dir}/`;
    expect(processesMentioning(marker).length).toBe(5);
    await fleet.stop();
    expect(processesMentioning(marker)).toEqual([]);
  });
});
