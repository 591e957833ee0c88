// Built instances and objects for the lifecycle tests on the fleet.
import { randomBytes } from 'node:crypto';
import { onTestFinished } from 'vitest';
import type { BuiltInstanceInput } from '../../../src/kube/instance.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { clusterClient } from '../../harness/fleet/test-context.js';

export const module = { url: 'oci://127.0.0.1:5000/modules/web', version: '1.2.3', digest: 'sha256:' + 'ab'.repeat(32), name: 'example.com/web' };

export function configMap(namespace: string, name: string, data: Record<string, string>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(annotations ? { annotations } : {}) }, data };
}

export function service(namespace: string, name: string, port = 80): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: { app: name }, ports: [{ name: 'http', port, targetPort: 8080 }] },
  };
}

export function deployment(namespace: string, name: string, image = 'nginx:1.27', annotations?: Record<string, string>): KubeObject {
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

export function job(namespace: string, name: string, command: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.36', command: ['sh', '-c', command] }] } } },
  };
}

export function secret(namespace: string, name: string, value: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', stringData: { token: value } };
}

export function built(namespace: string, objects: KubeObject[], overrides: Partial<BuiltInstanceInput> = {}): BuiltInstanceInput {
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
    await clusterClient(cluster).delete({ apiVersion: 'v1', kind: 'Namespace', name }).catch(() => undefined);
  });
  return name;
}

/** Which of the changes did what, as `Kind/name action` lines (easy to compare). */
export function actions(changes: Array<{ kind: string; name: string; action: string }>): string[] {
  return changes.map((c) => `${c.kind}/${c.name} ${c.action}`);
}
