// Clusters far away, as a GitHub runner sees a cloud provider's API servers: a TCP proxy in
// front of each API server of a kubeconfig that holds every chunk, both ways, for half of
// the round trip before passing it on. TLS goes through untouched (the proxy listens on
// the same address, another port, so the servers' certificates still match), and both
// timoni-fleet and the Timoni CLI are measured through it. The proxy runs on the bench's
// own event loop while the measured process runs as a child.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface FarClusters {
  /** A copy of the kubeconfig whose servers are the proxies. */
  kubeconfigPath: string;
  close(): Promise<void>;
}

/** Passes what `from` receives on to `to`, `delayMs` later, in order. */
function delayed(from: Socket, to: Socket, delayMs: number): void {
  from.on('data', (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
}

function proxyTo(host: string, port: number, oneWayMs: number): Server {
  return createServer((client) => {
    const server = connect(port, host);
    for (const socket of [client, server]) {
      socket.setNoDelay(true);
      socket.on('error', () => {
        client.destroy();
        server.destroy();
      });
    }
    delayed(client, server, oneWayMs);
    delayed(server, client, oneWayMs);
  });
}

/** Proxies for every `server: https://<ip>:<port>` of the kubeconfig, `roundTripMs` apart from it. */
export async function farClusters(
  kubeconfigPath: string,
  outputPath: string,
  roundTripMs: number,
): Promise<FarClusters> {
  let text = readFileSync(kubeconfigPath, 'utf8');
  const targets = [
    ...new Set([...text.matchAll(/server: https:\/\/([\d.]+):(\d+)/g)].map((match) => `${match[1]}:${match[2]}`)),
  ];
  if (targets.length === 0) throw new Error(`bench far-clusters: no https://<ip>:<port> server in ${kubeconfigPath}`);
  const servers: Server[] = [];
  for (const target of targets) {
    const [host, port] = target.split(':') as [string, string];
    const server = proxyTo(host, Number(port), roundTripMs / 2);
    servers.push(server);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, () => resolve()));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('bench far-clusters: the proxy has no port');
    text = text.replaceAll(`server: https://${target}`, `server: https://${host}:${address.port}`);
  }
  writeFileSync(outputPath, text, { mode: 0o600 });
  return {
    kubeconfigPath: outputPath,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
