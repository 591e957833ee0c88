// Module pulls behind a corporate proxy: the registry is named `registry.proxy-test.invalid`,
// a name only the test proxy resolves (to 127.0.0.1), so a pull that succeeds went through
// the proxy, and one that NO_PROXY sends direct fails to resolve the name without the proxy
// seeing anything. The token service stays on 127.0.0.1, which is never proxied (Go's rule).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OciError, pullModule } from '../../../src/module/oci/index.js';
import {
  pushTimoniModule,
  startRegistry,
  type PushedTimoniModule,
  type RegistryHandle,
} from '../../harness/registry/index.js';
import { writeSampleModule } from '../../harness/registry/sample-module.js';
import { startTestProxy, type TestProxy } from '../../harness/net/connect-proxy.js';
import { selfSignedCertificate } from '../../harness/net/test-certificate.js';
import { expectedTree, fastRetry, readTree } from './registry-fixtures.js';

const NAME = 'registry.proxy-test.invalid';
const proxyUser = { username: 'corp', password: 'proxy-pass-8131' };
const proxyEnvNames = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

let registry: RegistryHandle;
let pushed: PushedTimoniModule;
let moduleDir: string;
let work: string;
let proxy: TestProxy;
let tlsFront: HttpsServer;
let tlsPort: number;
let caFile: string;
let cacheCount = 0;

/** Runs `body` with exactly these proxy variables in process.env, restoring them after. */
async function withProxyEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(proxyEnvNames.map((name) => [name, process.env[name]]));
  for (const name of proxyEnvNames) delete process.env[name];
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const name of proxyEnvNames) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

const proxyWithCredentials = (password = proxyUser.password): string =>
  `http://${proxyUser.username}:${password}@127.0.0.1:${proxy.port}`;
const registryPort = (): string => new URL(registry.url).port;
const pullOptions = () => ({
  env: { PATH: process.env.PATH },
  dockerConfigDir: join(work, 'none'),
  retry: fastRetry,
  cacheDir: join(work, `cache-${(cacheCount += 1)}`),
});

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'oci-proxy-'));
  // Anonymous pulls still take a token from the realm on 127.0.0.1: explicit credentials
  // would not be sent to a realm on another host than the registry's.
  registry = await startRegistry({ auth: 'token', anonymousPull: true });
  moduleDir = await writeSampleModule();
  pushed = await pushTimoniModule({
    registry: registry.url,
    repository: 'modules/sample',
    tag: '1.0.0',
    moduleDir,
    credentials: registry.credentials,
  });
  proxy = await startTestProxy({ hosts: { [NAME]: '127.0.0.1' }, credentials: proxyUser });

  // The same registry over https, for CONNECT: a TLS front with a self-signed certificate.
  const certificate = selfSignedCertificate([NAME]);
  caFile = join(work, 'ca.pem');
  await writeFile(caFile, certificate.cert);
  const upstream = new URL(registry.url);
  tlsFront = createHttpsServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => tlsFront.listen(0, '127.0.0.1', resolve));
  tlsPort = (tlsFront.address() as AddressInfo).port;
});

afterAll(async () => {
  tlsFront?.closeAllConnections();
  await new Promise((resolve) => (tlsFront ? tlsFront.close(resolve) : resolve(undefined)));
  await proxy?.close();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
  if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
});

describe('pulling a module through an HTTP proxy', () => {
  it('sends plain-HTTP registry requests to HTTP_PROXY, with its credentials, and the token service direct', async () => {
    const before = proxy.records.length;
    const registryBefore = registry.requests.length;
    const module = await withProxyEnv({ HTTP_PROXY: proxyWithCredentials() }, () =>
      pullModule(`oci://${NAME}:${registryPort()}/modules/sample`, '1.0.0', pushed.digest, {
        ...pullOptions(),
        insecure: true,
      }),
    );
    expect(await readTree(module.dir)).toEqual(expectedTree(pushed));
    const carried = proxy.records.slice(before);
    expect(carried.map((record) => `${record.kind} ${record.target}`)).toEqual(
      carried.map(() => `forward ${NAME}:${registryPort()}`),
    );
    expect(carried.some((record) => /\/manifests\/1\.0\.0$/.test(record.requestTarget))).toBe(true);
    expect(carried.filter((record) => record.requestTarget.includes('/blobs/'))).toHaveLength(pushed.layers.length);
    expect(
      carried.every(
        (record) =>
          record.proxyAuthorization ===
          `Basic ${Buffer.from(`${proxyUser.username}:${proxyUser.password}`).toString('base64')}`,
      ),
    ).toBe(true);
    // The token endpoint (realm http://127.0.0.1:PORT/token) was reached without the proxy.
    const tokenRequests = registry.requests.slice(registryBefore).filter((request) => request.outcome === 'token');
    expect(tokenRequests.length).toBeGreaterThan(0);
    expect(carried.some((record) => record.requestTarget.includes('/token'))).toBe(false);
  });

  it('pulls from an https registry through a CONNECT tunnel (HTTPS_PROXY set before Node starts)', async () => {
    const before = proxy.records.length;
    // Asynchronous: the proxy and the TLS front run in this process and must keep answering.
    const child = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        join(dirname(fileURLToPath(import.meta.url)), 'proxied-pull-child.ts'),
        JSON.stringify({
          url: `oci://${NAME}:${tlsPort}/modules/sample`,
          version: '1.0.0',
          cacheDir: join(work, 'child-cache'),
        }),
      ],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          HTTPS_PROXY: proxyWithCredentials(),
          NO_PROXY: 'other.example',
          NODE_EXTRA_CA_CERTS: caFile,
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout) as { digest?: string; tree?: Record<string, string>; error?: string };
    expect(result.error).toBeUndefined();
    expect(result.digest).toBe(pushed.digest);
    expect(result.tree).toEqual(expectedTree(pushed));
    const carried = proxy.records.slice(before);
    expect(carried.length).toBeGreaterThan(0);
    expect(
      carried.every(
        (record) => record.kind === 'connect' && record.target === `${NAME}:${tlsPort}` && record.status === 200,
      ),
    ).toBe(true);
  });

  it('connects directly when NO_PROXY names the registry (host, domain, host:port, *), and not for another port', async () => {
    const url = `oci://${NAME}:${registryPort()}/modules/sample`;
    for (const noProxy of [NAME, '.proxy-test.invalid', `other.example, ${NAME}:${registryPort()}`, '*']) {
      const before = proxy.records.length;
      const error = await withProxyEnv({ HTTP_PROXY: proxyWithCredentials(), no_proxy: noProxy }, () =>
        pullModule(url, '1.0.0', undefined, { ...pullOptions(), insecure: true }),
      ).catch((e: unknown) => e);
      expect(error, noProxy).toBeInstanceOf(OciError);
      // Direct, the name does not resolve: proof that the proxy was bypassed.
      expect((error as OciError).message, noProxy).toMatch(/ENOTFOUND/);
      expect((error as OciError).message).toContain(NAME);
      expect(proxy.records.length, noProxy).toBe(before);
    }
    const before = proxy.records.length;
    const module = await withProxyEnv({ HTTP_PROXY: proxyWithCredentials(), NO_PROXY: `${NAME}:1` }, () =>
      pullModule(url, '1.0.0', pushed.digest, { ...pullOptions(), insecure: true }),
    );
    expect(await readTree(module.dir)).toEqual(expectedTree(pushed));
    expect(proxy.records.length).toBeGreaterThan(before);
  });

  it('names the proxy, never its credentials, when the proxy refuses', async () => {
    const wrong = 'wrong-proxy-pass-4242';
    const error = await withProxyEnv({ HTTPS_PROXY: proxyWithCredentials(wrong) }, () =>
      pullModule(`oci://${NAME}:${tlsPort}/modules/sample`, '1.0.0', undefined, pullOptions()),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OciError);
    const message = (error as OciError).message;
    expect(message).toContain(`proxy 127.0.0.1:${proxy.port} refused CONNECT ${NAME}:${tlsPort}: HTTP 407`);
    expect(message).not.toContain(wrong);
    expect(message).not.toContain(proxyUser.username + ':');
  });

  it('refuses a SOCKS proxy with a message that names the variable, not the credentials', async () => {
    const error = await withProxyEnv({ HTTPS_PROXY: 'socks5://corp:socks-secret-77@127.0.0.1:1080' }, () =>
      pullModule(`oci://${NAME}:${tlsPort}/modules/sample`, '1.0.0', undefined, pullOptions()),
    ).catch((e: unknown) => e);
    expect(String(error)).toMatch(
      /HTTPS_PROXY names proxy 127\.0\.0\.1:1080 with scheme socks5:, which is not supported/,
    );
    expect(String(error)).not.toContain('socks-secret-77');
  });
});
