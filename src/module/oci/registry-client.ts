// GET requests to one repository of a registry (`/v2/<repo>/...`): authentication on
// challenge, redirects followed without the Authorization header (blob storage, CDNs),
// retries on transient failures, and status codes turned into OciError with the module
// URL and the registry's own error code.
import type { IncomingMessage } from 'node:http';
import type { RegistryAuth } from './auth.js';
import { OciError } from './errors.js';
import { drain, type NetworkError, send } from './http.js';
import { isRetryableStatus, parseRetryAfter, TransientError, withRetry, type RetryPolicy } from './retry.js';
import type { Reference } from './reference.js';
import type { SecretRegistry as SecretRedactor } from '../../secrets.js';

export interface ClientContext {
  retry: RetryPolicy;
  timeoutMs: number;
  /** Time limit of one whole exchange, body included (http.ts's default when left out). */
  totalMs?: number;
  userAgent: string;
  secrets: SecretRedactor;
  signal?: AbortSignal;
}

const MAX_REDIRECTS = 5;

/** `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"..."}]}` -> `MANIFEST_UNKNOWN: ...`. */
export function registryErrorText(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { errors?: Array<{ code?: unknown; message?: unknown }> };
    const first = parsed.errors?.[0];
    if (first && typeof first.code === 'string') {
      return typeof first.message === 'string' && first.message !== '' ? `${first.code}: ${first.message}` : first.code;
    }
  } catch {
    // not the distribution error format
  }
  return '';
}

export class RegistryClient {
  readonly #ref: Reference;
  readonly #auth: RegistryAuth;
  readonly #context: ClientContext;
  readonly #url: string;

  /** `url` is the module URL that errors name. */
  constructor(ref: Reference, auth: RegistryAuth, context: ClientContext, url: string) {
    this.#ref = ref;
    this.#auth = auth;
    this.#context = context;
    this.#url = url;
  }

  get url(): string {
    return this.#url;
  }

  #scope(): string {
    return `repository:${this.#ref.repository}:pull`;
  }

  /**
   * GETs `/v2/<repo>/<path>` and hands a 2xx response to `consume`; `what` names the
   * object in messages ("manifest 1.0.0", "blob sha256:..."). `consume` may throw
   * NetworkError or TransientError to have the whole exchange retried.
   */
  async get<T>(
    path: string,
    what: string,
    accept: string | undefined,
    consume: (res: IncomingMessage) => Promise<T>,
  ): Promise<T> {
    const target = new URL(`${this.#ref.scheme}://${this.#ref.apiHost}/v2/${this.#ref.repository}/${path}`);
    const where = `${target.origin}${target.pathname}`;
    try {
      return await withRetry(
        () => this.#attempt(target, what, accept, consume),
        this.#context.retry,
        ({ error, attempts, elapsedMs }) => {
          const last =
            error instanceof TransientError && error.status !== undefined
              ? `last status ${error.status}`
              : `last error ${(error as NetworkError).code ?? ''}: ${error.message}`;
          return new OciError(
            error instanceof TransientError && error.status !== undefined ? 'registry' : 'network',
            this.#url,
            `fetching ${what} from ${where} failed after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s; ${last}`,
            error instanceof TransientError ? error.status : undefined,
          );
        },
      );
    } catch (error) {
      if (error instanceof OciError)
        throw new OciError(
          error.code,
          error.url,
          this.#context.secrets.redact(error.message.slice(error.url.length + 2)),
          error.status,
        );
      throw error;
    }
  }

  async #attempt<T>(
    target: URL,
    what: string,
    accept: string | undefined,
    consume: (res: IncomingMessage) => Promise<T>,
  ): Promise<T> {
    const { timeoutMs, totalMs, userAgent, signal } = this.#context;
    const scope = this.#scope();
    const baseHeaders: Record<string, string> = { 'User-Agent': userAgent };
    if (accept) baseHeaders.Accept = accept;
    let authorization = await this.#auth.current(scope, this.#url);
    let answered = false;
    for (;;) {
      const headers = authorization ? { ...baseHeaders, Authorization: authorization } : baseHeaders;
      let res = await send(target, { headers, timeoutMs, totalMs, signal });
      if (res.statusCode === 401) {
        const challenge = res.headers['www-authenticate'];
        await drain(res);
        if (answered) throw await this.#auth.rejected(this.#url, 401);
        authorization = await this.#auth.challenged(challenge, scope, this.#url);
        answered = true;
        continue;
      }
      let location = target;
      for (let hops = 0; isRedirect(res.statusCode) && res.headers.location; hops += 1) {
        if (hops >= MAX_REDIRECTS) {
          await drain(res);
          throw new OciError('registry', this.#url, `fetching ${what}: more than ${MAX_REDIRECTS} redirects`);
        }
        location = new URL(res.headers.location, location);
        await drain(res);
        if (location.protocol !== 'https:' && location.protocol !== 'http:')
          throw new OciError('registry', this.#url, `fetching ${what}: redirect to a non-HTTP URL`);
        // Storage behind a redirect gets no Authorization header: the registry's token is not
        // for it, and a presigned URL carries its own authorisation.
        res = await send(location, { headers: baseHeaders, timeoutMs, totalMs, signal });
      }
      return this.#handle(res, location, what, consume);
    }
  }

  async #handle<T>(
    res: IncomingMessage,
    location: URL,
    what: string,
    consume: (res: IncomingMessage) => Promise<T>,
  ): Promise<T> {
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return consume(res);
    const body = await drain(res);
    const detail = registryErrorText(body);
    const suffix = detail ? ` (${status} ${detail})` : ` (${status})`;
    if (isRetryableStatus(status)) {
      throw new TransientError(
        `${what}${suffix}`,
        status,
        parseRetryAfter(res.headers['retry-after'] as string | undefined),
      );
    }
    if (status === 404)
      throw new OciError(
        'not-found',
        this.#url,
        `${what} not found in ${this.#ref.registry}/${this.#ref.repository}${suffix}`,
        404,
      );
    if (status === 401 || status === 403)
      throw await this.#auth.rejected(
        this.#url,
        status,
        location.host === this.#ref.apiHost ? '' : ` (at ${location.host})`,
      );
    throw new OciError(
      'registry',
      this.#url,
      `fetching ${what} from ${location.origin}${location.pathname} failed${suffix}`,
      status,
    );
  }
}

function isRedirect(status: number | undefined): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}
