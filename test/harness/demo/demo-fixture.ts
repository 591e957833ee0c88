// Vitest set-up shared by the end-to-end tests: the demo stage on the run's local fleet,
// with workloads in `namespace` kept ready, torn down after the file's tests.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, inject } from 'vitest';
import { stageDemo, type DemoStage } from './demo-stage.js';
import { keepWorkloadsReady } from './kubelet-stand-in.js';

export function useDemoStage(namespace: string): () => DemoStage {
  let stage: DemoStage | undefined;
  let ready: { stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    const fleet = inject('fleet');
    stage = await stageDemo(readFileSync(fleet.kubeconfigPath, 'utf8'));
    ready = keepWorkloadsReady(
      stage.kubeconfig,
      fleet.clusters.map((c) => c.contextName),
      namespace,
    );
  }, 300_000);
  afterAll(async () => {
    await ready?.stop().catch(() => undefined);
    await stage?.stop();
  });
  return () => {
    if (!stage) throw new Error('the demo stage is not set up yet');
    return stage;
  };
}
