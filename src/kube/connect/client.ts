// A small HTTP client for one cluster's API server: keep-alive, timeouts, JSON in and out,
// errors as KubeApiError / KubeConnectionError naming the cluster and the object.
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { ClusterConnection, RequestAuth } from './connection.js';
import {
  describeConnectionError,
  KubeApiError,
  KubeConnectionError,
  parseStatus,
  type ConnectionPhase,
} from './errors.js';
import { formatRef, type ObjectRef } from '../object.js';
import {
  currentRequestDeadline,
  isIdempotent,
  nextRetryDelay,
  parseRetryAfter,
  type AttemptFailure,
} from './request-retry.js';
import { escapeControls } from '../../display-text.js';
import { formatDuration } from '../../duration.js';
import { ProxyTransport } from '../../net/proxy-transport.js';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON unless it is already a string. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** The object the request concerns, named in errors. */
  object?: ObjectRef;
  timeoutMs?: number;
}

export interface KubeClientOptions {
  /**
   * Time limit of one request, from before its connection to the last byte of the answer,
   * its retries included (request-retry.ts); default 30 s.
   */
  timeoutMs?: number;
  userAgent?: string;
  /**
   * Called with each `Warning` header the server sends (deprecated APIs, unknown fields that
   * a server-side apply dropped...), with the cluster and the object concerned.
   */
  onWarning?: (warning: KubeWarning) => void;
  /**
   * Told of each retry before it is made (request-retry.ts says which requests are retried);
   * default: its `text` as a line on stderr, control characters escaped.
   */
  onRetry?: (retry: KubeRetry) => void;
}

/** A request about to be sent again. */
export interface KubeRetry {
  cluster: string;
  /** `GET /apis/apps/v1/...`, as errors name requests. */
  request: string;
  object?: ObjectRef;
  /** Why: `connection refused (is the API server running?) [ECONNREFUSED]`, `HTTP 503 ServiceUnavailable`. */
  reason: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The line that tells it: `cluster c: Deployment/apps/web: GET /apis/...: <reason>; retry 1 in 250 ms`. */
  text: string;
}

/** Where retries are told when the caller does not say: stderr, as the CLI's progress. */
function retryToStderr(retry: KubeRetry): void {
  process.stderr.write(`${escapeControls(retry.text)}\n`);
}

export interface KubeWarning {
  cluster: string;
  /** The warning text, e.g. `unknown field "spec.replica"`. */
  text: string;
  object?: ObjectRef;
}

/** The texts of RFC 7234 Warning header values (`299 - "text"`), as the API server writes them. */
export function parseWarnings(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const out: string[] = [];
  for (const value of values) {
    for (const match of value.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) out.push(match[1]!.replace(/\\(.)/g, '$1'));
  }
  return out;
}

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  [field: string]: unknown;
}

interface RawResponse {
  status: number;
  body: string;
  contentType: string;
  warnings: string[];
  /** The answer's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

/**
 * Connections kept open to one API server. Each new one is a full TLS handshake (with a
 * client certificate, a signature on each side: about 3 ms of CPU here and as much on the
 * server), and a plan diffs up to 4 instances of a cluster at once, each with its objects'
 * dry-runs in flight together: 6 keep them busy without a handshake per request (3 x 3
 * fleet diff: 18 connections, 28 with 16; paired runs 0.95x wall locally, 0.97x with the
 * clusters 20 ms away). Requests beyond them wait for a free one (no request holds a
 * connection open: readiness is polled, never watched).
 */
const SOCKETS_PER_SERVER = 6;

export class KubeClient {
  private transport?: ProxyTransport;
  private transportKey?: string;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly onWarning?: (warning: KubeWarning) => void;
  private readonly onRetry: (retry: KubeRetry) => void;
  /** Whether the server has answered this client once (any status): see FIRST_CONTACT_RETRIES. */
  private answered = false;

  constructor(
    readonly connection: ClusterConnection,
    options: KubeClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'timoni-fleet';
    this.onWarning = options.onWarning;
    this.onRetry = options.onRetry ?? retryToStderr;
  }

  /** The cluster's name in messages. */
  get name(): string {
    return this.connection.name;
  }

  /** Sends a request and returns the decoded JSON answer; errors for non-2xx statuses. */
  async request<T = unknown>(req: KubeRequest): Promise<T> {
    const response = await this.send(req, true);
    if (response.body === '') return undefined as T;
    try {
      return JSON.parse(response.body) as T;
    } catch {
      throw new KubeApiError(
        this.name,
        response.status,
        'InvalidResponse',
        `answer is not JSON (${response.contentType || 'no content type'})`,
        describe(req),
        req.object,
      );
    }
  }

  /** GET that answers null for 404. */
  async getOrNull<T = unknown>(path: string, object?: ObjectRef): Promise<T | null> {
    try {
      return await this.request<T>({ method: 'GET', path, object });
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** The server's `/version`. */
  version(): Promise<ServerVersion> {
    return this.request<ServerVersion>({ method: 'GET', path: '/version' });
  }

  /** Closes the idle keep-alive connections. */
  close(): void {
    this.transport?.destroy();
    this.transport = undefined;
    this.transportKey = undefined;
  }

  private transportFor(auth: RequestAuth): ProxyTransport {
    // Exec plugins may hand out a new client certificate: one set of agents per certificate.
    const key = `${auth.cert?.toString('base64') ?? ''}|${auth.key ? auth.key.length : 0}`;
    if (this.transport && this.transportKey === key) return this.transport;
    this.transport?.destroy();
    const { connection } = this;
    this.transport = new ProxyTransport({
      keepAlive: true,
      maxSockets: SOCKETS_PER_SERVER,
      ca: connection.ca,
      cert: auth.cert,
      key: auth.key,
      rejectUnauthorized: connection.rejectUnauthorized,
      servername: connection.servername,
    });
    this.transportKey = key;
    return this.transport;
  }

  private async send(req: KubeRequest, mayRetry: boolean): Promise<RawResponse> {
    const { connection } = this;
    const auth = await connection.auth();
    const url = new URL(connection.server.href.replace(/\/$/, '') + req.path);
    for (const [key, value] of Object.entries(req.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const body =
      req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: OutgoingHttpHeaders = {
      ...auth.headers,
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.userAgent,
    };
    if (body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    // One time limit per request, from before the connection to the last byte, retries
    // included; retries also stop at the deadline of the work the request belongs to.
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const startedAt = Date.now();
    const boundAt = startedAt + timeoutMs;
    const retryUntil = Math.min(boundAt, currentRequestDeadline() ?? Infinity);
    for (let attempt = 1; ; attempt++) {
      let response: RawResponse;
      try {
        response = await this.exchangeOnFreshOrKeptSocket(url, req, headers, body, auth, boundAt - Date.now());
      } catch (error) {
        const cause = error as NodeJS.ErrnoException;
        const failure: AttemptFailure = { kind: 'connection', code: cause.code ?? 'UNKNOWN' };
        const delay = nextRetryDelay(req, failure, {
          retry: attempt,
          answeredBefore: this.answered,
          now: Date.now(),
          boundAt: retryUntil,
        });
        if (delay === undefined) throw this.connectionError(cause, req, attempt, startedAt, timeoutMs);
        await this.beforeRetry(req, describeConnectionError(cause).detail, attempt, delay);
        continue;
      }
      this.answered = true;
      if (response.status === 401 && mayRetry && connection.invalidate()) return this.send(req, false);
      for (const text of response.warnings) this.onWarning?.({ cluster: this.name, text, object: req.object });
      if (response.status >= 200 && response.status < 300) return response;
      const status = parseStatus(response.body);
      const { retryAfterMs } = response;
      const failure: AttemptFailure = {
        kind: 'status',
        status: response.status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
      const delay = nextRetryDelay(req, failure, {
        retry: attempt,
        answeredBefore: true,
        now: Date.now(),
        boundAt: retryUntil,
      });
      if (delay === undefined)
        throw new KubeApiError(
          this.name,
          response.status,
          status.reason,
          status.message,
          describe(req),
          req.object,
          status.causes,
        );
      const retryAfter = retryAfterMs !== undefined ? `, Retry-After ${Math.round(retryAfterMs / 1000)} s` : '';
      await this.beforeRetry(
        req,
        `HTTP ${response.status}${status.reason ? ` ${status.reason}` : ''}${retryAfter}`,
        attempt,
        delay,
      );
    }
  }

  /** Tells of a retry (one line: cluster, object, request, reason, when) and waits for it. */
  private async beforeRetry(req: KubeRequest, reason: string, retry: number, delayMs: number): Promise<void> {
    const object = req.object ? `${formatRef(req.object)}: ` : '';
    const text = `cluster ${this.name}: ${object}${describe(req)}: ${reason}; retry ${retry} in ${formatDuration(delayMs)}`;
    this.onRetry({
      cluster: this.name,
      request: describe(req),
      ...(req.object ? { object: req.object } : {}),
      reason,
      retry,
      delayMs,
      text,
    });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }

  /**
   * One attempt. A kept-alive socket the server closed meanwhile fails at once: an
   * idempotent request is sent again on a fresh connection, a few times at most, within the
   * same time limit, and untold (it is how kept-alive connections end, not a fault).
   */
  private async exchangeOnFreshOrKeptSocket(
    url: URL,
    req: KubeRequest,
    headers: OutgoingHttpHeaders,
    body: string | undefined,
    auth: RequestAuth,
    leftMs: number,
  ): Promise<RawResponse> {
    const until = Date.now() + leftMs;
    for (let stale = 0; ; stale++) {
      try {
        return await this.exchange(url, req, headers, body, auth, Math.max(1, until - Date.now()));
      } catch (error) {
        if (!(error instanceof StaleSocketError)) throw error;
        // The server may have read the request before it closed: only an idempotent one goes again.
        if (stale >= 3 || Date.now() >= until || !isIdempotent(req)) throw error.cause;
      }
    }
  }

  private exchange(
    url: URL,
    req: KubeRequest,
    headers: OutgoingHttpHeaders,
    body: string | undefined,
    auth: RequestAuth,
    timeoutMs: number,
  ): Promise<RawResponse> {
    const { connection } = this;
    return new Promise<RawResponse>((resolvePromise, reject) => {
      const transport = this.transportFor(auth);
      // How far this attempt got, for the message when it runs out of time.
      let phase: ConnectionPhase = 'connecting';
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const request = transport.request(
        url,
        connection.proxyUrl,
        { method: req.method, headers, servername: connection.servername },
        (res: IncomingMessage) => {
          phase = 'answering';
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            settle(() =>
              resolvePromise({
                status: res.statusCode ?? 0,
                body: Buffer.concat(chunks).toString('utf8'),
                contentType: String(res.headers['content-type'] ?? ''),
                warnings: parseWarnings(res.headers.warning),
                retryAfterMs: parseRetryAfter(res.headers['retry-after']),
              }),
            ),
          );
          res.on('error', (error) => settle(() => reject(error)));
          res.on('close', () => {
            if (!res.complete)
              settle(() => reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })));
          });
        },
      );
      // A total limit, not the socket's idle timeout: that one starts again once the
      // connection is accepted, and again on each byte.
      const timer = setTimeout(() => {
        const error = new Error(`no answer to ${describe(req)} within ${timeoutMs} ms`) as TimedOutError;
        error.code = 'ETIMEDOUT';
        error.phase = phase;
        error.timeoutMs = timeoutMs;
        request.destroy(error);
      }, timeoutMs);
      request.on('socket', (socket: Socket) => {
        // A kept-alive socket is connected, its handshake done.
        if (request.reusedSocket) {
          phase = 'sent';
          return;
        }
        const secure = socket instanceof TLSSocket;
        const accepted = () => {
          if (phase === 'connecting') phase = secure ? 'handshake' : 'sent';
        };
        if (secure) socket.once('secureConnect', () => (phase = 'sent'));
        // A TLS socket in a proxy's tunnel is connected when it is handed over.
        if (socket.connecting) socket.once('connect', accepted);
        else accepted();
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const stale =
          request.reusedSocket &&
          (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up');
        settle(() => reject(stale ? new StaleSocketError(error) : error));
      });
      request.end(body);
    });
  }

  private connectionError(
    error: NodeJS.ErrnoException,
    req: KubeRequest,
    attempts: number,
    startedAt: number,
    boundMs: number,
  ): KubeConnectionError {
    if (error instanceof KubeConnectionError) return error;
    const { code, detail } = describeConnectionError(error);
    const timedOut = error as Partial<TimedOutError>;
    return new KubeConnectionError(this.name, this.connection.server.origin, code, detail, {
      request: describe(req),
      ...(req.object ? { object: req.object } : {}),
      ...(timedOut.phase ? { phase: timedOut.phase } : {}),
      ...(timedOut.timeoutMs !== undefined ? { timeoutMs: boundMs } : {}),
      attempts,
      spentMs: Date.now() - startedAt,
    });
  }
}

/** The error an attempt ends with when its time limit runs out, with how far it got. */
interface TimedOutError extends NodeJS.ErrnoException {
  phase: ConnectionPhase;
  timeoutMs: number;
}

/** A request failed on a kept-alive socket the server had closed. */
class StaleSocketError extends Error {
  constructor(override readonly cause: NodeJS.ErrnoException) {
    super(cause.message);
  }
}

function describe(req: KubeRequest): string {
  const dryRun = req.query?.dryRun ? ' (dry-run)' : '';
  const verb =
    req.method === 'PATCH' && req.contentType?.startsWith('application/apply-patch') ? 'server-side apply' : req.method;
  return `${verb}${dryRun} ${req.path}`;
}
