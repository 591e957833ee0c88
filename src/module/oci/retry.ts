// Retries an operation on transient failures (HTTP 429 and 5xx, connection resets and
// timeouts) with exponential backoff and jitter, bounded by a number of attempts and a
// total time; `Retry-After` is honoured within the bound. After the last try the caller
// gets the last failure, and how many tries it took, to build its message.
import { NetworkError } from './http.js';

export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No new try starts once this much time has passed since the first. */
  maxElapsedMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxElapsedMs: 60_000,
};

/** A failure worth another try: a status (429, 5xx) or a network error. */
export class TransientError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'TransientError';
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoffDelay(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

export interface GiveUp {
  error: TransientError | NetworkError;
  attempts: number;
  elapsedMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation` until it succeeds, fails with a non-transient error (rethrown as is), or
 * the policy is exhausted: then `giveUp` builds the error to throw.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  giveUp: (last: GiveUp) => Error,
): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!(error instanceof TransientError) && !(error instanceof NetworkError)) throw error;
      const elapsedMs = Date.now() - started;
      const wanted =
        error instanceof TransientError && error.retryAfterMs !== undefined
          ? error.retryAfterMs
          : backoffDelay(policy, attempt);
      const delay = Math.min(wanted, policy.maxDelayMs);
      if (attempt >= policy.attempts || elapsedMs + delay > policy.maxElapsedMs)
        throw giveUp({ error, attempts: attempt, elapsedMs });
      await sleep(delay);
    }
  }
}
