// A small HTTP client for one cluster's API server: keep-alive, timeouts, JSON in and out,
// errors as KubeApiError / KubeConnectionError naming the cluster and the object.
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { ClusterConnection, RequestAuth } from './connection.js';
import { describeConnectionError, KubeApiError, KubeConnectionError, parseStatus } from './errors.js';
import type { ObjectRef } from './object.js';
import { ProxyTransport } from '../net/proxy-transport.js';

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
  /** Time limit of one request, connection included; default 30 s. */
  timeoutMs?: number;
  userAgent?: string;
  /**
   * Called with each `Warning` header the server sends (deprecated APIs, unknown fields that
   * a server-side apply dropped...), with the cluster and the object concerned.
   */
  onWarning?: (warning: KubeWarning) => void;
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

  constructor(
    readonly connection: ClusterConnection,
    options: KubeClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'timoni-fleet';
    this.onWarning = options.onWarning;
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
      throw new KubeApiError(this.name, response.status, 'InvalidResponse', `answer is not JSON (${response.contentType || 'no content type'})`, describe(req), req.object);
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
    for (const [key, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: OutgoingHttpHeaders = {
      ...auth.headers,
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.userAgent,
    };
    if (body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    let response: RawResponse | undefined;
    // A keep-alive socket the server closed meanwhile (an API server restart...) fails at
    // once; such requests are sent again on a fresh connection, a few times at most.
    for (let attempt = 0; !response; attempt++) {
      try {
        response = await this.exchange(url, req, headers, body, auth, timeoutMs);
      } catch (error) {
        if (!(error instanceof StaleSocketError) || attempt >= 3) throw this.connectionError(error instanceof StaleSocketError ? error.cause : (error as NodeJS.ErrnoException));
      }
    }
    if (response.status === 401 && mayRetry && connection.invalidate()) return this.send(req, false);
    for (const text of response.warnings) this.onWarning?.({ cluster: this.name, text, object: req.object });
    if (response.status < 200 || response.status >= 300) {
      const status = parseStatus(response.body);
      throw new KubeApiError(this.name, response.status, status.reason, status.message, describe(req), req.object, status.causes);
    }
    return response;
  }

  private exchange(url: URL, req: KubeRequest, headers: OutgoingHttpHeaders, body: string | undefined, auth: RequestAuth, timeoutMs: number): Promise<RawResponse> {
    const { connection } = this;
    return new Promise<RawResponse>((resolvePromise, reject) => {
      const transport = this.transportFor(auth);
      const request = transport.request(url, connection.proxyUrl, { method: req.method, headers, servername: connection.servername }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolvePromise({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            contentType: String(res.headers['content-type'] ?? ''),
            warnings: parseWarnings(res.headers.warning),
          }),
        );
        res.on('error', (error) => reject(error));
      });
      request.setTimeout(timeoutMs, () => {
        const error = new Error(`no answer to ${describe(req)} within ${timeoutMs} ms`) as NodeJS.ErrnoException;
        error.code = 'ETIMEDOUT';
        request.destroy(error);
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up');
        reject(stale ? new StaleSocketError(error) : error);
      });
      request.end(body);
    });
  }

  private connectionError(error: NodeJS.ErrnoException): KubeConnectionError {
    if (error instanceof KubeConnectionError) return error;
    const { code, detail } = describeConnectionError(error);
    return new KubeConnectionError(this.name, this.connection.server.origin, code, detail);
  }
}

/** A request failed on a kept-alive socket the server had closed. */
class StaleSocketError extends Error {
  constructor(override readonly cause: NodeJS.ErrnoException) {
    super(cause.message);
  }
}

function describe(req: KubeRequest): string {
  const dryRun = req.query?.dryRun ? ' (dry-run)' : '';
  const verb = req.method === 'PATCH' && req.contentType?.startsWith('application/apply-patch') ? 'server-side apply' : req.method;
  return `${verb}${dryRun} ${req.path}`;
}
