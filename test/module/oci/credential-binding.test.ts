// Explicit registry credentials are bound to the registry host they were given for (the
// action's `registry-creds`): a pull request that points a module at another registry
// never gets them, against a real registry with basic auth and one with a token server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OciError, pullModule } from '../../../src/module/oci/index.js';
import { pushTimoniModule, startRegistry, type PushedTimoniModule, type RegistryHandle } from '../../registry/index.js';
import { writeSampleModule } from '../../registry/sample-module.js';
import { fastRetry } from './registry-fixtures.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'oci-binding-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let caches = 0;
const options = () => ({ env: { PATH: process.env.PATH }, dockerConfigDir: join(work, 'none'), cacheDir: join(work, `cache-${++caches}`), retry: fastRetry });

describe.each(['basic', 'token'] as const)('registry-creds with %s auth', (auth) => {
  let registry: RegistryHandle;
  let pushed: PushedTimoniModule;
  let creds: string;
  let moduleDir: string | undefined;
  beforeAll(async () => {
    registry = await startRegistry({ auth });
    moduleDir = await writeSampleModule();
    pushed = await pushTimoniModule({ registry: registry.url, repository: 'modules/sample', tag: '1.0.0', moduleDir, credentials: registry.credentials });
    creds = `${registry.credentials?.username}:${registry.credentials?.password}`;
  });
  afterAll(async () => {
    await registry?.stop();
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  it('answers the challenge of the host they are bound to', async () => {
    const module = await pullModule(pushed.url, '1.0.0', undefined, { ...options(), hostCredentials: { [registry.host]: creds } });
    expect(module.digest).toBe(pushed.digest);
  });

  it('never sends them to another registry: the request log shows no credentials at all', async () => {
    registry.clearRequests();
    const before = registry.requests.length;
    const error = await pullModule(pushed.url, '1.0.0', undefined, { ...options(), hostCredentials: { 'ghcr.io': creds } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OciError);
    expect((error as OciError).message).toContain(`registry-creds (no entry for ${registry.host})`);
    const sent = registry.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    // Nothing carried the user and password: no Basic auth to the registry, none to its token
    // service (a bearer token, if any, is the anonymous one the token service hands anyone).
    expect(sent.filter((request) => request.authorization === 'basic').map((request) => request.path)).toEqual([]);
    expect(sent.filter((request) => request.path.startsWith('/token')).every((request) => request.authorization === 'none')).toBe(true);
  });
});
