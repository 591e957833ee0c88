// An https agent that reaches the API server through an HTTP CONNECT proxy (`proxy-url`, or
// HTTPS_PROXY), the proxy itself spoken to over http:// or https://.
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest, type AgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

type Callback = (error: Error | null, socket: Duplex) => void;

export class ConnectProxyAgent extends Agent {
  constructor(
    private readonly proxy: URL,
    options: AgentOptions,
  ) {
    super(options);
  }

  // Node calls createConnection with a callback and waits for it when nothing is returned.
  override createConnection(options: ConnectionOptions & { host?: string; port?: number | string }, callback?: Callback): Duplex | null | undefined {
    const target = `${options.host ?? 'localhost'}:${options.port ?? 443}`;
    const headers: Record<string, string> = { Host: target };
    if (this.proxy.username || this.proxy.password) {
      const credentials = `${decodeURIComponent(this.proxy.username)}:${decodeURIComponent(this.proxy.password)}`;
      headers['Proxy-Authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    const send = this.proxy.protocol === 'https:' ? httpsRequest : httpRequest;
    const connectRequest = send({
      host: this.proxy.hostname,
      port: this.proxy.port || (this.proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers,
    });
    const fail = (error: Error) => callback?.(error, undefined as unknown as Duplex);
    connectRequest.once('connect', (response, socket) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        const error = new Error(`proxy ${this.proxy.host} refused CONNECT ${target}: HTTP ${response.statusCode}`) as NodeJS.ErrnoException;
        error.code = 'EPROXY';
        fail(error);
        return;
      }
      const tlsSocket = tlsConnect({ ...options, socket });
      callback?.(null, tlsSocket);
    });
    connectRequest.once('error', (error) => fail(error));
    connectRequest.end();
    return undefined;
  }
}
