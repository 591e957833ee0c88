// Primary rate limits as GitHub reports them on every REST answer, one budget per
// token (and one shared by anonymous callers), plus a secondary rate limit that
// tests can force on the next requests.

export interface RateLimitSnapshot {
  limit: number;
  remaining: number;
  used: number;
  /** Unix seconds at which the budget resets. */
  reset: number;
  resource: 'core';
}

export interface ForcedSecondaryLimit {
  /** 403 (GitHub's usual answer) or 429. */
  status: 403 | 429;
  /** Seconds sent in `retry-after`. */
  retryAfter: number;
  /** How many of the next requests are refused. */
  times: number;
}

export class RateLimitBudget {
  private used = 0;

  constructor(
    readonly limit: number,
    readonly reset: number,
  ) {}

  /** Counts one request; false when the budget was already spent. */
  take(): boolean {
    if (this.used >= this.limit) return false;
    this.used += 1;
    return true;
  }

  snapshot(): RateLimitSnapshot {
    return {
      limit: this.limit,
      remaining: this.limit - this.used,
      used: this.used,
      reset: this.reset,
      resource: 'core',
    };
  }

  headers(): Record<string, string> {
    const s = this.snapshot();
    return {
      'x-ratelimit-limit': String(s.limit),
      'x-ratelimit-remaining': String(s.remaining),
      'x-ratelimit-reset': String(s.reset),
      'x-ratelimit-used': String(s.used),
      'x-ratelimit-resource': s.resource,
    };
  }
}

/** 1,000 requests an hour: the budget of a workflow's GITHUB_TOKEN on one repository. */
export const GITHUB_TOKEN_LIMIT = 1000;
/** 5,000 requests an hour: a personal access token. */
export const USER_TOKEN_LIMIT = 5000;
/** 60 requests an hour: anonymous callers (and failed authentications). */
export const ANONYMOUS_LIMIT = 60;
