// The retry rules (request-retry.ts): which requests, which failures, how long to wait, when to stop.
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  currentRequestDeadline,
  FIRST_CONTACT_RETRIES,
  isIdempotent,
  isRetryable,
  MAX_RETRIES,
  nextRetryDelay,
  parseRetryAfter,
  RETRY_MAX_DELAY_MS,
  withRequestDeadline,
  type RetriedRequest,
} from '../../../src/kube/connect/request-retry.js';

const get: RetriedRequest = { method: 'GET' };
const ssa: RetriedRequest = { method: 'PATCH', contentType: 'application/apply-patch+yaml' };
const mergePatch: RetriedRequest = { method: 'PATCH', contentType: 'application/merge-patch+json' };
const jsonPatch: RetriedRequest = { method: 'PATCH', contentType: 'application/json-patch+json' };
const del: RetriedRequest = { method: 'DELETE' };
const post: RetriedRequest = { method: 'POST', contentType: 'application/json' };
const dryRunPost: RetriedRequest = { method: 'POST', query: { dryRun: 'All' } };
const put: RetriedRequest = { method: 'PUT' };

describe('which requests are idempotent', () => {
  it('GET, DELETE, server-side apply, merge patch and any dry-run are; POST, PUT and JSON patch are not', () => {
    expect([get, ssa, mergePatch, del, dryRunPost].map(isIdempotent)).toEqual([true, true, true, true, true]);
    expect([post, put, jsonPatch].map(isIdempotent)).toEqual([false, false, false]);
  });
});

describe('which failures are retried', () => {
  it('a refused connection, for every request: nothing reached the server', () => {
    for (const request of [get, ssa, post, put, jsonPatch])
      expect(isRetryable(request, { kind: 'connection', code: 'ECONNREFUSED' })).toBe(true);
  });

  it('a reset connection, for idempotent requests only: the server may have run it', () => {
    for (const code of ['ECONNRESET', 'EPIPE']) {
      expect(isRetryable(get, { kind: 'connection', code })).toBe(true);
      expect(isRetryable(ssa, { kind: 'connection', code })).toBe(true);
      expect(isRetryable(post, { kind: 'connection', code })).toBe(false);
      expect(isRetryable(jsonPatch, { kind: 'connection', code })).toBe(false);
    }
  });

  it('never a time-out, a name that does not resolve or a certificate that does not verify', () => {
    for (const code of ['ETIMEDOUT', 'ENOTFOUND', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      expect(isRetryable(get, { kind: 'connection', code })).toBe(false);
    }
  });

  it('429 for every request; 502, 503, 504 for idempotent ones; 500 only with Retry-After; never 4xx', () => {
    expect(isRetryable(post, { kind: 'status', status: 429 })).toBe(true);
    for (const status of [502, 503, 504]) {
      expect(isRetryable(ssa, { kind: 'status', status })).toBe(true);
      expect(isRetryable(post, { kind: 'status', status })).toBe(false);
    }
    // The API server answers 500 to a server-side apply its schema refuses: not transient.
    expect(isRetryable(ssa, { kind: 'status', status: 500 })).toBe(false);
    expect(isRetryable(ssa, { kind: 'status', status: 500, retryAfterMs: 1000 })).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 422, 501])
      expect(isRetryable(get, { kind: 'status', status })).toBe(false);
  });
});

describe('when to retry', () => {
  it('reads Retry-After as seconds or as a date', () => {
    const now = Date.parse('2026-11-27T08:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(['1', '9'], now)).toBe(1000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 08:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 07:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('doubles the delay from 250 ms up to 4 s, within ±20 %', () => {
    expect([1, 2, 3, 4, 5, 6, 9].map((retry) => backoffMs(retry, () => 0.5))).toEqual([
      250, 500, 1000, 2000, 4000, 4000, 4000,
    ]);
    expect(backoffMs(1, () => 0)).toBe(200);
    expect(backoffMs(1, () => 1)).toBe(300);
    expect(backoffMs(20, () => 1)).toBe(RETRY_MAX_DELAY_MS * 1.2);
  });

  const refused = { kind: 'connection', code: 'ECONNREFUSED' } as const;
  const at = (retry: number, answeredBefore = true, boundAt = 1_000_000) => ({
    retry,
    answeredBefore,
    now: 0,
    boundAt,
    random: () => 0.5,
  });

  it('stops after 8 retries, or 4 for a server that never answered this client', () => {
    expect(nextRetryDelay(get, refused, at(MAX_RETRIES))).toBe(4000);
    expect(nextRetryDelay(get, refused, at(MAX_RETRIES + 1))).toBeUndefined();
    expect(nextRetryDelay(get, refused, at(FIRST_CONTACT_RETRIES, false))).toBe(2000);
    expect(nextRetryDelay(get, refused, at(FIRST_CONTACT_RETRIES + 1, false))).toBeUndefined();
  });

  it('never starts a retry at or after the bound; honours a longer Retry-After, or gives up when it passes the bound', () => {
    expect(nextRetryDelay(get, refused, at(1, true, 251))).toBe(250);
    expect(nextRetryDelay(get, refused, at(1, true, 250))).toBeUndefined();
    expect(nextRetryDelay(get, { kind: 'status', status: 503, retryAfterMs: 2000 }, at(1))).toBe(2000);
    expect(nextRetryDelay(get, { kind: 'status', status: 503, retryAfterMs: 2000 }, at(1, true, 1500))).toBeUndefined();
    expect(nextRetryDelay(post, { kind: 'status', status: 503 }, at(1))).toBeUndefined();
  });

  it('keeps the earlier of nested deadlines, and none outside them', async () => {
    expect(currentRequestDeadline()).toBeUndefined();
    const seen = await withRequestDeadline(2000, () => withRequestDeadline(5000, async () => currentRequestDeadline()));
    expect(seen).toBe(2000);
    expect(await withRequestDeadline(5000, () => withRequestDeadline(3000, async () => currentRequestDeadline()))).toBe(
      3000,
    );
    expect(currentRequestDeadline()).toBeUndefined();
  });
});
