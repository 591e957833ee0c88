// Sends HTTP requests directly or through an HTTP proxy, for the kube and the OCI clients:
//
//   - an https:// target goes through a CONNECT tunnel: TLS runs end to end between us and
//     the target inside it, the proxy sees only `host:port`;
//   - an http:// target is sent to the proxy as an absolute-form request
//     (`GET http://host:port/path HTTP/1.1`), as Go's net/http does;
//   - the proxy itself is spoken to over http:// or https:// (its certificate checked
//     against the system CAs); SOCKS proxies are not supported.
//
// Credentials in the proxy URL (`http://user:pass@proxy:3128`) go in Proxy-Authorization and
// never in a message: errors name the proxy's host:port only.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/** `proxy host:port`, for messages (URL.host carries no credentials). */
export function describeProxy(proxy: URL): string {
  return `proxy ${proxy.host}`;
}

/** Proxies this stack can use: http:// and https:// (CONNECT and forward). */
export function isSupportedProxy(proxy: URL): boolean {
  return proxy.protocol === 'http:' || proxy.protocol === 'https:';
}

function proxyPort(proxy: URL): number {
  return Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
}

/** The Proxy-Authorization header of a proxy URL with credentials; empty without. */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username && !proxy.password) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'Proxy-Authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** A failure of the proxy itself (CONNECT refused, proxy unreachable): `code` is kept from the cause, or EPROXY. */
function proxyFailure(message: string, code: string | undefined): NodeJS.ErrnoException {
  const error = new Error(message) as NodeJS.ErrnoException;
  error.code = code ?? 'EPROXY';
  return error;
}

type ConnectionCallback = (error: Error | null, socket: Duplex) => void;

/** An https agent whose connections are CONNECT tunnels through `proxy`, TLS to the target inside. */
export class ConnectProxyAgent extends https.Agent {
  constructor(
    private readonly proxy: URL,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  // Node calls createConnection with a callback and waits for it when nothing is returned.
  override createConnection(
    options: ConnectionOptions & { host?: string; port?: number | string },
    callback?: ConnectionCallback,
  ): Duplex | null | undefined {
    const { proxy } = this;
    const target = `${options.host ?? 'localhost'}:${options.port ?? 443}`;
    const send = proxy.protocol === 'https:' ? https.request : http.request;
    const connectRequest = send({
      host: proxy.hostname,
      port: proxyPort(proxy),
      method: 'CONNECT',
      path: target,
      headers: { Host: target, ...proxyAuthorization(proxy) },
      agent: false,
    });
    const fail = (error: Error) => callback?.(error, undefined as unknown as Duplex);
    connectRequest.once('connect', (response, socket) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        fail(proxyFailure(`${describeProxy(proxy)} refused CONNECT ${target}: HTTP ${response.statusCode}`, 'EPROXY'));
        return;
      }
      callback?.(null, tlsConnect({ ...options, socket }));
    });
    connectRequest.once('error', (error: NodeJS.ErrnoException) =>
      fail(proxyFailure(`${describeProxy(proxy)}: ${error.message}`, error.code)),
    );
    connectRequest.end();
    return undefined;
  }
}

export interface TransportRequest {
  method?: string;
  headers?: http.OutgoingHttpHeaders;
  signal?: AbortSignal;
  /** TLS server name of an https target, when it differs from its host. */
  servername?: string;
}

/**
 * Keep-alive agents for the requests of one client, one per route (direct http, direct
 * https, each proxy), made on first use. `options` hold the keep-alive settings and the TLS
 * material for https targets (CA, client certificate); a proxy spoken to over https:// is
 * checked against the system CAs, not against the target's.
 */
export class ProxyTransport {
  readonly #agents = new Map<string, http.Agent>();

  constructor(private readonly options: https.AgentOptions) {}

  #agent(key: string, make: () => http.Agent): http.Agent {
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = make();
      this.#agents.set(key, agent);
    }
    return agent;
  }

  /**
   * Starts a request for `target`, through `proxy` when given (which must be supported:
   * isSupportedProxy). Call `end()` on what it returns, as with http.request.
   */
  request(
    target: URL,
    proxy: URL | undefined,
    request: TransportRequest,
    onResponse: (res: http.IncomingMessage) => void,
  ): http.ClientRequest {
    const { keepAlive, maxSockets } = this.options;
    const common = { method: request.method ?? 'GET', headers: request.headers, signal: request.signal };
    if (proxy && !isSupportedProxy(proxy)) {
      throw proxyFailure(
        `${describeProxy(proxy)}: scheme ${proxy.protocol} is not supported (only http:// and https:// proxies)`,
        'EPROXYSCHEME',
      );
    }
    if (target.protocol === 'https:') {
      const agent = proxy
        ? this.#agent(`connect ${proxy.href}`, () => new ConnectProxyAgent(proxy, this.options))
        : this.#agent('https', () => new https.Agent(this.options));
      return https.request(target, { ...common, agent, servername: request.servername }, onResponse);
    }
    if (!proxy) {
      const agent = this.#agent('http', () => new http.Agent({ keepAlive, maxSockets }));
      return http.request(target, { ...common, agent }, onResponse);
    }
    // Plain HTTP through the proxy: the whole URL as the request target, Host the target's.
    const overTls = proxy.protocol === 'https:';
    const agent = this.#agent(`forward ${proxy.href}`, () =>
      overTls ? new https.Agent({ keepAlive, maxSockets }) : new http.Agent({ keepAlive, maxSockets }),
    );
    const forwarded = new URL(target.href);
    forwarded.hash = '';
    const send = overTls ? https.request : http.request;
    const headers = { ...request.headers, Host: target.host, ...proxyAuthorization(proxy) };
    return send(
      { ...common, host: proxy.hostname, port: proxyPort(proxy), path: forwarded.href, headers, agent },
      onResponse,
    );
  }

  /** Closes every kept-alive connection. */
  destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}
