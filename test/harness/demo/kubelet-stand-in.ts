// The local fleet runs no kubelets, so nothing would ever become ready: while the action
// waits, this marks the workloads of the demo namespace ready in every cluster, as
// kubelets and controllers would (status subresources only; specs are untouched).
import { KubeClient } from '../fleet/kube-client.js';
import { keepReady, type ReadinessLoop } from '../fleet/readiness.js';

export function keepWorkloadsReady(
  kubeconfig: string,
  contexts: string[],
  namespace: string,
): { stop(): Promise<void> } {
  const loops: ReadinessLoop[] = contexts.map((context) =>
    keepReady(KubeClient.fromKubeconfig(kubeconfig, context), namespace, 300),
  );
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
