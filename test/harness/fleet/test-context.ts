// Helpers for test files that use the fleet started by global-setup.ts:
//
//   const fleet = testFleet();                         // FleetDescription (inject('fleet'))
//   const client = clusterClient(1);                   // admin client of the second cluster
//   const ns = await testNamespace(0, 'apply');        // fresh namespace, deleted when the test ends
//   const dir = scratchDir('registry');                // a new folder inside the fleet's folder
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { inject, onTestFinished } from 'vitest';
import { fleetClient, type FleetDescription } from './fleet.js';
import type { KubeClient } from './kube-client.js';
import { createNamespace, type NamespaceOptions, type TestNamespace } from './namespace.js';

export function testFleet(): FleetDescription {
  const fleet = inject('fleet');
  if (!fleet)
    throw new Error('no fleet was provided: is test/harness/fleet/global-setup.ts in vitest.config.ts globalSetup?');
  return fleet;
}

const clients = new Map<string, KubeClient>();

/** The admin client of a cluster of the fleet, by index or name; one per cluster per test file. */
export function clusterClient(cluster: number | string = 0): KubeClient {
  const fleet = testFleet();
  const key = String(cluster);
  let client = clients.get(key);
  if (!client) {
    client = fleetClient(fleet, cluster);
    clients.set(key, client);
  }
  return client;
}

/** A fresh namespace in a cluster of the fleet, deleted when the current test finishes. Call it inside a test. */
export async function testNamespace(
  cluster: number | string = 0,
  prefix = 'test',
  options: Omit<NamespaceOptions, 'prefix'> = {},
): Promise<TestNamespace> {
  const namespace = await createNamespace(clusterClient(cluster), { ...options, prefix });
  onTestFinished(() => namespace.delete());
  return namespace;
}

/**
 * A new folder inside the fleet's folder, for a test's own files and processes. When the
 * test run ends, however it ends, every process whose command line mentions the fleet's
 * folder is stopped, and a temporary fleet folder is removed with all it holds: a server
 * started with a path of this folder among its arguments cannot outlive the run.
 */
export function scratchDir(name: string): string {
  const parent = join(testFleet().dir, 'scratch');
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, `${name}-`));
}
