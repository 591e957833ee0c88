// Free TCP ports on 127.0.0.1 for the components of the local fleet.
import { createServer } from 'node:net';

/** Host every component of the fleet listens on; nothing listens on other interfaces. */
export const loopback = '127.0.0.1';

/** Resolves when `port` can be bound on 127.0.0.1, rejects with a clear error when it is taken. */
export function assertPortFree(port: number, purpose: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE' ? 'is already in use by another process' : `cannot be bound (${error.message})`;
      reject(new Error(`port ${loopback}:${port} for ${purpose} ${reason}`));
    });
    server.listen({ host: loopback, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Ports handed out by this process, so that parallel cluster starts never share one. */
const handedOut = new Set<number>();

async function ephemeralPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: loopback, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('the operating system did not report the port it picked'));
      });
    });
  });
}

/**
 * Picks `count` distinct free ports. The kernel's ephemeral range is used, so a port can in
 * principle be taken between this call and the component binding it; the component then
 * fails to start and its error names the port.
 */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await ephemeralPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    ports.push(port);
  }
  return ports;
}
