// A small client for GitHub's REST API (GITHUB_API_URL): JSON requests with the token,
// pagination through Link headers, GitHub's error bodies turned into errors that say
// what failed, bounded waits on secondary rate limits, and a time limit on every request
// (a GitHub that never answers must not stall the step): a request that times out or meets
// a 502/503/504 is tried again, at most three times in all, never past the run's deadline.

export class GitHubApiError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly apiMessage: string,
    readonly documentationUrl?: string,
  ) {
    super(`GitHub API ${method} ${path} answered ${status}: ${apiMessage}`);
    this.name = 'GitHubApiError';
  }
}

export interface GitHubClientOptions {
  apiUrl: string;
  token: string;
  userAgent?: string;
  /** Waits longer than this on a rate limit fail instead (milliseconds). */
  maxRateLimitWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Time limit of one request, answer included (default 30 s). */
  requestTimeoutMs?: number;
  /** The run's deadline: no request starts or goes on past it. */
  signal?: AbortSignal;
}

const ATTEMPTS = 3;
const RETRIED_STATUSES = new Set([502, 503, 504]);

/** The body as JSON; GitHub's HTML error pages (a 502 from its front end) are named as such. */
function parseBody(text: string, status: number, method: string, shownPath: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const html = /^\s*</.test(text);
    throw new GitHubApiError(status, method, shownPath, html ? 'an HTML error page instead of JSON (GitHub unavailable?)' : 'a body that is not JSON');
  }
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

export class GitHubClient {
  private readonly apiUrl: string;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: GitHubClientOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const url = path.startsWith('http') ? path : `${this.apiUrl}${path}`;
    const shownPath = url.startsWith(this.apiUrl) ? url.slice(this.apiUrl.length) : url;
    for (let attempt = 1; ; attempt += 1) {
      const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
      const signals = [AbortSignal.timeout(timeoutMs), ...(this.options.signal ? [this.options.signal] : [])];
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method,
          signal: AbortSignal.any(signals),
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${this.options.token}`,
          'user-agent': this.options.userAgent ?? 'timoni-fleet',
          'x-github-api-version': '2022-11-28',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        text = await response.text();
      } catch (error) {
        if (this.options.signal?.aborted) throw new GitHubApiError(0, method, shownPath, 'stopped: the run passed its deadline');
        const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
        if (attempt < ATTEMPTS) {
          await this.sleep(1000 * attempt);
          continue;
        }
        throw new GitHubApiError(0, method, shownPath, `${reason} (${attempt} attempts)`);
      }
      if (RETRIED_STATUSES.has(response.status) && attempt < ATTEMPTS && !this.options.signal?.aborted) {
        await this.sleep(1000 * attempt);
        continue;
      }
      const data = parseBody(text, response.status, method, shownPath);
      if (response.ok) return { status: response.status, data: data as T, headers: response.headers };

      const wait = this.rateLimitWait(response);
      if (wait !== undefined && attempt < 3 && wait <= (this.options.maxRateLimitWaitMs ?? 60_000)) {
        await this.sleep(wait);
        continue;
      }
      const payload = (data ?? {}) as { message?: string; documentation_url?: string; errors?: Array<{ message?: string }> };
      const details = payload.errors?.map((e) => e.message).filter(Boolean).join('; ');
      throw new GitHubApiError(response.status, method, shownPath, [payload.message ?? response.statusText, details].filter(Boolean).join(': '), payload.documentation_url);
    }
  }

  /** Every item of a paginated list, following `Link: rel="next"`. */
  async paginate<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let next: string | undefined = `${path}${path.includes('?') ? '&' : '?'}per_page=100`;
    while (next) {
      const response: ApiResponse<T[]> = await this.request<T[]>('GET', next);
      items.push(...response.data);
      next = nextLink(response.headers.get('link'));
    }
    return items;
  }

  private rateLimitWait(response: Response): number | undefined {
    if (response.status !== 403 && response.status !== 429) return undefined;
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter) return Number(retryAfter) * 1000;
    if (response.headers.get('x-ratelimit-remaining') === '0') {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - Date.now());
    }
    return undefined;
  }
}
