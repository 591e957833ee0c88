// The client's retries and time limit against local servers that misbehave on purpose: a
// 503 with Retry-After, a 500 that is no fault of the moment, a connection cut under a POST,
// a server that is down from the start, one that goes away and comes back, one that accepts
// the connection and never answers (plain HTTP and TLS), and the deadline of the work a
// request belongs to. The same against real API servers: test/e2e/transient-faults.test.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { KubeRetry } from '../../../src/kube/connect/client.js';
import { openCluster } from '../../../src/kube/connect/cluster.js';
import { KubeApiError, KubeConnectionError } from '../../../src/kube/connect/errors.js';
import { loadKubeconfig } from '../../../src/kube/connect/kubeconfig.js';
import { withRequestDeadline } from '../../../src/kube/connect/request-retry.js';
import { SecretRegistry } from '../../../src/secrets.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

const servers: Array<Server | NetServer> = [];
/** Connections of plain TCP servers, which have no closeAllConnections. */
const openSockets: Socket[] = [];
afterEach(async () => {
  for (const socket of openSockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An HTTP server that hands the n-th request (from 1) to `handler`; on `port` when given. */
async function serve(handler: Handler, port = 0): Promise<{ server: Server; port: number; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    handler(req, res, n);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests: () => n };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function clusterAt(server: string, timeoutMs = 5_000) {
  const secrets = new SecretRegistry();
  const retries: KubeRetry[] = [];
  const text = stringify({
    'current-context': 'k',
    clusters: [
      { name: 'k', cluster: { server, 'insecure-skip-tls-verify': server.startsWith('https:') || undefined } },
    ],
    users: [{ name: 'u', user: { token: 'retry-token' } }],
    contexts: [{ name: 'k', context: { cluster: 'k', user: 'u' } }],
  });
  const cluster = openCluster(loadKubeconfig([text], secrets), undefined, {
    secrets,
    name: 'retry-1',
    timeoutMs,
    onRetry: (retry) => retries.push(retry),
  });
  return { cluster, retries };
}

const version = (res: ServerResponse) =>
  res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"major":"1","minor":"36","gitVersion":"v1.36.3"}');
const status = (res: ServerResponse, code: number, reason: string, headers: Record<string, string> = {}) =>
  res
    .writeHead(code, { 'Content-Type': 'application/json', ...headers })
    .end(JSON.stringify({ kind: 'Status', status: 'Failure', reason, message: `${reason} here`, code }));
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'web' };
const ssa = {
  method: 'PATCH' as const,
  path: '/api/v1/namespaces/apps/configmaps/web',
  contentType: 'application/apply-patch+yaml',
  body: '{}',
  query: { fieldManager: 'timoni' },
  object: configMap,
};

describe('retries', () => {
  it('retries a 503 after its Retry-After, telling the retry once with cluster, object, request and reason', async () => {
    const { port, requests } = await serve((_req, res, n) =>
      n === 1 ? status(res, 503, 'ServiceUnavailable', { 'Retry-After': '1' }) : res.writeHead(200).end('{}'),
    );
    const { cluster, retries } = clusterAt(`http://127.0.0.1:${port}`);
    const started = Date.now();
    await cluster.client.request(ssa);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(requests()).toBe(2);
    expect(retries.map((r) => r.text)).toEqual([
      'cluster retry-1: ConfigMap/apps/web: server-side apply /api/v1/namespaces/apps/configmaps/web: HTTP 503 ServiceUnavailable, Retry-After 1 s; retry 1 in 1.0 s',
    ]);
    expect(retries[0]).toMatchObject({
      cluster: 'retry-1',
      request: 'server-side apply /api/v1/namespaces/apps/configmaps/web',
      retry: 1,
      delayMs: 1000,
      object: configMap,
    });
    cluster.close();
  });

  it('does not retry a 500 without Retry-After (the API server reports a schema refusal so)', async () => {
    const { port, requests } = await serve((_req, res) => status(res, 500, '', {}));
    const { cluster, retries } = clusterAt(`http://127.0.0.1:${port}`);
    await expect(cluster.client.request(ssa)).rejects.toBeInstanceOf(KubeApiError);
    expect(requests()).toBe(1);
    expect(retries).toEqual([]);
    cluster.close();
  });

  it('sends a GET again after a connection cut under it, never a POST', async () => {
    const { port, requests } = await serve((req, res, n) =>
      n === 1 || req.method === 'POST' ? req.socket.destroy() : version(res),
    );
    const { cluster, retries } = clusterAt(`http://127.0.0.1:${port}`);
    expect((await cluster.client.version()).gitVersion).toBe('v1.36.3');
    expect(retries.map((r) => r.reason)).toEqual([expect.stringMatching(/^connection reset/)]);
    const before = requests();
    await expect(
      cluster.client.request({ method: 'POST', path: '/api/v1/namespaces/apps/configmaps', body: {} }),
    ).rejects.toThrow(/cannot reach the API server/);
    expect(requests() - before).toBe(1);
    expect(retries).toHaveLength(1);
    cluster.close();
  });

  it('reports a server that is down from the start after a few quick retries, naming the request and the attempts', async () => {
    const port = await freePort();
    const { cluster, retries } = clusterAt(`http://127.0.0.1:${port}`, 30_000);
    const started = Date.now();
    const error = await cluster.client.version().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_500);
    expect(error).toBeInstanceOf(KubeConnectionError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^cluster retry-1: cannot reach the API server at http://127\\.0\\.0\\.1:${port}: connection refused \\(is the API server running\\?\\) \\[ECONNREFUSED\\] \\(GET /version: 5 attempts over \\d+(\\.\\d)? m?s\\)$`,
      ),
    );
    expect(retries.map((r) => r.retry)).toEqual([1, 2, 3, 4]);
    expect(retries[0]!.text).toMatch(
      /^cluster retry-1: GET \/version: connection refused \(is the API server running\?\) \[ECONNREFUSED\]; retry 1 in \d+ ms$/,
    );
    cluster.close();
  });

  it('rides out a server that goes away and comes back on the same port', async () => {
    const first = await serve((_req, res) => version(res));
    const { cluster, retries } = clusterAt(`http://127.0.0.1:${first.port}`, 20_000);
    await cluster.client.version();
    first.server.closeAllConnections();
    await new Promise((resolve) => first.server.close(resolve));
    setTimeout(() => void serve((_req, res) => version(res), first.port), 1_500);
    expect((await cluster.client.version()).gitVersion).toBe('v1.36.3');
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(retries.every((r) => /^cluster retry-1: GET \/version: connection (refused|reset)/.test(r.text))).toBe(true);
    cluster.close();
  });

  it('retries a server that answered before until the request time limit, not past it', async () => {
    const first = await serve((_req, res) => version(res));
    const { cluster } = clusterAt(`http://127.0.0.1:${first.port}`, 2_000);
    await cluster.client.version();
    first.server.closeAllConnections();
    await new Promise((resolve) => first.server.close(resolve));
    const started = Date.now();
    const error = await cluster.client.version().catch((e: unknown) => e);
    // No retry starts at or after the 2 s bound (each attempt itself takes a moment).
    expect(Date.now() - started).toBeLessThan(2_500);
    // 3 attempts when the jitter puts the third retry past the bound (it ends under 1 s then), up to 5.
    expect((error as Error).message).toMatch(
      /connection refused .*\(GET \/version: [3-5] attempts over (\d{3} ms|[12]\.\d s)\)$/,
    );
    cluster.close();
  });

  it('does not retry past the deadline of the work the request belongs to', async () => {
    const first = await serve((_req, res) => version(res));
    const { cluster } = clusterAt(`http://127.0.0.1:${first.port}`, 30_000);
    await cluster.client.version();
    first.server.closeAllConnections();
    await new Promise((resolve) => first.server.close(resolve));
    const started = Date.now();
    await expect(withRequestDeadline(Date.now() + 800, () => cluster.client.version())).rejects.toThrow(
      /connection refused/,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    cluster.close();
  });
});

describe('one time limit per request', () => {
  it('a server that reads the request and never answers: names the request, says it accepted the connection', async () => {
    const { port } = await serve(() => undefined);
    const { cluster, retries } = clusterAt(`http://127.0.0.1:${port}`, 1_000);
    const started = Date.now();
    const error = await cluster.client
      .request({
        method: 'GET',
        path: '/api/v1/namespaces/kube-system',
        object: { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'kube-system' },
      })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error).toBeInstanceOf(KubeConnectionError);
    expect((error as KubeConnectionError).accepted).toBe(true);
    expect((error as Error).message).toBe(
      `cluster retry-1: Namespace/kube-system: GET /api/v1/namespaces/kube-system: the API server at http://127.0.0.1:${port} accepted the connection but sent no answer within 1.0 s [ETIMEDOUT]`,
    );
    expect(retries).toEqual([]);
    cluster.close();
  });

  it('a server that starts its answer and never finishes it', async () => {
    const { port } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"major":');
      // Keeps trickling: an idle timeout would never fire.
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    const { cluster } = clusterAt(`http://127.0.0.1:${port}`, 1_000);
    const started = Date.now();
    const error = await cluster.client.version().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((error as Error).message).toBe(
      `cluster retry-1: GET /version: the API server at http://127.0.0.1:${port} accepted the connection but did not finish its answer within 1.0 s [ETIMEDOUT]`,
    );
    cluster.close();
  });

  it('a TLS server that accepts the connection and never finishes the handshake', async () => {
    const silent = createNetServer((socket) => void openSockets.push(socket));
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const { cluster } = clusterAt(`https://127.0.0.1:${port}`, 1_000);
    const started = Date.now();
    const error = await cluster.client.version().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((error as Error).message).toBe(
      `cluster retry-1: GET /version: the API server at https://127.0.0.1:${port} accepted the connection but the TLS handshake did not finish within 1.0 s [ETIMEDOUT]`,
    );
    cluster.close();
  });
});
