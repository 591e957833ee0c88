// Picks a free TCP port on the loopback interface for a process that binds it itself.
import { createServer } from 'node:net';

/**
 * Asks the kernel for a free port on 127.0.0.1 and releases it. Another process could
 * take it before the caller binds it; callers that start a child treat a bind failure
 * as a reason to retry with a new port.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error) => reject(new Error(`finding a free port on 127.0.0.1: ${error.message}`)));
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('finding a free port on 127.0.0.1: the server reported no TCP address'));
        return;
      }
      server.close(() => resolvePort(address.port));
    });
  });
}
