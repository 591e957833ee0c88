// Helpers for the engine's integration tests: the engine's own view of a fleet cluster
// (loaded from the fleet's kubeconfig through src/kube), and a collector of everything
// registered as a secret.
import { readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import { openCluster, type KubeCluster } from '../../src/kube/cluster.js';
import { loadKubeconfig, type Kubeconfig } from '../../src/kube/kubeconfig.js';
import { SecretRegistry } from '../../src/secrets.js';
import { testFleet } from '../harness/fleet/test-context.js';

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
  const clusters = fleet.clusters.map((cluster) => openCluster(kubeconfig, cluster.contextName, { secrets, name: cluster.name }));
  onTestFinished(() => clusters.forEach((cluster) => cluster.close()));
  return { kubeconfig, kubeconfigText, secrets, registered, clusters };
}

/** Runs the same scenario on every cluster at once. */
export function onEveryCluster<T>(clusters: KubeCluster[], scenario: (cluster: KubeCluster, index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(clusters.map((cluster, index) => scenario(cluster, index)));
}
