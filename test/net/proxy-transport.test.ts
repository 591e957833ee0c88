// The proxy transport against the test proxy: plain HTTP forwarded, https tunnelled with TLS
// to the target inside, proxy credentials sent and never named in errors.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyTransport } from '../../src/net/proxy-transport.js';
import { startTestProxy, type TestProxy } from '../harness/net/connect-proxy.js';
import { selfSignedCertificate } from '../harness/net/test-certificate.js';

const NAME = 'target.proxy-test.invalid';
let proxy: TestProxy;
let plain: Server;
let secure: HttpsServer;
let ca: string;
const seenHosts: string[] = [];

const port = (server: Server | HttpsServer): number => (server.address() as AddressInfo).port;

function get(
  transport: ProxyTransport,
  target: string,
  proxyUrl: string | undefined,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = transport.request(
      new URL(target),
      proxyUrl ? new URL(proxyUrl) : undefined,
      {},
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  proxy = await startTestProxy({
    hosts: { [NAME]: '127.0.0.1' },
    credentials: { username: 'corp', password: 'transport-pass-5150' },
  });
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    seenHosts.push(String(req.headers.host));
    res.end(`${req.method} ${req.url}`);
  };
  plain = createServer(answer);
  const certificate = selfSignedCertificate([NAME]);
  ca = certificate.cert;
  secure = createHttpsServer({ cert: certificate.cert, key: certificate.key }, answer);
  await Promise.all(
    [plain, secure].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
  );
});

afterAll(async () => {
  for (const server of [plain, secure]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await proxy.close();
});

describe('ProxyTransport', () => {
  const withCredentials = () => `http://corp:transport-pass-5150@127.0.0.1:${proxy.port}`;

  it('forwards plain HTTP to the proxy as an absolute-form request, with Proxy-Authorization', async () => {
    const transport = new ProxyTransport({ keepAlive: true });
    const before = proxy.records.length;
    const answer = await get(transport, `http://${NAME}:${port(plain)}/v2/x?n=1#fragment`, withCredentials());
    expect(answer).toEqual({ status: 200, body: 'GET /v2/x?n=1' });
    expect(seenHosts.at(-1)).toBe(`${NAME}:${port(plain)}`);
    const record = proxy.records[before]!;
    expect(record).toMatchObject({
      kind: 'forward',
      target: `${NAME}:${port(plain)}`,
      requestTarget: `http://${NAME}:${port(plain)}/v2/x?n=1`,
    });
    expect(record.proxyAuthorization).toBe(`Basic ${Buffer.from('corp:transport-pass-5150').toString('base64')}`);
    transport.destroy();
  });

  it('tunnels https with CONNECT and checks the target certificate inside the tunnel', async () => {
    const trusting = new ProxyTransport({ keepAlive: true, ca });
    const before = proxy.records.length;
    expect(await get(trusting, `https://${NAME}:${port(secure)}/v2/`, withCredentials())).toEqual({
      status: 200,
      body: 'GET /v2/',
    });
    expect(await get(trusting, `https://${NAME}:${port(secure)}/v2/again`, withCredentials())).toEqual({
      status: 200,
      body: 'GET /v2/again',
    });
    // Kept alive: one tunnel for both requests.
    expect(proxy.records.slice(before).map((r) => `${r.kind} ${r.target} ${r.status}`)).toEqual([
      `connect ${NAME}:${port(secure)} 200`,
    ]);
    trusting.destroy();

    const distrusting = new ProxyTransport({ keepAlive: true });
    await expect(get(distrusting, `https://${NAME}:${port(secure)}/v2/`, withCredentials())).rejects.toThrow(
      /self[- ]signed/,
    );
    distrusting.destroy();
  });

  it('goes direct without a proxy, and names the proxy but not its credentials when it refuses', async () => {
    const transport = new ProxyTransport({ keepAlive: false });
    expect((await get(transport, `http://127.0.0.1:${port(plain)}/direct`, undefined)).body).toBe('GET /direct');
    const refused = await get(
      transport,
      `https://${NAME}:${port(secure)}/`,
      `http://corp:wrong-pass-6060@127.0.0.1:${proxy.port}`,
    ).catch((e: unknown) => e as NodeJS.ErrnoException);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as NodeJS.ErrnoException).message).toBe(
      `proxy 127.0.0.1:${proxy.port} refused CONNECT ${NAME}:${port(secure)}: HTTP 407`,
    );
    expect((refused as NodeJS.ErrnoException).code).toBe('EPROXY');
    expect(() =>
      transport.request(
        new URL('https://example.com/'),
        new URL('socks5://u:socks-pass-1@127.0.0.1:1080'),
        {},
        () => undefined,
      ),
    ).toThrow(/^proxy 127\.0\.0\.1:1080: scheme socks5: is not supported/);
    transport.destroy();
  });
});
