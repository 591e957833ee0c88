// A registry chooses where its token service is (the realm of its Bearer challenge). A
// pull request that names a registry could point the realm anywhere: explicit credentials
// are only sent to a realm on the registry's own host, or on a host that has an entry of
// its own. Two small servers on two loopback addresses stand in for the registry and a
// token service elsewhere; the token service records what it was sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullModule } from '../../../src/module/oci/index.js';
import { fastRetry } from './registry-fixtures.js';

const servers: Server[] = [];
const tokenRequests: Array<string | undefined> = [];
let registryHost = '';
let realmHost = '';

async function listen(host: string, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `${host}:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  realmHost = await listen('127.0.0.2', (req, res) => {
    tokenRequests.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: 'anonymous-token-from-elsewhere' }));
  });
  registryHost = await listen('127.0.0.1', (_req, res) => {
    res.writeHead(401, { 'www-authenticate': `Bearer realm="http://${realmHost}/token",service="elsewhere"`, 'content-type': 'application/json' });
    res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
  });
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

const options = () => ({ env: { PATH: process.env.PATH }, dockerConfigDir: join(tmpdir(), 'no-docker-config'), cacheDir: mkdtempSync(join(tmpdir(), 'realm-cache-')), retry: fastRetry });

describe('a token realm on another host than the registry', () => {
  it('gets no explicit credentials without an entry of its own', async () => {
    tokenRequests.length = 0;
    await pullModule(`oci://${registryHost}/modules/app`, '1.0.0', undefined, { ...options(), hostCredentials: { [registryHost]: 'robot:realm-sentinel-pw' } }).catch(() => undefined);
    expect(tokenRequests.length).toBeGreaterThan(0);
    expect(tokenRequests.every((header) => header === undefined)).toBe(true);
  });

  it('gets the credentials of its own entry when the workflow lists it', async () => {
    tokenRequests.length = 0;
    await pullModule(`oci://${registryHost}/modules/app`, '1.0.0', undefined, {
      ...options(),
      hostCredentials: { [registryHost]: 'robot:realm-sentinel-pw', [realmHost]: 'realm-user:realm-own-pw' },
    }).catch(() => undefined);
    expect(tokenRequests).toContain(`Basic ${Buffer.from('realm-user:realm-own-pw').toString('base64')}`);
    expect(tokenRequests.join(' ')).not.toContain(Buffer.from('robot:realm-sentinel-pw').toString('base64'));
  });
});
