// Blob downloads that registries redirect to storage (S3, GCS, a CDN): the client follows
// the redirect without the registry's Authorization header and still verifies every byte.
// A small front server sits before the real token-auth registry and, once the registry has
// accepted a blob request, answers it with a 307 to a storage server run by this test.
// Registry errors are read in the distribution error format.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OciError, pullModule } from '../../../src/module/oci/index.js';
import { registryErrorText } from '../../../src/module/oci/registry-client.js';
import {
  pushTimoniModule,
  startRegistry,
  type PushedTimoniModule,
  type RegistryHandle,
} from '../../harness/registry/index.js';
import { writeSampleModule } from '../../harness/registry/sample-module.js';
import { expectedTree, fastRetry, readTree } from './registry-fixtures.js';

let registry: RegistryHandle;
let pushed: PushedTimoniModule;
let moduleDir: string;
let work: string;
let front: Server;
let storage: Server;
let frontHost: string;
const storageRequests: IncomingHttpHeaders[] = [];
const frontBlobAuthorization: Array<string | undefined> = [];
let corrupt = false;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'oci-redirect-'));
  registry = await startRegistry({ auth: 'token' });
  moduleDir = await writeSampleModule();
  pushed = await pushTimoniModule({
    registry: registry.url,
    repository: 'modules/sample',
    tag: '1.0.0',
    moduleDir,
    credentials: registry.credentials,
  });
  const blobs = new Map(
    pushed.layers.map((layer) => [`sha256:${createHash('sha256').update(layer.gzip).digest('hex')}`, layer.gzip]),
  );

  storage = createServer((req, res) => {
    storageRequests.push(req.headers);
    const digest = new URL(req.url ?? '/', 'http://storage').pathname.replace('/objects/', '');
    const blob = blobs.get(digest);
    if (!blob) {
      res.writeHead(404).end();
      return;
    }
    const body = corrupt ? Buffer.from(blob).fill(0x41, 20, 40) : blob;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  const storagePort = await listen(storage);

  const upstream = new URL(registry.url);
  front = createServer((req, res) => {
    const isBlob = req.method === 'GET' && /\/v2\/.+\/blobs\/sha256:/.test(req.url ?? '');
    if (isBlob) frontBlobAuthorization.push(req.headers.authorization);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        if (isBlob && answer.statusCode === 200) {
          answer.resume();
          const digest = (req.url ?? '').split('/blobs/')[1];
          res
            .writeHead(307, { location: `http://127.0.0.1:${storagePort}/objects/${digest}?X-Signature=presigned` })
            .end();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  frontHost = `127.0.0.1:${await listen(front)}`;
});

afterAll(async () => {
  front?.closeAllConnections();
  storage?.closeAllConnections();
  await new Promise((resolve) => front?.close(resolve));
  await new Promise((resolve) => storage?.close(resolve));
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
  if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
});

describe('blob redirects', () => {
  const creds = (): string => `${registry.credentials?.username}:${registry.credentials?.password}`;
  const options = (cache: string) => ({
    env: { PATH: process.env.PATH },
    dockerConfigDir: join(work, 'none'),
    credentials: creds(),
    retry: fastRetry,
    cacheDir: join(work, cache),
  });

  it('follows the redirect to storage without the Authorization header', async () => {
    const module = await pullModule(`oci://${frontHost}/modules/sample`, '1.0.0', pushed.digest, options('ok'));
    expect(await readTree(module.dir)).toEqual(expectedTree(pushed));
    expect(frontBlobAuthorization.length).toBe(pushed.layers.length);
    expect(frontBlobAuthorization.every((header) => header?.startsWith('Bearer '))).toBe(true);
    expect(storageRequests).toHaveLength(pushed.layers.length);
    expect(storageRequests.map((headers) => headers.authorization)).toEqual(pushed.layers.map(() => undefined));
  });

  it('verifies what storage sends against the layer digest', async () => {
    corrupt = true;
    try {
      const error = await pullModule(`oci://${frontHost}/modules/sample`, '1.0.0', undefined, options('corrupt')).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OciError);
      expect((error as OciError).code).toBe('digest-mismatch');
      expect((error as OciError).message).toMatch(
        new RegExp(
          `^oci://${frontHost.replace(/\./g, '\\.')}/modules/sample:1\\.0\\.0: blob sha256:[a-f0-9]{64} failed verification: its content hashes to sha256:[a-f0-9]{64}$`,
        ),
      );
      expect((error as OciError).message).not.toContain(registry.credentials?.password ?? 'never');
    } finally {
      corrupt = false;
    }
  });
});

describe('registryErrorText', () => {
  it('reads the distribution error format', () => {
    expect(
      registryErrorText(
        Buffer.from('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{}}]}'),
      ),
    ).toBe('MANIFEST_UNKNOWN: manifest unknown');
    expect(registryErrorText(Buffer.from('{"errors":[{"code":"DENIED"}]}'))).toBe('DENIED');
    expect(registryErrorText(Buffer.from('<html>bad gateway</html>'))).toBe('');
  });
});
