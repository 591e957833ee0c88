// Which failed requests to an API server are sent again, after how long, and for how long at
// most: an API server restarted (a rollout of the control plane, a crash) refuses connections
// for a few seconds, one shutting down answers 429 or 503, and none of that should fail a
// rollout. client-go does the same in spirit (rest/request.go, `WithRetry`); this is our own,
// with the rules written down:
//
// | failure                                      | retried for                                  |
// | -------------------------------------------- | -------------------------------------------- |
// | connection refused (ECONNREFUSED)            | every request: nothing reached the server    |
// | connection reset / hang-up / EPIPE           | idempotent requests only (below)             |
// | 429 Too Many Requests                        | every request: the server did not run it     |
// | 502, 503, 504                                | idempotent requests only                     |
// | 500 with Retry-After                         | idempotent requests only                     |
// | 500 without Retry-After, other 4xx/5xx       | never: the API server reports permanent      |
// |                                              | errors as 500 too (a server-side apply its   |
// |                                              | schema refuses: "failed to create typed      |
// |                                              | patch object")                               |
// | no answer within the time limit (ETIMEDOUT)  | never: it already took the whole limit       |
//
// Idempotent: a GET; a DELETE (a second one answers 404, which callers take as "gone"); a
// server-side apply (PATCH application/apply-patch+yaml: the same object applied twice is the
// same object); a merge patch (sets the fields it names to the values it holds); any dry-run
// (writes nothing). Not idempotent: a POST (a create sent twice answers AlreadyExists, or
// with generateName creates two objects), a JSON patch (its `add` and `remove` operations
// change what they act on), a PUT (sent with a resourceVersion, the second one conflicts).
// A reset on a kept-alive connection (Node's `reusedSocket`) is how such connections end
// when the server closed them meanwhile: an idempotent request is sent again at once on a
// fresh connection by the client itself, untold and not counted here.
//
// The delay doubles from 250 ms to at most 4 s, with ±20 % jitter so that the clusters of a
// fleet do not come back in step; a Retry-After the server sends is honoured when longer.
// At most 8 retries, and never past the request's own time limit (one bound per request,
// retries included) nor past the deadline of the work the request belongs to (a cluster's
// rollout timeout, through `withRequestDeadline`): a retry that would start after either is
// not made, and the last failure is reported. A server that has not answered this client
// once yet (a wrong address, a cluster that is down) gets 4 quick retries only (under 5 s:
// enough for a restart of a few seconds), so that an unreachable cluster is still reported soon.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The parts of a request the rules look at. */
export interface RetriedRequest {
  method: string;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
}

/** Why an attempt failed: no usable connection, or an error status. */
export type AttemptFailure =
  { kind: 'connection'; code: string } | { kind: 'status'; status: number; retryAfterMs?: number };

export const RETRY_FIRST_DELAY_MS = 250;
export const RETRY_MAX_DELAY_MS = 4_000;
export const MAX_RETRIES = 8;
/** Retries of a request to a server that has never answered this client. */
export const FIRST_CONTACT_RETRIES = 4;

const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Sending the request twice has the effect of sending it once. */
export function isIdempotent(request: RetriedRequest): boolean {
  if (request.query?.dryRun) return true;
  if (request.method === 'GET' || request.method === 'DELETE') return true;
  if (request.method === 'PATCH') {
    const type = request.contentType ?? '';
    return type.startsWith('application/apply-patch') || type.startsWith('application/merge-patch+json');
  }
  return false;
}

/** Whether this failure of this request may be retried (the table above). */
export function isRetryable(request: RetriedRequest, failure: AttemptFailure): boolean {
  if (failure.kind === 'connection') {
    if (failure.code === 'ECONNREFUSED') return true;
    return resetCodes.has(failure.code) && isIdempotent(request);
  }
  const { status } = failure;
  if (status === 429) return true;
  if (status === 502 || status === 503 || status === 504) return isIdempotent(request);
  if (status === 500) return failure.retryAfterMs !== undefined && isIdempotent(request);
  return false;
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The backoff before retry `retry` (1 for the first), jitter included. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_FIRST_DELAY_MS * 2 ** (retry - 1), RETRY_MAX_DELAY_MS);
  return Math.round(base * (0.8 + 0.4 * random()));
}

export interface RetryContext {
  /** The retry about to be made: 1 for the first. */
  retry: number;
  /** Whether the server has answered this client before (any status). */
  answeredBefore: boolean;
  now: number;
  /** No attempt starts at or after this time (epoch ms): the request's bound, or the work's deadline if earlier. */
  boundAt: number;
  random?: () => number;
}

/** The delay before the next attempt, or undefined when there is none. */
export function nextRetryDelay(
  request: RetriedRequest,
  failure: AttemptFailure,
  context: RetryContext,
): number | undefined {
  if (!isRetryable(request, failure)) return undefined;
  if (context.retry > (context.answeredBefore ? MAX_RETRIES : FIRST_CONTACT_RETRIES)) return undefined;
  const retryAfter = failure.kind === 'status' ? (failure.retryAfterMs ?? 0) : 0;
  const delay = Math.max(backoffMs(context.retry, context.random), retryAfter);
  return context.now + delay < context.boundAt ? delay : undefined;
}

// ---- The deadline of the work a request belongs to

const workDeadline = new AsyncLocalStorage<number>();

/**
 * Runs `work` with a deadline (epoch ms) that the requests it makes do not retry past: a
 * cluster's rollout timeout, so that riding out a restart never outlasts it. Nested calls
 * keep the earlier deadline.
 */
export function withRequestDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  const outer = workDeadline.getStore();
  return workDeadline.run(outer === undefined ? deadline : Math.min(outer, deadline), work);
}

/** The deadline set by `withRequestDeadline` around the current code, if any. */
export function currentRequestDeadline(): number | undefined {
  return workDeadline.getStore();
}
