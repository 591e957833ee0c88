import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../../src/module/oci/http.js';
import {
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
  TransientError,
  withRetry,
} from '../../../src/module/oci/retry.js';

const fast = { attempts: 4, baseDelayMs: 1, maxDelayMs: 5, maxElapsedMs: 10_000 };

describe('withRetry', () => {
  it('retries transient failures and returns the first success', async () => {
    let calls = 0;
    const result = await withRetry(
      async (attempt) => {
        calls += 1;
        if (attempt === 1) throw new NetworkError('ECONNRESET', 'reset');
        if (attempt === 2) throw new TransientError('busy', 503);
        return 'ok';
      },
      fast,
      () => new Error('gave up'),
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up after the last attempt with the last failure', async () => {
    let calls = 0;
    const error = await withRetry(
      async () => {
        calls += 1;
        throw new TransientError(`status ${500 + calls}`, 500 + calls);
      },
      fast,
      (last) => new Error(`after ${last.attempts}: ${last.error.message}`),
    ).catch((e: Error) => e);
    expect(calls).toBe(4);
    expect(String(error)).toContain('after 4: status 504');
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls += 1;
          throw new Error('not found');
        },
        fast,
        () => new Error('gave up'),
      ),
    ).rejects.toThrow('not found');
    expect(calls).toBe(1);
  });

  it('stops when the time budget would be exceeded', async () => {
    let calls = 0;
    const started = Date.now();
    await expect(
      withRetry(
        async () => {
          calls += 1;
          throw new TransientError('slow down', 429, 200);
        },
        { attempts: 100, baseDelayMs: 1, maxDelayMs: 200, maxElapsedMs: 500 },
        (last) => new Error(`gave up after ${last.attempts}`),
      ),
    ).rejects.toThrow(/gave up after [2-4]$/);
    expect(calls).toBeLessThan(5);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('retry helpers', () => {
  it('classifies statuses', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 501, 505].some(isRetryableStatus)).toBe(false);
  });
  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
  it('grows the backoff exponentially up to the cap', () => {
    const policy = { attempts: 10, baseDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 1e6 };
    expect(backoffDelay(policy, 1, () => 1)).toBe(100);
    expect(backoffDelay(policy, 3, () => 1)).toBe(400);
    expect(backoffDelay(policy, 3, () => 0)).toBe(200);
    expect(backoffDelay(policy, 9, () => 1)).toBe(1000);
  });
});
