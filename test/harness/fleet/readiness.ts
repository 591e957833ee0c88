// Makes workloads look ready on clusters without nodes, where no Pod ever runs: the status
// subresource of a Deployment, ReplicaSet, StatefulSet, DaemonSet or Job is patched with
// what its controller would write once every replica is up (or the Job has finished), so
// that kstatus-style checks (observedGeneration, replica counts, Available / Complete
// conditions) report it Current. The fleet runs no workload controllers (see
// kube-controller-manager.ts), so nothing overwrites these patches.
import type { KubeClient, KubeObject, ObjectRef } from './kube-client.js';

export const readyKinds = ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'] as const;
export type ReadyKind = (typeof readyKinds)[number];

const apiVersions: Record<ReadyKind, string> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
};

interface Workload extends KubeObject {
  spec?: { replicas?: number; completions?: number | null; parallelism?: number };
  status?: Record<string, unknown> & {
    observedGeneration?: number;
    conditions?: Array<{ type: string; status: string }>;
  };
}

function condition(type: string, reason: string, message: string, now: string) {
  return { type, status: 'True', reason, message, lastTransitionTime: now, lastUpdateTime: now };
}

/** The status the object's controller would report once it is fully rolled out. */
export function readyStatus(object: Workload, now = new Date().toISOString()): Record<string, unknown> {
  const generation = object.metadata.generation ?? 1;
  const replicas = object.spec?.replicas ?? 1;
  const name = object.metadata.name;
  switch (object.kind as ReadyKind) {
    case 'Deployment':
      return {
        observedGeneration: generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        unavailableReplicas: 0,
        conditions: [
          condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now),
          condition('Progressing', 'NewReplicaSetAvailable', `ReplicaSet "${name}" has successfully progressed.`, now),
        ],
      };
    case 'ReplicaSet':
      return {
        observedGeneration: generation,
        replicas,
        fullyLabeledReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
      };
    case 'StatefulSet': {
      const revision = `${name}-ready-${generation}`;
      return {
        observedGeneration: generation,
        replicas,
        readyReplicas: replicas,
        currentReplicas: replicas,
        updatedReplicas: replicas,
        availableReplicas: replicas,
        currentRevision: revision,
        updateRevision: revision,
      };
    }
    case 'DaemonSet':
      return {
        observedGeneration: generation,
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        updatedNumberScheduled: 1,
        numberReady: 1,
        numberAvailable: 1,
        numberMisscheduled: 0,
      };
    case 'Job': {
      const completions = object.spec?.completions ?? 1;
      const startTime = (object.status?.startTime as string | undefined) ?? now;
      return {
        startTime,
        completionTime: now,
        active: 0,
        ready: 0,
        terminating: 0,
        succeeded: completions,
        failed: 0,
        uncountedTerminatedPods: {},
        conditions: [
          condition('SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods', now),
          condition('Complete', 'CompletionsReached', 'Reached expected number of succeeded pods', now),
        ],
      };
    }
    default:
      throw new Error(`no readiness rule for ${object.kind} ${name}: only ${readyKinds.join(', ')}`);
  }
}

/** True when the object's status already says what `readyStatus` would write for its generation. */
export function looksReady(object: Workload): boolean {
  const status = object.status;
  if (!status) return false;
  if (object.kind === 'Job')
    return (status.conditions ?? []).some((entry) => entry.type === 'Complete' && entry.status === 'True');
  return status.observedGeneration === (object.metadata.generation ?? 1);
}

/** Patches one workload's status so that it reads as ready; returns the updated object. */
export async function markReady(client: KubeClient, ref: ObjectRef): Promise<KubeObject> {
  const object = await client.get<Workload>(ref);
  try {
    return await client.patchStatus(ref, { status: readyStatus(object) });
  } catch (error) {
    throw new Error(
      `marking ${ref.kind} ${ref.namespace ?? ''}/${ref.name} ready on ${client.contextName} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Marks every workload of the ready kinds in `namespace` (all namespaces when omitted) ready; returns how many were patched. */
export async function markNamespaceReady(client: KubeClient, namespace?: string): Promise<number> {
  let patched = 0;
  for (const kind of readyKinds) {
    const list = await client.list<Workload>(apiVersions[kind], kind, { namespace });
    for (const item of list.items) {
      if (looksReady({ ...item, kind })) continue;
      await markReady(client, {
        apiVersion: apiVersions[kind],
        kind,
        namespace: item.metadata.namespace,
        name: item.metadata.name,
      });
      patched += 1;
    }
  }
  return patched;
}

export interface ReadinessLoop {
  /** Stops the loop; resolves after its last round. Rejects with the loop's error if a round failed. */
  stop(): Promise<void>;
}

/**
 * Keeps marking workloads in `namespace` ready, every `intervalMs`, until stopped: for
 * tests of apply-and-wait, where objects appear and change while the code under test waits.
 */
export function keepReady(client: KubeClient, namespace?: string, intervalMs = 200): ReadinessLoop {
  let running = true;
  let failure: Error | undefined;
  const loop = (async () => {
    while (running) {
      try {
        await markNamespaceReady(client, namespace);
      } catch (error) {
        // An object deleted or changed between LIST and PATCH is picked up by the next round.
        const message = (error as Error).message;
        if (!/HTTP (404|409)/.test(message)) {
          failure = error as Error;
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failure) throw failure;
    },
  };
}
