// The request log and failure injection of the registry's proxy: counting pulls, and
// failing requests with a reset or a status so that retry logic can be tested.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pullArtifact, pullManifest } from './pull.js';
import { startRegistry, type RegistryHandle } from './registry.js';
import { writeSampleModule } from './sample-module.js';
import { pushTimoniModule, type PushedTimoniModule } from './timoni-module.js';

let registry: RegistryHandle;
let moduleDir: string;
let pushed: PushedTimoniModule;

beforeAll(async () => {
  registry = await startRegistry({ auth: 'token' });
  moduleDir = await writeSampleModule();
  pushed = await pushTimoniModule({
    registry: registry.url,
    repository: 'log/sample',
    tag: '1.0.0',
    moduleDir,
    credentials: registry.credentials,
  });
});
afterAll(async () => {
  await registry?.stop();
  if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
});
beforeEach(() => {
  registry.clearRequests();
});

const pull = (reference = '1.0.0') =>
  pullArtifact({ registry: registry.url, repository: 'log/sample', reference, credentials: registry.credentials });
const manifestGets = () =>
  registry.requests.filter(
    (request) => request.method === 'GET' && request.path.startsWith('/v2/log/sample/manifests/'),
  );
const blobGets = () =>
  registry.requests.filter((request) => request.method === 'GET' && request.path.startsWith('/v2/log/sample/blobs/'));

describe('request log', () => {
  it('counts one manifest and three blob downloads for one pull, with the scheme used and no secret', async () => {
    await pull();
    expect(manifestGets()).toHaveLength(2); // the first is refused (401) and answered with a token
    expect(manifestGets().map((request) => [request.status, request.authorization])).toEqual([
      [401, 'none'],
      [200, 'bearer'],
    ]);
    expect(blobGets().map((request) => request.path)).toEqual([
      `/v2/log/sample/blobs/${pushed.manifest.config.digest}`,
      ...pushed.manifest.layers.map((layer) => `/v2/log/sample/blobs/${layer.digest}`),
    ]);
    expect(blobGets().every((request) => request.status === 200 && request.outcome === 'forwarded')).toBe(true);
    const token = registry.requests.filter((request) => request.outcome === 'token');
    expect(token).toHaveLength(1);
    expect(token[0]?.path).toContain('scope=repository%3Alog%2Fsample%3Apull');
    const logged = JSON.stringify(registry.requests);
    expect(logged).not.toContain(registry.credentials?.password);
    expect(registry.requests.map((request) => request.seq)).toEqual(
      registry.requests.map((_request, index) => index + 1),
    );
  });

  it('starts again from empty after clearRequests', async () => {
    await pullManifest({
      registry: registry.url,
      repository: 'log/sample',
      reference: '1.0.0',
      credentials: registry.credentials,
    });
    expect(manifestGets().filter((request) => request.status === 200)).toHaveLength(1);
    registry.clearRequests();
    expect(registry.requests).toHaveLength(0);
  });
});

describe('failure injection', () => {
  it('resets the connection of the next matching request, then lets requests through', async () => {
    registry.failNext({
      count: 1,
      mode: 'reset',
      match: (request) => request.method === 'GET' && request.path.includes('/blobs/'),
    });
    await expect(pull()).rejects.toThrow(
      /fetching the config of log\/sample:1\.0\.0: GET .* failed: (socket hang up|read ECONNRESET)/,
    );
    const reset = registry.requests.filter((request) => request.outcome === 'injected-reset');
    expect(reset).toHaveLength(1);
    expect(reset[0]).toMatchObject({ status: 0, method: 'GET' });
    expect(reset[0]?.path).toContain('/blobs/');

    const again = await pull();
    expect(again.digest).toBe(pushed.digest);
  });

  it('answers the next requests with the given status, counting down', async () => {
    registry.failNext({
      count: 2,
      mode: 'status',
      status: 503,
      match: (request) => request.path.startsWith('/v2/log/sample/manifests/'),
    });
    await expect(pull()).rejects.toMatchObject({ status: 503 });
    await expect(pull()).rejects.toMatchObject({ status: 503 });
    await expect(pull()).resolves.toMatchObject({ digest: pushed.digest });
    const injected = registry.requests.filter((request) => request.outcome === 'injected-status');
    expect(injected.map((request) => request.status)).toEqual([503, 503]);
  });

  it('fails the token endpoint too when asked, with 503 by default', async () => {
    registry.failNext({ count: 1, mode: 'status', match: (request) => request.path.startsWith('/token') });
    await expect(pull()).rejects.toMatchObject({ status: 503 });
    expect(
      registry.requests
        .filter((request) => request.outcome === 'injected-status')
        .map((request) => request.path.split('?')[0]),
    ).toEqual(['/token']);
  });

  it('truncates the body of the next registry answer after sending its headers', async () => {
    registry.failNext({ count: 1, mode: 'truncate', match: (request) => request.path.includes('/blobs/') });
    await expect(pull()).rejects.toThrow(
      /fetching the config of log\/sample:1\.0\.0: (reading the answer to GET .* failed: aborted|GET .* failed: (socket hang up|read ECONNRESET))/,
    );
    const truncated = registry.requests.filter((request) => request.outcome === 'injected-truncate');
    expect(truncated).toHaveLength(1);
    expect(truncated[0]?.path).toBe(`/v2/log/sample/blobs/${pushed.manifest.config.digest}`);

    // Token requests do not use up a truncation.
    registry.failNext({ count: 1, mode: 'truncate' });
    const response = await fetch(
      `${registry.url}/token?service=timoni-fleet-test-registry&scope=repository:log/sample:pull`,
    );
    expect(response.status).toBe(200);
    await expect(fetch(`${registry.url}/v2/`).then((answer) => answer.text())).rejects.toThrow();
    await expect(pull()).resolves.toMatchObject({ digest: pushed.digest });
  });

  it('fails any request when no match is given, and refuses a count below one', async () => {
    registry.failNext({ count: 1, mode: 'status', status: 500 });
    const response = await fetch(`${registry.url}/v2/`);
    expect(response.status).toBe(500);
    expect(await response.text()).toContain('failure injected');
    expect((await fetch(`${registry.url}/v2/`)).status).toBe(401);
    expect(() => registry.failNext({ count: 0, mode: 'reset' })).toThrow(/positive integer/);
  });
});
