// Kept-alive connections the server dropped (an API server restart) are not errors: the
// request goes again on a fresh connection. A server that drops every request still fails.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openCluster } from '../../src/kube/cluster.js';
import { KubeConnectionError } from '../../src/kube/errors.js';
import { loadKubeconfig } from '../../src/kube/kubeconfig.js';
import { SecretRegistry } from '../../src/secrets.js';

let server: Server | undefined;
afterEach(() => server?.close());

/** An HTTP server answering /version; `drop(n)` says whether to cut the n-th request of a connection. */
async function start(drop: (requestOnConnection: number) => boolean): Promise<{ url: string; connections: () => number }> {
  const counts = new WeakMap<Socket, number>();
  let connections = 0;
  server = createServer((req, res) => {
    const n = (counts.get(req.socket) ?? 0) + 1;
    counts.set(req.socket, n);
    if (drop(n)) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', Connection: 'keep-alive' });
    res.end(JSON.stringify({ major: '1', minor: '36', gitVersion: `v1.36.3-conn${connections}-req${n}` }));
  });
  server.on('connection', () => connections++);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

function clusterAt(url: string) {
  const secrets = new SecretRegistry();
  const text = stringify({
    'current-context': 'k',
    clusters: [{ name: 'k', cluster: { server: url } }],
    users: [{ name: 'u', user: { token: 'keepalive-token' } }],
    contexts: [{ name: 'k', context: { cluster: 'k', user: 'u' } }],
  });
  return openCluster(loadKubeconfig([text], secrets), undefined, { secrets, name: 'keepalive-1', timeoutMs: 5_000 });
}

describe('kept-alive connections', () => {
  it('sends a request again when the server dropped the kept-alive connection', async () => {
    const { url, connections } = await start((n) => n === 2);
    const cluster = clusterAt(url);
    expect((await cluster.client.version()).gitVersion).toBe('v1.36.3-conn1-req1');
    // Second request on the same socket is cut; the client retries on a new connection.
    expect((await cluster.client.version()).gitVersion).toBe('v1.36.3-conn2-req1');
    expect(connections()).toBe(2);
    cluster.close();
  });

  it('fails, naming the cluster, when even fresh connections are cut', async () => {
    const { url } = await start(() => true);
    const cluster = clusterAt(url);
    const error = await cluster.client.version().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeConnectionError);
    expect((error as Error).message).toMatch(/^cluster keepalive-1: cannot reach the API server at http:\/\/127\.0\.0\.1:\d+: (connection reset|socket hang up)/);
    cluster.close();
  });
});
