// What a cluster should run: the bundle evaluated for that cluster (runtime values read
// from it) and every instance built from its module with the cluster's Kubernetes version.
import { evaluateForCluster, type ClusterBundle, type ClusterEvaluationOptions } from '../bundle/index.js';
import type { CueEngine } from '../cue/index.js';
import type { BuiltInstance } from '../module/instance-build.js';
import type { InstanceBuilds } from '../module/instance-builds.js';
import type { ModuleResolver } from '../module/module-resolver.js';
import type { ModuleSource } from '../module/module-source.js';
import type { ClusterSession } from './cluster-session.js';

export interface ClusterInstanceBuild {
  name: string;
  namespace: string;
  module: ModuleSource;
  built: BuiltInstance;
}

export interface ClusterBuild {
  evaluated: ClusterBundle;
  instances: ClusterInstanceBuild[];
}

/** A failure tagged with the step of the cluster's work it happened in. */
export class ClusterStepError extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
    readonly instance?: string,
    readonly object?: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ClusterStepError';
  }
}

export async function buildForCluster(
  engine: CueEngine,
  evaluation: Omit<ClusterEvaluationOptions, 'selector' | 'readObject'>,
  resolver: ModuleResolver,
  session: ClusterSession,
  registerSecret: (value: string) => void,
  builds: InstanceBuilds,
): Promise<ClusterBuild> {
  let evaluated: ClusterBundle;
  try {
    evaluated = await evaluateForCluster(engine, { ...evaluation, readObject: session.readObject }, session.runtimeCluster);
  } catch (error) {
    throw new ClusterStepError('evaluate', error);
  }
  // Runtime values from the environment or cluster Secrets are masked before anything prints.
  for (const value of evaluated.secretValues) registerSecret(value);
  const instances: ClusterInstanceBuild[] = [];
  for (const instance of evaluated.bundle.instances) {
    try {
      const module = await resolver.resolve(instance.module);
      const built = builds.build(module, {
        name: instance.name,
        namespace: instance.namespace,
        values: instance.valuesCue,
        kubeVersion: session.kubeVersion,
      });
      instances.push({ name: instance.name, namespace: instance.namespace, module, built });
    } catch (error) {
      throw new ClusterStepError('build', error, instance.name);
    }
  }
  return { evaluated, instances };
}
