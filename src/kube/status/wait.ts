// Waiting for objects: until every one is Current (kstatus, polled with GETs and a
// growing interval), or until they are gone. Objects annotated
// `action.timoni.sh/wait: disabled` are not waited for. A timeout, a Failed object
// (fail fast, as Timoni waits) or an abort (the run's cancellation) ends the wait with an
// error that lists every object not ready, with its status and why: an abort ends it after
// the round of reads in flight, or the first one, so that the list is the cluster's own.
import { formatLimit } from '../../duration.js';
import { type KubeCluster, NoMatchError } from '../connect/index.js';
import type { ReadinessStatus } from '../../changeset.js';
import { computeStatus, type StatusOptions } from './kstatus.js';
import {
  annotations,
  anyInMetadata,
  disabledValue,
  formatRef,
  refOf,
  type KubeObject,
  type ObjectRef,
} from '../object.js';

export interface ReadinessCheck {
  object: ObjectRef;
  status: ReadinessStatus;
  message: string;
}

export interface WaitOptions {
  /** Give up after this long (milliseconds); the time limit errors name. */
  timeoutMs: number;
  /** Give up at this time (epoch ms) instead, e.g. when several waits share one time limit. */
  deadline?: number;
  /** First interval between polls; it doubles up to `maxIntervalMs`. Default 250 ms. */
  intervalMs?: number;
  /** Default 5 s. */
  maxIntervalMs?: number;
  /** Stop as soon as an object is Failed (Timoni's behaviour); default true. */
  failFast?: boolean;
  signal?: AbortSignal;
  /** Called after each round with the objects not ready yet. */
  onProgress?: (pending: ReadinessCheck[]) => void;
}

export type WaitFailure = 'timeout' | 'failed' | 'aborted';

/** The wait ended before every object was ready (or gone). */
export class WaitError extends Error {
  override name = 'WaitError';
  constructor(
    readonly cluster: string,
    readonly reason: WaitFailure,
    /** Every object not ready (or not gone), with its last known status. */
    readonly notReady: ReadinessCheck[],
    readonly timeoutMs: number,
    what: 'ready' | 'deleted' = 'ready',
  ) {
    const head =
      reason === 'timeout'
        ? `timeout (time limit ${formatLimit(timeoutMs)}) waiting for ${notReady.length} object(s) to be ${what}`
        : reason === 'failed'
          ? `${notReady.filter((o) => o.status === 'Failed').length} object(s) failed`
          : `wait for ${notReady.length} object(s) to be ${what} was aborted`;
    super(
      `cluster ${cluster}: ${head}: ${notReady.map((o) => `${formatRef(o.object)} status: '${o.status}': ${o.message}`).join('; ')}`,
    );
  }
}

/** The objects to wait for: all but those annotated `action.timoni.sh/wait: disabled`. */
export function objectsToWaitFor<T extends KubeObject>(objects: readonly T[]): T[] {
  return objects.filter((object) => !anyInMetadata(object, { [annotations.wait]: disabledValue }));
}

/** The kstatus of one object as the cluster has it now; errors become `Unknown`. */
export async function readObjectStatus(
  cluster: KubeCluster,
  ref: ObjectRef,
  options: StatusOptions = {},
): Promise<ReadinessCheck> {
  try {
    const live = await cluster.get(ref);
    return { object: ref, ...computeStatus(live, options) };
  } catch (error) {
    if (error instanceof NoMatchError)
      return { object: ref, status: 'Unknown', message: `kind ${ref.kind} of ${ref.apiVersion} is not served (yet)` };
    return { object: ref, status: 'Unknown', message: `status not read: ${(error as Error).message}` };
  }
}

/** Resolves after `ms`, or rejects when the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolveSleep, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolveSleep();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const toRef = (object: KubeObject | ObjectRef): ObjectRef =>
  'metadata' in object ? refOf(object as KubeObject) : (object as ObjectRef);

/**
 * Polls until `check` says every object is done, with a doubling interval; throws a
 * WaitError naming the objects not done on timeout, fail-fast or abort.
 */
async function poll(
  cluster: KubeCluster,
  refs: ObjectRef[],
  options: WaitOptions,
  check: (ref: ObjectRef) => Promise<ReadinessCheck>,
  isDone: (readiness: ReadinessCheck) => boolean,
  what: 'ready' | 'deleted',
): Promise<ReadinessCheck[]> {
  const deadline = options.deadline ?? Date.now() + options.timeoutMs;
  const results = new Map<string, ReadinessCheck>(
    refs.map((ref) => [formatRef(ref), { object: ref, status: 'Unknown', message: 'not checked yet' }]),
  );
  let pending = refs;
  let interval = options.intervalMs ?? 250;
  const maxInterval = options.maxIntervalMs ?? 5_000;
  const notDone = () => [...results.values()].filter((r) => !isDone(r));
  for (;;) {
    // One round of reads at least, even when aborted already, so that the error says which objects were not ready.
    const round = await Promise.all(pending.map(check));
    for (const readiness of round) results.set(formatRef(readiness.object), readiness);
    pending = round.filter((r) => !isDone(r)).map((r) => r.object);
    if (pending.length === 0) return [...results.values()];
    if (options.signal?.aborted) throw new WaitError(cluster.name, 'aborted', notDone(), options.timeoutMs, what);
    options.onProgress?.(notDone());
    if (what === 'ready' && (options.failFast ?? true) && round.some((r) => r.status === 'Failed')) {
      throw new WaitError(cluster.name, 'failed', notDone(), options.timeoutMs, what);
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitError(cluster.name, 'timeout', notDone(), options.timeoutMs, what);
    try {
      await sleep(Math.min(interval, left), options.signal);
    } catch {
      throw new WaitError(cluster.name, 'aborted', notDone(), options.timeoutMs, what);
    }
    interval = Math.min(interval * 2, maxInterval);
  }
}

/**
 * Waits until every object is Current; objects (not bare refs) annotated
 * `action.timoni.sh/wait: disabled` are left out. Answers the last status of each object
 * waited for, in the order given.
 */
export function waitForReady(
  cluster: KubeCluster,
  objects: ReadonlyArray<KubeObject | ObjectRef>,
  options: WaitOptions,
): Promise<ReadinessCheck[]> {
  const refs = objects.filter((o) => !('metadata' in o) || objectsToWaitFor([o as KubeObject]).length === 1).map(toRef);
  if (refs.length === 0) return Promise.resolve([]);
  return poll(
    cluster,
    refs,
    options,
    (ref) => readObjectStatus(cluster, ref),
    (r) => r.status === 'Current',
    'ready',
  );
}

/** Waits until every object is gone (NotFound). */
export async function waitForDeletion(
  cluster: KubeCluster,
  objects: ReadonlyArray<KubeObject | ObjectRef>,
  options: WaitOptions,
): Promise<void> {
  const refs = objects.map(toRef);
  if (refs.length === 0) return;
  await poll(
    cluster,
    refs,
    { ...options, failFast: false },
    async (ref) => {
      try {
        return { object: ref, ...computeStatus(await cluster.get(ref)) };
      } catch (error) {
        // A kind no longer served (its CRD went first) has no objects left.
        if (error instanceof NoMatchError) return { object: ref, status: 'NotFound', message: 'kind no longer served' };
        return { object: ref, status: 'Unknown', message: `status not read: ${(error as Error).message}` };
      }
    },
    (r) => r.status === 'NotFound',
    'deleted',
  );
}
