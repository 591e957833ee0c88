// The registry's front door: a reverse proxy on 127.0.0.1 that records every request (so
// tests can count pulls), serves the token endpoint, and fails requests on demand (so
// tests can exercise retries).
import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  /** Position in arrival order, from 1. */
  seq: number;
  method: string;
  /** Path and query as sent, e.g. `/v2/apps/podinfo/manifests/1.0.0`. */
  path: string;
  /** Status returned to the client; 0 when the connection was reset or the client left. */
  status: number;
  /** Which scheme the client used; credentials themselves are never recorded. */
  authorization: 'none' | 'basic' | 'bearer' | 'other';
  /** `forwarded` to the registry, answered by the `token` service, or an `injected` failure. */
  outcome: 'forwarded' | 'token' | 'injected-reset' | 'injected-status' | 'injected-truncate' | 'proxy-error';
  startedAt: number;
  durationMs: number;
}

export interface RequestMatch {
  method: string;
  path: string;
}

export interface FailureInjection {
  /** How many matching requests fail; later ones pass. */
  count: number;
  /**
   * `reset` destroys the connection before any response; `status` answers with `status`
   * without asking the registry; `truncate` forwards the request, sends the registry's
   * status, headers and the first half of its body, then destroys the connection.
   */
  mode: 'reset' | 'status' | 'truncate';
  /** HTTP status for `status` mode (default 503). */
  status?: number;
  /** Which requests count; default every request, the token endpoint included (except for `truncate`). */
  match?: (request: RequestMatch) => boolean;
}

interface PendingFailure extends FailureInjection {
  remaining: number;
}

export interface RequestProxy {
  port: number;
  requests: RecordedRequest[];
  failNext(injection: FailureInjection): void;
  /** Sets where registry requests go; must be called before the first one arrives. */
  setUpstream(port: number): void;
  close(): Promise<void>;
}

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

function authorizationScheme(header: string | undefined): RecordedRequest['authorization'] {
  const scheme = header?.split(' ')[0]?.toLowerCase();
  if (scheme === undefined || scheme === '') return 'none';
  if (scheme === 'basic' || scheme === 'bearer') return scheme;
  return 'other';
}

/** Sends the first half of the upstream body (at least one byte short), then resets the connection. */
function sendHalfThenReset(upstream: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
  upstream.on('end', () => {
    const body = Buffer.concat(chunks);
    response.flushHeaders();
    response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.socket?.destroy());
  });
}

/**
 * Starts the proxy on a free loopback port. `tokenHandler`, when given, serves
 * `/token`; every other path goes to the upstream registry.
 */
export async function startRequestProxy(
  tokenHandler?: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<RequestProxy> {
  const requests: RecordedRequest[] = [];
  const failures: PendingFailure[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  let upstreamPort = 0;

  const isTokenPath = (path: string) => {
    const pathname = path.split('?')[0];
    return tokenHandler !== undefined && (pathname === '/token' || pathname === '/token/');
  };
  // Truncation applies to registry answers only; token requests pass it by.
  const takeFailure = (match: RequestMatch): PendingFailure | undefined => {
    const failure = failures.find(
      (candidate) => !(candidate.mode === 'truncate' && isTokenPath(match.path)) && (candidate.match?.(match) ?? true),
    );
    if (!failure) return undefined;
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(failures.indexOf(failure), 1);
    return failure;
  };

  const server: Server = createServer((request, response) => {
    const record: RecordedRequest = {
      seq: requests.length + 1,
      method: request.method ?? '',
      path: request.url ?? '/',
      status: 0,
      authorization: authorizationScheme(request.headers.authorization),
      outcome: 'forwarded',
      startedAt: Date.now(),
      durationMs: 0,
    };
    requests.push(record);
    const finish = (status: number) => {
      record.status = status;
      record.durationMs = Date.now() - record.startedAt;
    };
    response.on('finish', () => finish(response.statusCode));
    response.on('close', () => {
      if (!response.writableFinished) finish(0);
    });

    const failure = takeFailure({ method: record.method, path: record.path });
    if (failure?.mode === 'reset') {
      record.outcome = 'injected-reset';
      request.socket.destroy();
      return;
    }
    if (failure?.mode === 'status') {
      record.outcome = 'injected-status';
      const status = failure.status ?? 503;
      request.resume();
      request.on('end', () => {
        response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
        response.end(
          JSON.stringify({
            errors: [
              { code: 'UNAVAILABLE', message: `failure injected by the test registry proxy (status ${status})` },
            ],
          }),
        );
      });
      return;
    }

    if (tokenHandler && isTokenPath(record.path)) {
      record.outcome = 'token';
      tokenHandler(request, response);
      return;
    }

    const truncate = failure?.mode === 'truncate';
    if (truncate) record.outcome = 'injected-truncate';
    const headers = { ...request.headers };
    for (const name of hopByHop) delete headers[name];
    const upstream = httpRequest(
      { host: '127.0.0.1', port: upstreamPort, method: request.method, path: request.url, headers, agent },
      (upstreamResponse) => {
        const responseHeaders = { ...upstreamResponse.headers };
        for (const name of hopByHop) delete responseHeaders[name];
        response.writeHead(upstreamResponse.statusCode ?? 502, responseHeaders);
        if (truncate) {
          sendHalfThenReset(upstreamResponse, response);
          return;
        }
        upstreamResponse.pipe(response);
        upstreamResponse.on('error', () => response.destroy());
      },
    );
    upstream.on('error', (error) => {
      record.outcome = 'proxy-error';
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          errors: [
            {
              code: 'UNAVAILABLE',
              message: `test registry proxy: upstream registry on 127.0.0.1:${upstreamPort} failed: ${error.message}`,
            },
          ],
        }),
      );
    });
    request.pipe(upstream);
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error) =>
      reject(new Error(`test registry proxy: listening on 127.0.0.1 failed: ${error.message}`)),
    );
    server.listen(0, '127.0.0.1', () => resolveListen());
  });

  return {
    port: (server.address() as AddressInfo).port,
    requests,
    failNext(injection) {
      if (!Number.isInteger(injection.count) || injection.count < 1)
        throw new Error(`failNext: count must be a positive integer, got ${injection.count}`);
      failures.push({ ...injection, remaining: injection.count });
    },
    setUpstream(port) {
      upstreamPort = port;
    },
    close() {
      agent.destroy();
      return new Promise((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    },
  };
}
