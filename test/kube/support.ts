// Helpers for the engine's integration tests on the fleet: the engine's own view of a
// fleet cluster (loaded from the fleet's kubeconfig through src/kube), a collector of
// everything registered as a secret, and built instances and objects for the instance
// lifecycle tests.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import { openCluster, type KubeCluster } from '../../src/kube/connect/cluster.js';
import type { BuiltInstanceInput } from '../../src/kube/instance/instance.js';
import { loadKubeconfig, type Kubeconfig } from '../../src/kube/connect/kubeconfig.js';
import type { KubeObject } from '../../src/kube/object.js';
import { SecretRegistry } from '../../src/secrets.js';
import { clusterClient, testFleet } from '../harness/fleet/test-context.js';

export interface EngineFleet {
  kubeconfig: Kubeconfig;
  kubeconfigText: string;
  secrets: SecretRegistry;
  registered: string[];
  clusters: KubeCluster[];
}

/** Every cluster of the fleet, opened by the engine from the fleet's kubeconfig; closed when the test ends. */
export function engineFleet(): EngineFleet {
  const fleet = testFleet();
  const kubeconfigText = readFileSync(fleet.kubeconfigPath, 'utf8');
  const registered: string[] = [];
  const secrets = new SecretRegistry((value) => registered.push(value));
  const kubeconfig = loadKubeconfig([{ text: kubeconfigText, path: fleet.kubeconfigPath }], secrets);
  const clusters = fleet.clusters.map((cluster) =>
    openCluster(kubeconfig, cluster.contextName, { secrets, name: cluster.name }),
  );
  onTestFinished(() => clusters.forEach((cluster) => cluster.close()));
  return { kubeconfig, kubeconfigText, secrets, registered, clusters };
}

/** Runs the same scenario on every cluster at once. */
export function onEveryCluster<T>(
  clusters: KubeCluster[],
  scenario: (cluster: KubeCluster, index: number) => Promise<T>,
): Promise<T[]> {
  return Promise.all(clusters.map((cluster, index) => scenario(cluster, index)));
}

// Built instances and objects for the instance lifecycle tests.
export const module = {
  url: 'oci://127.0.0.1:5000/modules/web',
  version: '1.2.3',
  digest: 'sha256:' + 'ab'.repeat(32),
  name: 'example.com/web',
};

export function configMap(
  namespace: string,
  name: string,
  data: Record<string, string>,
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    data,
  };
}

export function service(namespace: string, name: string, port = 80): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: { app: name }, ports: [{ name: 'http', port, targetPort: 8080 }] },
  };
}

export function deployment(
  namespace: string,
  name: string,
  image = 'nginx:1.27',
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

export function job(
  namespace: string,
  name: string,
  command: string,
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'run', image: 'busybox:1.36', command: ['sh', '-c', command] }],
        },
      },
    },
  };
}

export function secret(namespace: string, name: string, value: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    stringData: { token: value },
  };
}

export function built(
  namespace: string,
  objects: KubeObject[],
  overrides: Partial<BuiltInstanceInput> = {},
): BuiltInstanceInput {
  return {
    bundle: 'apps',
    name: 'web',
    namespace,
    module,
    sets: [{ name: 'app', objects }],
    valuesSource: 'values: {\n\tcolor: "blue"\n}\n',
    images: ['nginx:1.27'],
    ...overrides,
  };
}

/** A namespace name not created yet; deleted (if it exists) when the test ends. */
export function freshNamespaceName(cluster: number, prefix: string): string {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  onTestFinished(async () => {
    await clusterClient(cluster)
      .delete({ apiVersion: 'v1', kind: 'Namespace', name })
      .catch(() => undefined);
  });
  return name;
}

/** Which of the changes did what, as `Kind/name action` lines (easy to compare). */
export function actions(changes: Array<{ kind: string; name: string; action: string }>): string[] {
  return changes.map((c) => `${c.kind}/${c.name} ${c.action}`);
}

/** A Deployment as the API server answers it: server metadata, managed fields and status included. */
export const liveDeployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'apps',
    uid: '5f1c',
    resourceVersion: '812',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
    annotations: {},
    managedFields: [{ manager: 'timoni', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
  },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
  status: { readyReplicas: 1 },
};

/** The `settings` ConfigMap of the apply and diff scenarios. */
export function settingsConfigMap(namespace: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace, labels: { app: 'web' } },
    data,
  };
}

/** The `web` Deployment of the apply and diff scenarios, with a replica count. */
export function webDeployment(namespace: string, replicas: number, image = 'nginx:1.27'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image, ports: [{ containerPort: 80 }] }] },
      },
    },
  };
}
