// One HTTP exchange on Node's own http/https, without following redirects (the caller
// decides what a redirect may carry). Every request (registry, token realm, blob storage
// behind a redirect) goes through the proxy HTTPS_PROXY / HTTP_PROXY name unless NO_PROXY
// excludes its host, read from the environment at each request, by Go's rules (src/net/).
// Connection failures become NetworkError, which the retry loop treats as transient;
// bodies are read with a size limit.
import type http from 'node:http';
import { proxyFromEnvironment, proxyVariable } from '../../net/proxy-environment.js';
import { describeProxy, isSupportedProxy, ProxyTransport } from '../../net/proxy-transport.js';

const transport = new ProxyTransport({ keepAlive: true, maxSockets: 16 });

export interface HttpRequest {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Idle time allowed on the socket, for the headers and between body chunks. */
  timeoutMs: number;
  /**
   * Time allowed for the whole exchange, body included (default 120 s): a server that sends
   * one byte every few seconds passes every idle limit and must still end.
   */
  totalMs?: number;
  signal?: AbortSignal;
  /** Environment read for HTTPS_PROXY / HTTP_PROXY / NO_PROXY; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_TOTAL_MS = 120_000;

/** A connection-level failure (reset, refused, timeout, truncated body): worth retrying. */
export class NetworkError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'NetworkError';
    this.code = code;
  }
}

/** A body larger than the caller allows: not worth retrying. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** A proxy setting this client cannot use (a SOCKS proxy): not worth retrying. */
export class ProxyConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProxyConfigError';
  }
}

export function send(url: URL, request: HttpRequest): Promise<http.IncomingMessage> {
  const proxy = proxyFromEnvironment(url, request.env ?? process.env);
  if (proxy && !isSupportedProxy(proxy)) {
    return Promise.reject(
      new ProxyConfigError(
        `${proxyVariable(url)} names ${describeProxy(proxy)} with scheme ${proxy.protocol}, which is not supported (only http:// and https:// proxies)`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const totalMs = request.totalMs ?? DEFAULT_TOTAL_MS;
    let response: http.IncomingMessage | undefined;
    const req = transport.request(
      url,
      proxy,
      { method: request.method ?? 'GET', headers: request.headers, signal: request.signal },
      (res) => {
        response = res;
        res.once('close', () => clearTimeout(total));
        resolve(res);
      },
    );
    const total = setTimeout(() => {
      const error = new NetworkError(
        'ETIMEDOUT',
        `${describeUrl(url)} did not send its whole answer within ${totalMs} ms`,
      );
      response?.destroy(error);
      req.destroy(error);
    }, totalMs);
    total.unref();
    req.setTimeout(request.timeoutMs, () => {
      req.destroy(new NetworkError('ETIMEDOUT', `no answer from ${describeUrl(url)} within ${request.timeoutMs} ms`));
    });
    req.once('close', () => {
      if (!response) clearTimeout(total);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof NetworkError) reject(error);
      else if (error.name === 'AbortError') reject(error);
      else
        reject(
          new NetworkError(
            error.code ?? 'ERR_NETWORK',
            `${request.method ?? 'GET'} ${describeUrl(url)}: ${error.message}`,
          ),
        );
    });
    req.end(request.body);
  });
}

/**
 * Reads the whole body, failing past `limit` bytes; a connection lost before the end is a
 * NetworkError. `onChunk` sees every chunk (for hashing).
 */
export async function readBody(
  res: http.IncomingMessage,
  limit: number,
  onChunk?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.destroy();
    throw new BodyTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        res.destroy();
        throw new BodyTooLargeError(limit);
      }
      onChunk?.(chunk);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError || error instanceof NetworkError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'ECONNRESET';
    throw new NetworkError(code, `connection lost while reading the response: ${(error as Error).message}`);
  }
  if (!res.complete) throw new NetworkError('ECONNRESET', 'connection closed before the response was complete');
  return Buffer.concat(chunks);
}

/** Discards a body we do not need, so the connection can be reused. */
export function drain(res: http.IncomingMessage): Promise<Buffer> {
  return readBody(res, 64 * 1024).catch(() => Buffer.alloc(0));
}
