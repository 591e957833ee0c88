// GitHub's REST API (GITHUB_API_URL) through Octokit: @octokit/core with its pagination,
// retry and throttling plugins. What this file adds around them:
//
// - a time limit on every attempt, answer body included (a GitHub that never answers must
//   not stall the step), and the run's deadline: no request starts, and no wait goes on,
//   past it;
// - server errors (5xx, 408, 409) and network failures tried again a few times with a
//   growing backoff (plugin-retry; three attempts in all by default, 1 s then 4 s apart);
// - primary and secondary rate limits waited out as GitHub asks (`retry-after`,
//   `x-ratelimit-reset`; plugin-throttling), but never longer than `maxRateLimitWaitMs`,
//   and each wait said in the log;
// - every failure as a GitHubApiError: method, path, status and GitHub's own message. The
//   token is never part of it, nor of any log line (Octokit's own errors carry the request,
//   whose authorization header they redact; GitHubApiError does not keep them).
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { EndpointDefaults } from '@octokit/types';

export class GitHubApiError extends Error {
  constructor(
    /** HTTP status, or 0 when no answer came (network failure, time limit, deadline). */
    readonly status: number,
    readonly method: string,
    readonly path: string,
    /** GitHub's message (and its validation errors), or what went wrong without an answer. */
    readonly apiMessage: string,
    readonly documentationUrl?: string,
  ) {
    super(`GitHub API ${method} ${path} answered ${status}: ${apiMessage}`);
    this.name = 'GitHubApiError';
  }
}

export interface GitHubApiOptions {
  apiUrl: string;
  /** Empty: anonymous requests. */
  token: string;
  userAgent?: string;
  /** Time limit of one attempt, answer included (default 30 s). */
  requestTimeoutMs?: number;
  /** Further attempts after a server error or network failure (default 2: three in all). */
  retries?: number;
  /** Backoff unit: the n-th retry waits n² times this (default 1 s: 1 s, then 4 s). */
  retryBaseMs?: number;
  /** A rate limit that asks for a longer wait than this fails instead (default 60 s). */
  maxRateLimitWaitMs?: number;
  /** The run's deadline: no request starts, and no wait goes on, past it. */
  signal?: AbortSignal;
  /** Where waits on rate limits and Octokit's warnings are said (default: nowhere). */
  log?: (line: string) => void;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  headers: Record<string, string | number | undefined>;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_BASE_MS = 1_000;
const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 60_000;
/** Rate-limit waits for one request before it fails. */
const RATE_LIMIT_WAITS = 2;
/**
 * Answers that trying again does not change; plugin-retry's list plus 429, a secondary rate
 * limit, which plugin-throttling waits out as GitHub asks.
 */
const NOT_RETRIED = [400, 401, 403, 404, 410, 422, 429, 451];
/** Statuses whose answer has no body (a Response built with one throws). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const DEADLINE_MESSAGE = 'stopped: the run passed its deadline';
/** The REST API version the requests are written for. */
const API_VERSION = '2022-11-28';

const GitHubOctokit = Octokit.plugin(paginateRest, retry, throttling);
type GitHubOctokit = InstanceType<typeof GitHubOctokit>;

let clientCount = 0;

/** Raised inside the fetch of an attempt when the run's deadline has passed; Octokit passes an AbortError on untouched, so it is not retried. */
function deadlineAbort(): Error {
  const error = new Error(DEADLINE_MESSAGE);
  error.name = 'AbortError';
  return error;
}

/**
 * fetch with a time limit on the whole attempt: the answer's body is read within it, so a
 * body that stops half way fails like an answer that never comes.
 */
function fetchWithTimeLimit(timeoutMs: number, deadline: AbortSignal | undefined): typeof fetch {
  return async (input, init) => {
    if (deadline?.aborted) throw deadlineAbort();
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([timeout, ...(deadline ? [deadline] : []), ...(init?.signal ? [init.signal] : [])]);
    try {
      const response = await fetch(input, { ...init, signal });
      const body = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } catch (error) {
      if (deadline?.aborted) throw deadlineAbort();
      if (timeout.aborted) throw new Error(`no answer within ${timeoutMs} ms`);
      throw error;
    }
  };
}

interface OctokitRequestError {
  status: number;
  message: string;
  response?: { status: number; data?: unknown };
}

function isOctokitRequestError(error: unknown): error is OctokitRequestError {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

/** GitHub's error body as one message: `message`, then the messages of its `errors`. */
function apiMessageOf(data: unknown, fallback: string): { message: string; documentationUrl?: string } {
  if (typeof data === 'string') {
    if (/^\s*</.test(data)) return { message: 'an HTML error page instead of JSON (GitHub unavailable?)' };
    return { message: data.trim() === '' ? fallback : 'a body that is not JSON' };
  }
  if (typeof data !== 'object' || data === null) return { message: fallback };
  const body = data as { message?: unknown; documentation_url?: unknown; errors?: unknown };
  const details = Array.isArray(body.errors)
    ? body.errors
        .map((entry: unknown) =>
          typeof entry === 'string'
            ? entry
            : typeof entry === 'object' && entry !== null
              ? (entry as { message?: unknown }).message
              : undefined,
        )
        .filter((text): text is string => typeof text === 'string' && text !== '')
        .join('; ')
    : '';
  const message = [typeof body.message === 'string' ? body.message : fallback, details].filter(Boolean).join(': ');
  return typeof body.documentation_url === 'string'
    ? { message, documentationUrl: body.documentation_url }
    : { message };
}

export class GitHubApi {
  private readonly apiUrl: string;
  private readonly octokit: GitHubOctokit;
  private readonly log: (line: string) => void;

  constructor(private readonly options: GitHubApiOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.log = options.log ?? (() => undefined);
    const octokitLog = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => this.log(`GitHub API: ${String(message)}`),
      error: (message: string) => this.log(`GitHub API: ${String(message)}`),
    };
    clientCount += 1;
    this.octokit = new GitHubOctokit({
      baseUrl: this.apiUrl,
      ...(options.token ? { auth: options.token } : {}),
      userAgent: options.userAgent ?? 'timoni-fleet',
      log: octokitLog,
      request: {
        fetch: fetchWithTimeLimit(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, options.signal),
        log: octokitLog,
      },
      retry: {
        retries: options.retries ?? DEFAULT_RETRIES,
        retryAfterBaseValue: options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS,
        doNotRetry: NOT_RETRIED,
      },
      throttle: {
        // Each client its own write spacing (GitHub asks for 1 s between writes of one token).
        id: `timoni-fleet-${process.pid}-${clientCount}`,
        onRateLimit: (seconds, request, _octokit, count) => this.waitOnRateLimit('rate limit', seconds, request, count),
        onSecondaryRateLimit: (seconds, request, _octokit, count) =>
          this.waitOnRateLimit('secondary rate limit', seconds, request, count),
      },
    });
    this.octokit.hook.wrap('request', async (request, endpoint) => {
      const method = endpoint.method;
      const path = this.shownPath(endpoint.url);
      if (this.options.signal?.aborted) throw new GitHubApiError(0, method, path, DEADLINE_MESSAGE);
      endpoint.headers['x-github-api-version'] = API_VERSION;
      try {
        const response = await this.untilDeadline(Promise.resolve(request(endpoint)));
        if (typeof response.data === 'string' && response.data !== '')
          throw new GitHubApiError(response.status, method, path, apiMessageOf(response.data, '').message);
        return response;
      } catch (error) {
        throw this.apiError(error, method, path, (endpoint.request as { retryCount?: number } | undefined)?.retryCount);
      }
    });
  }

  /** One request; `path` is relative to the API URL (or a whole URL of it). Any answer but 2xx throws GitHubApiError. */
  async request<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const response = await this.octokit.request(
      `${method.toUpperCase()} ${path}`,
      body === undefined ? {} : { data: body },
    );
    return { status: response.status, data: response.data as T, headers: response.headers };
  }

  /** Every item of a paginated list, 100 a page, following `Link: rel="next"`. */
  async paginate<T>(path: string): Promise<T[]> {
    return (await this.octokit.paginate(`GET ${path}`, { per_page: 100 })) as T[];
  }

  /** plugin-throttling asks whether to wait `seconds` and try again; true waits. */
  private waitOnRateLimit(
    kind: string,
    seconds: number,
    request: Required<EndpointDefaults>,
    waitsSoFar: number,
  ): boolean {
    const what = `${request.method} ${this.shownPath(request.url)}`;
    const maxMs = this.options.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS;
    if (this.options.signal?.aborted) return false;
    if (waitsSoFar >= RATE_LIMIT_WAITS) {
      this.log(`GitHub ${kind} on ${what} again after ${waitsSoFar} waits: giving up`);
      return false;
    }
    if (seconds * 1000 > maxMs) {
      this.log(
        `GitHub ${kind} on ${what}: GitHub asks to wait ${seconds} s, longer than the ${Math.round(maxMs / 1000)} s this run waits at most; giving up`,
      );
      return false;
    }
    this.log(`GitHub ${kind} on ${what}: waiting ${seconds} s, as GitHub asks, before trying again`);
    return true;
  }

  /** The request, or the deadline's error as soon as the deadline passes (a wait in progress is not sat out). */
  private untilDeadline<T>(pending: Promise<T>): Promise<T> {
    const deadline = this.options.signal;
    if (!deadline) return pending;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(deadlineAbort());
      deadline.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (value) => {
          deadline.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          deadline.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** `retryCount`: plugin-retry's count of failed attempts of this request. */
  private apiError(error: unknown, method: string, path: string, retryCount: number | undefined): GitHubApiError {
    if (error instanceof GitHubApiError) return error;
    if (this.options.signal?.aborted || (error instanceof Error && error.message === DEADLINE_MESSAGE))
      return new GitHubApiError(0, method, path, DEADLINE_MESSAGE);
    if (!isOctokitRequestError(error))
      return new GitHubApiError(0, method, path, error instanceof Error ? error.message : String(error));
    if (!error.response) {
      // No answer: Octokit gives network failures status 500; say how often it was tried.
      const attempts = Math.max(1, retryCount ?? 1);
      return new GitHubApiError(0, method, path, `${error.message} (${attempts} attempt${attempts === 1 ? '' : 's'})`);
    }
    const { message, documentationUrl } = apiMessageOf(error.response.data, error.message);
    return new GitHubApiError(error.response.status, method, path, message, documentationUrl);
  }

  private shownPath(url: string): string {
    return url.startsWith(this.apiUrl) ? url.slice(this.apiUrl.length) || '/' : url;
  }
}
