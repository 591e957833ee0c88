// Fresh namespaces for tests: a unique name per test, so that tests sharing a cluster never
// see each other's objects, and a `delete()` for the cleanup.
import { randomBytes } from 'node:crypto';
import type { KubeClient } from './kube-client.js';

export interface TestNamespace {
  name: string;
  /** Deletes the namespace (its objects go with it); does not wait for it to disappear. */
  delete(): Promise<void>;
}

export interface NamespaceOptions {
  /** Start of the name, e.g. the test's subject; sanitised to a DNS label. `test` unless given. */
  prefix?: string;
  labels?: Record<string, string>;
  /** Wait until the controller-manager has created the namespace's `default` ServiceAccount (true unless given). */
  waitForServiceAccount?: boolean;
}

/** Label every test namespace carries, to find leftovers: `kubectl get ns -l timoni-fleet.test/namespace`. */
export const testNamespaceLabel = 'timoni-fleet.test/namespace';

function namespaceName(prefix: string): string {
  const suffix = randomBytes(3).toString('hex');
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63 - suffix.length - 1) || 'test';
  return `${clean.replace(/-+$/, '')}-${suffix}`;
}

export async function createNamespace(client: KubeClient, options: NamespaceOptions = {}): Promise<TestNamespace> {
  const name = namespaceName(options.prefix ?? 'test');
  await client.apply(
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [testNamespaceLabel]: 'true', ...options.labels } },
    },
    { fieldManager: 'fleet-test-namespace' },
  );
  if (options.waitForServiceAccount ?? true) {
    const deadline = Date.now() + 60_000;
    while (
      (await client.getOrNull({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: name, name: 'default' })) === null
    ) {
      if (Date.now() > deadline)
        throw new Error(
          `namespace ${name} on ${client.contextName} got no default ServiceAccount within 60 s: is kube-controller-manager running?`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    name,
    async delete() {
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name });
    },
  };
}
