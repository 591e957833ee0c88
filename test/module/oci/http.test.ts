// The HTTP exchange against small local servers that misbehave in ways a registry can:
// never answering, closing mid-body, sending more than allowed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyTooLargeError, NetworkError, readBody, send } from '../../../src/module/oci/http.js';
import { startTestProxy } from '../../harness/net/connect-proxy.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`);
}

describe('send and readBody', () => {
  it('times out a server that never answers', async () => {
    const url = await serve(() => undefined);
    const error = await send(url, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ETIMEDOUT');
    expect((error as NetworkError).message).toBe(`no answer from ${url.origin}/v2/ within 200 ms`);
  });

  it('reports a body cut short as a network error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(100));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await send(url, { timeoutMs: 2_000 });
    await expect(readBody(res, 10_000)).rejects.toBeInstanceOf(NetworkError);
  });

  it('refuses a body over the limit, by Content-Length and by what arrives', async () => {
    const url = await serve((req, res) => {
      if (req.headers['x-chunked']) {
        res.writeHead(200);
        res.end('y'.repeat(5000));
      } else {
        res.writeHead(200, { 'content-length': '5000' });
        res.end('y'.repeat(5000));
      }
    });
    await expect(readBody(await send(url, { timeoutMs: 2_000 }), 4096)).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(
      readBody(await send(url, { timeoutMs: 2_000, headers: { 'x-chunked': '1' } }), 4096),
    ).rejects.toBeInstanceOf(BodyTooLargeError);
    expect((await readBody(await send(url, { timeoutMs: 2_000 }), 5000)).length).toBe(5000);
  });

  it('reports a refused connection as a network error', async () => {
    const url = await serve(() => undefined);
    server?.close();
    server = undefined;
    const error = await send(url, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
  });
});

describe('a registry that trickles its answer', () => {
  it('ends the exchange at its total time limit although no idle limit is ever reached', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const timer = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const error = await send(url, { timeoutMs: 1_000, totalMs: 800 })
      .then((res) => readBody(res, 1024 * 1024))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/did not send its whole answer within 800 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('the proxy of a request', () => {
  it('follows HTTP_PROXY and NO_PROXY from the environment it is given', async () => {
    const url = await serve((req, res) => res.end(`host ${req.headers.host}`));
    const proxy = await startTestProxy({ hosts: { 'registry.proxy-test.invalid': '127.0.0.1' } });
    try {
      const named = new URL(url.href.replace('127.0.0.1', 'registry.proxy-test.invalid'));
      const viaProxy = await readBody(await send(named, { timeoutMs: 2_000, env: { HTTP_PROXY: proxy.url } }), 1024);
      expect(viaProxy.toString()).toBe(`host ${named.host}`);
      expect(proxy.targets()).toEqual([named.host]);
      const direct = await send(named, {
        timeoutMs: 2_000,
        env: { HTTP_PROXY: proxy.url, NO_PROXY: '.proxy-test.invalid' },
      }).catch((e: unknown) => e);
      expect((direct as NetworkError).code).toBe('ENOTFOUND');
      // Loopback is never proxied.
      expect(
        (await readBody(await send(url, { timeoutMs: 2_000, env: { HTTP_PROXY: proxy.url } }), 1024)).toString(),
      ).toBe(`host ${url.host}`);
      expect(proxy.records).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
