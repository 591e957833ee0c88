// Makes workloads look ready on clusters without nodes, where no Pod ever runs: the status
// subresource of a Deployment, ReplicaSet, StatefulSet, DaemonSet or Job is patched with
// what its controller would write once every replica is up (or the Job has finished), so
// that kstatus-style checks (observedGeneration, replica counts, Available / Complete
// conditions) report it Current. The fleet runs no workload controllers (see
// kube-controller-manager.ts), so nothing overwrites these patches.
//
// Two annotations on a workload make it fail instead, for tests of failed rollouts:
// `test.timoni-fleet.io/never-ready: "true"` keeps it from ever being made ready, and
// `test.timoni-fleet.io/turn-not-ready: "true"`, added later to a live ready object, turns
// it not ready (see `notReadyStatus`). Without them (or once removed) it is made ready again.
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

/** Annotation: the workload is never made ready (a Deployment's progress deadline is exceeded, a Job fails). */
export const neverReadyAnnotation = 'test.timoni-fleet.io/never-ready';
/** Annotation: a live, ready workload is turned not ready (its replicas become unavailable, a Job fails). */
export const turnNotReadyAnnotation = 'test.timoni-fleet.io/turn-not-ready';

interface Workload extends KubeObject {
  spec?: { replicas?: number; completions?: number | null; parallelism?: number };
  status?: Record<string, unknown> & {
    observedGeneration?: number;
    conditions?: Array<{ type: string; status: string; reason?: string }>;
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

/** Which marker the object carries (`never-ready` first), or undefined for none. */
export function notReadyMarker(object: KubeObject): 'never-ready' | 'turn-not-ready' | undefined {
  const annotations = object.metadata.annotations ?? {};
  if (annotations[neverReadyAnnotation] === 'true') return 'never-ready';
  if (annotations[turnNotReadyAnnotation] === 'true') return 'turn-not-ready';
  return undefined;
}

/**
 * The status of a workload that is not ready, as its controller would report it:
 * - `never-ready`: a Deployment whose progress deadline is exceeded (kstatus: Failed),
 * - `turn-not-ready`: a Deployment whose replicas became unavailable (kstatus: InProgress),
 * - either: a StatefulSet, DaemonSet or ReplicaSet with no ready replica (InProgress), a Job
 *   that failed (BackoffLimitExceeded; kstatus: Failed).
 */
export function notReadyStatus(
  object: Workload,
  marker: 'never-ready' | 'turn-not-ready',
  now = new Date().toISOString(),
): Record<string, unknown> {
  const ready = readyStatus(object, now);
  const replicas = object.spec?.replicas ?? 1;
  const name = object.metadata.name;
  switch (object.kind as ReadyKind) {
    case 'Deployment': {
      const progressing =
        marker === 'never-ready'
          ? {
              ...condition(
                'Progressing',
                'ProgressDeadlineExceeded',
                `ReplicaSet "${name}" has timed out progressing.`,
                now,
              ),
              status: 'False',
            }
          : condition(
              'Progressing',
              'NewReplicaSetAvailable',
              `ReplicaSet "${name}" has successfully progressed.`,
              now,
            );
      return {
        ...ready,
        readyReplicas: 0,
        availableReplicas: 0,
        unavailableReplicas: replicas,
        conditions: [
          {
            ...condition(
              'Available',
              'MinimumReplicasUnavailable',
              'Deployment does not have minimum availability.',
              now,
            ),
            status: 'False',
          },
          progressing,
        ],
      };
    }
    case 'ReplicaSet':
      return { ...ready, readyReplicas: 0, availableReplicas: 0 };
    case 'StatefulSet':
      return { ...ready, readyReplicas: 0, availableReplicas: 0 };
    case 'DaemonSet':
      return { ...ready, numberReady: 0, numberAvailable: 0, numberUnavailable: 1 };
    case 'Job': {
      const failedCondition = (type: string) =>
        condition(type, 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', now);
      return {
        startTime: (object.status?.startTime as string | undefined) ?? now,
        completionTime: null,
        active: 0,
        ready: 0,
        terminating: 0,
        succeeded: 0,
        failed: 1,
        uncountedTerminatedPods: {},
        conditions: [failedCondition('FailureTarget'), failedCondition('Failed')],
      };
    }
    default:
      throw new Error(`no readiness rule for ${object.kind} ${name}: only ${readyKinds.join(', ')}`);
  }
}

function conditionTrue(status: NonNullable<Workload['status']>, type: string): boolean {
  return (status.conditions ?? []).some((entry) => entry.type === type && entry.status === 'True');
}

/** The replica count a status calls ready, per kind (0 when absent). */
function readyCount(object: Workload): number {
  const status = object.status ?? {};
  const count = object.kind === 'DaemonSet' ? status.numberReady : status.readyReplicas;
  return typeof count === 'number' ? count : 0;
}

/** True when the object's status already says what `readyStatus` would write for its generation. */
export function looksReady(object: Workload): boolean {
  const status = object.status;
  if (!status) return false;
  if (object.kind === 'Job') return conditionTrue(status, 'Complete');
  if (status.observedGeneration !== (object.metadata.generation ?? 1)) return false;
  const wanted = object.kind === 'DaemonSet' ? 1 : (object.spec?.replicas ?? 1);
  return readyCount(object) === wanted;
}

/** True when the object's status already says what `notReadyStatus` would write for its generation. */
export function looksNotReady(object: Workload, marker: 'never-ready' | 'turn-not-ready'): boolean {
  const status = object.status;
  if (!status) return false;
  if (object.kind === 'Job') return conditionTrue(status, 'Failed');
  if (status.observedGeneration !== (object.metadata.generation ?? 1)) return false;
  if (readyCount(object) !== 0) return false;
  if (object.kind !== 'Deployment') return true;
  const deadlineExceeded = (status.conditions ?? []).some((entry) => entry.reason === 'ProgressDeadlineExceeded');
  return deadlineExceeded === (marker === 'never-ready');
}

/**
 * A finished Job's conditions are final (the API server refuses to turn a complete Job
 * into a failed one): a Job marked after it completed stays complete, whichever the marker.
 */
function canTurn(object: Workload): boolean {
  return !(object.kind === 'Job' && object.status && conditionTrue(object.status, 'Complete'));
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

/** Patches one workload's status so that it reads as not ready (see `notReadyStatus`); returns the updated object. */
export async function markNotReady(
  client: KubeClient,
  ref: ObjectRef,
  marker: 'never-ready' | 'turn-not-ready' = 'turn-not-ready',
): Promise<KubeObject> {
  const object = await client.get<Workload>(ref);
  try {
    return await client.patchStatus(ref, { status: notReadyStatus(object, marker) });
  } catch (error) {
    throw new Error(
      `marking ${ref.kind} ${ref.namespace ?? ''}/${ref.name} not ready (${marker}) on ${client.contextName} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Marks every workload of the ready kinds in `namespace` (all namespaces when omitted)
 * ready, or not ready when annotated with a marker (`never-ready`, `turn-not-ready`);
 * returns how many were patched.
 */
export async function markNamespaceReady(client: KubeClient, namespace?: string): Promise<number> {
  let patched = 0;
  for (const kind of readyKinds) {
    const list = await client.list<Workload>(apiVersions[kind], kind, { namespace });
    for (const listed of list.items) {
      const item = { ...listed, kind };
      const ref = { apiVersion: apiVersions[kind], kind, namespace: item.metadata.namespace, name: item.metadata.name };
      const marker = notReadyMarker(item);
      if (marker) {
        if (looksNotReady(item, marker) || !canTurn(item)) continue;
        await markNotReady(client, ref, marker);
      } else {
        if (looksReady(item)) continue;
        await markReady(client, ref);
      }
      patched += 1;
    }
  }
  return patched;
}

/**
 * Sets (or, with `undefined`, removes) a marker annotation on a live object, by a forced
 * server-side apply of its own field manager: the object's other fields and owners stay.
 */
export async function setNotReadyMarker(
  client: KubeClient,
  ref: ObjectRef,
  marker: 'never-ready' | 'turn-not-ready' | undefined,
): Promise<KubeObject> {
  const annotation = marker === 'never-ready' ? neverReadyAnnotation : turnNotReadyAnnotation;
  const metadata = { name: ref.name, namespace: ref.namespace, annotations: marker ? { [annotation]: 'true' } : {} };
  return client.apply(
    { apiVersion: ref.apiVersion, kind: ref.kind, metadata },
    { fieldManager: 'fleet-test-marker', force: true },
  );
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
