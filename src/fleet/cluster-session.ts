// One cluster's connection for a run: the client opened from its kube context, its
// Kubernetes version (modules are built with it), and a reader for runtime value queries.
import type { QueryObjectReader, RuntimeCluster } from '../bundle/index.js';
import { openCluster, type Kubeconfig, type KubeCluster, type OpenClusterOptions } from '../kube/index.js';

export interface ClusterSession {
  runtimeCluster: RuntimeCluster;
  kube: KubeCluster;
  /** `1.36.3` for a server reporting `v1.36.3`. */
  kubeVersion: string;
  readObject: QueryObjectReader;
}

/** `v1.36.3` or `v1.36.3+k3s1` -> `1.36.3`, as Timoni passes it to modules. */
export function moduleKubeVersion(gitVersion: string): string {
  const match = /^v?(\d+\.\d+\.\d+)/.exec(gitVersion);
  return match?.[1] ?? gitVersion.replace(/^v/, '');
}

export async function openSession(kubeconfig: Kubeconfig, cluster: RuntimeCluster, options: OpenClusterOptions): Promise<ClusterSession> {
  const kube = openCluster(kubeconfig, cluster.kubeContext || undefined, { ...options, name: cluster.name });
  try {
    const version = await kube.client.version();
    const readObject: QueryObjectReader = async (_cluster, query) => {
      const object = await kube.get({ apiVersion: query.apiVersion, kind: query.kind, namespace: query.namespace, name: query.name });
      return object ?? undefined;
    };
    return { runtimeCluster: cluster, kube, kubeVersion: moduleKubeVersion(version.gitVersion), readObject };
  } catch (error) {
    kube.close();
    throw error;
  }
}
