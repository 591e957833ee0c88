// A small HTTP proxy on 127.0.0.1 for tests, as corporate proxies work: CONNECT tunnels for
// https:// targets and absolute-form forwarding for http:// targets. It records what it
// carried, so a test can tell whether a client went through it, and can map host names to
// addresses (`registry.proxy-test.invalid` -> 127.0.0.1): a name only the proxy resolves
// proves the request could not have gone anywhere else.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyRecord {
  /** `connect` for a tunnel, `forward` for a plain HTTP request. */
  kind: 'connect' | 'forward';
  /** `host:port` asked for. */
  target: string;
  /** The request line's target: `host:port` for CONNECT, the absolute URL for a forward. */
  requestTarget: string;
  /** The Proxy-Authorization header received, if any. */
  proxyAuthorization?: string;
  /** The status the proxy answered with (200 for a tunnel opened). */
  status: number;
}

export interface TestProxyOptions {
  /** Host names the proxy resolves itself (`name` -> IP); other names are connected to as given. */
  hosts?: Record<string, string>;
  /** When set, requests without these Basic credentials get 407. */
  credentials?: { username: string; password: string };
}

export interface TestProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  records: ProxyRecord[];
  /** The distinct `host:port` targets carried, in order of first use. */
  targets(): string[];
  close(): Promise<void>;
}

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

export async function startTestProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const records: ProxyRecord[] = [];
  const sockets = new Set<Socket>();
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
    : undefined;
  const resolveHost = (host: string): string => options.hosts?.[host.toLowerCase()] ?? host;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request target expected');
      return;
    }
    const record: ProxyRecord = {
      kind: 'forward',
      target: target.host,
      requestTarget: req.url ?? '',
      proxyAuthorization: req.headers['proxy-authorization'],
      status: 0,
    };
    records.push(record);
    if (expected && req.headers['proxy-authorization'] !== expected) {
      record.status = 407;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test-proxy"' }).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !hopByHop.has(name)));
    const upstream = httpRequest(
      {
        host: resolveHost(target.hostname),
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (answer) => {
        record.status = answer.statusCode ?? 0;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      record.status = 502;
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const requestTarget = req.url ?? '';
    const record: ProxyRecord = {
      kind: 'connect',
      target: requestTarget,
      requestTarget,
      proxyAuthorization: req.headers['proxy-authorization'],
      status: 0,
    };
    records.push(record);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (expected && req.headers['proxy-authorization'] !== expected) {
      record.status = 407;
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test-proxy"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const match = /^(.+):(\d+)$/.exec(requestTarget);
    if (!match) {
      record.status = 400;
      client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), resolveHost(match[1]!.replace(/^\[|\]$/g, '')), () => {
      record.status = 200;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => {
      if (record.status === 0) {
        record.status = 502;
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      } else client.destroy();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    records,
    targets: () => [...new Set(records.map((record) => record.target))],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
