// Authentication with registries: WWW-Authenticate challenges parsed, then pulls from real
// registries in their three set-ups (anonymous, basic auth, bearer tokens from a token
// server), identity tokens traded at the token endpoint, and explicit credentials kept from
// a token realm on another host.
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChallenges, preferredChallenge } from '../../../src/module/oci/auth.js';
import { ModuleClient, OciError, pullModule } from '../../../src/module/oci/index.js';
import {
  pushTimoniModule,
  startRegistry,
  type PushedTimoniModule,
  type RegistryAuthMode,
  type RegistryHandle,
} from '../../harness/registry/index.js';
import { writeSampleModule } from '../../harness/registry/sample-module.js';
import { expectedTree, fastRetry, readTree } from './registry-fixtures.js';

describe('parseChallenges', () => {
  it('reads a Docker Hub bearer challenge', () => {
    const header =
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"';
    expect(parseChallenges(header)).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.docker.io/token',
          service: 'registry.docker.io',
          scope: 'repository:library/nginx:pull',
        },
      },
    ]);
  });

  it('keeps commas inside quoted values and unescapes quoted pairs', () => {
    const [challenge] = parseChallenges(
      'Bearer realm="https://a/token", scope="repository:a/b:pull,push", error="say \\"hi\\""',
    );
    expect(challenge?.params.scope).toBe('repository:a/b:pull,push');
    expect(challenge?.params.error).toBe('say "hi"');
  });

  it('reads several challenges in one header and unquoted values', () => {
    const challenges = parseChallenges('Basic realm="Registry Realm", Bearer realm=https://auth/token, service=reg');
    expect(challenges.map((c) => c.scheme)).toEqual(['basic', 'bearer']);
    expect(challenges[1]?.params).toEqual({ realm: 'https://auth/token', service: 'reg' });
    expect(preferredChallenge(challenges)?.scheme).toBe('bearer');
  });

  it('treats scheme and parameter names case-insensitively', () => {
    const [challenge] = parseChallenges('BASIC Realm="r"');
    expect(challenge).toEqual({ scheme: 'basic', params: { realm: 'r' } });
  });

  it('returns nothing for an empty header and skips junk', () => {
    expect(parseChallenges('')).toEqual([]);
    expect(parseChallenges('=junk, Basic realm="x"')).toEqual([{ scheme: 'basic', params: { realm: 'x' } }]);
  });
});

// Pulls a Timoni module from a real registry (distribution v3) in its three set-ups:
// anonymous, basic auth (htpasswd) and bearer tokens from a token server, with
// credentials from --creds and from docker config.json; wrong or missing credentials
// fail with the credential source named and the secret absent.
describe('pulls with credentials', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'oci-pull-auth-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  async function dockerConfig(name: string, config: unknown): Promise<string> {
    const dir = join(work, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
    return dir;
  }

  let caches = 0;
  /** No docker config, no GITHUB_TOKEN, and a fresh cache folder inside the test's folder. */
  const noConfig = (): { env: NodeJS.ProcessEnv; dockerConfigDir: string; cacheDir: string } => ({
    env: { PATH: process.env.PATH },
    dockerConfigDir: join(work, 'no-docker-config'),
    cacheDir: join(work, `cache-${++caches}`),
  });

  describe.each<RegistryAuthMode>(['anonymous', 'basic', 'token'])('pulling from a registry with %s access', (auth) => {
    let registry: RegistryHandle;
    let pushed: PushedTimoniModule;
    let moduleDir: string;
    let creds: string | undefined;

    beforeAll(async () => {
      registry = await startRegistry({ auth });
      moduleDir = await writeSampleModule();
      pushed = await pushTimoniModule({
        registry: registry.url,
        repository: 'modules/sample',
        tag: '1.0.0',
        moduleDir,
        credentials: registry.credentials,
      });
      creds = registry.credentials ? `${registry.credentials.username}:${registry.credentials.password}` : undefined;
    });
    afterAll(async () => {
      await registry?.stop();
      if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
    });

    it('extracts every layer into one folder and reports digest, version and repository', async () => {
      const masked: string[] = [];
      const module = await pullModule(pushed.url, '1.0.0', undefined, {
        ...noConfig(),
        credentials: creds,
        secrets: (v) => masked.push(v),
      });
      expect(module.digest).toBe(pushed.digest);
      expect(module.version).toBe('1.0.0');
      expect(module.repository).toBe(`oci://${registry.host}/modules/sample`);
      expect(module.reference).toBe(`oci://${registry.host}/modules/sample@${pushed.digest}`);
      expect(module.annotations['org.opencontainers.image.version']).toBe('1.0.0');
      const tree = await readTree(module.dir);
      expect(tree).toEqual(expectedTree(pushed));
      expect(tree['cue.mod/module.cue']).toContain('timoni.sh/sample');
      expect(tree['timoni.cue']).toContain('package main');
      if (auth === 'anonymous') {
        expect(registry.requests.every((r) => r.authorization === 'none')).toBe(true);
      } else {
        expect(masked).toContain(registry.credentials?.password);
        const scheme = auth === 'basic' ? 'basic' : 'bearer';
        expect(
          registry.requests.some(
            (r) =>
              r.path.startsWith('/v2/modules/sample/manifests/1.0.0') && r.authorization === scheme && r.status === 200,
          ),
        ).toBe(true);
      }
    });

    if (auth === 'anonymous') return;

    it('reads the credentials from docker config.json', async () => {
      const configDir = await dockerConfig(`config-${auth}`, {
        auths: { [registry.host]: { auth: Buffer.from(creds ?? '').toString('base64') } },
      });
      const module = await pullModule(pushed.url, '1.0.0', undefined, {
        env: { PATH: process.env.PATH },
        dockerConfigDir: configDir,
        cacheDir: join(work, `cache-${++caches}`),
      });
      expect(module.digest).toBe(pushed.digest);
    });

    it('fails without credentials, naming where it looked', async () => {
      const error = await pullModule(pushed.url, '1.0.0', undefined, { ...noConfig(), retry: fastRetry }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OciError);
      expect((error as OciError).code).toBe('unauthorized');
      expect((error as OciError).message).toMatch(
        new RegExp(
          `^oci://${registry.host.replace(/\./g, '\\.')}/modules/sample:1\\.0\\.0: unauthorised \\(401\\) by ${registry.host.replace(/\./g, '\\.')}( \\([^)]*\\))?: the registry requires credentials; `,
        ),
      );
      expect((error as OciError).message).toContain(
        `no credentials (none configured for ${registry.host}; checked --creds, docker config ${join(work, 'no-docker-config', 'config.json')} (absent))`,
      );
    });

    it('fails with a wrong password, naming the credential source but never the secret', async () => {
      const wrong = 'wrong-password-d41d8cd98f';
      const fromFlag = await pullModule(pushed.url, '1.0.0', undefined, {
        ...noConfig(),
        credentials: `${registry.credentials?.username}:${wrong}`,
        retry: fastRetry,
      }).catch((e: unknown) => e);
      expect(fromFlag).toBeInstanceOf(OciError);
      expect((fromFlag as OciError).code).toBe('unauthorized');
      expect((fromFlag as OciError).message).toContain(
        `it rejected user "${registry.credentials?.username}" from --creds`,
      );
      expect((fromFlag as OciError).message).not.toContain(wrong);
      expect((fromFlag as OciError).message).not.toContain(
        Buffer.from(`${registry.credentials?.username}:${wrong}`).toString('base64'),
      );

      const configDir = await dockerConfig(`wrong-${auth}`, {
        auths: { [`https://${registry.host}`]: { username: registry.credentials?.username, password: wrong } },
      });
      const fromConfig = await pullModule(pushed.url, '1.0.0', undefined, {
        env: { PATH: process.env.PATH },
        dockerConfigDir: configDir,
        retry: fastRetry,
        cacheDir: join(work, `cache-${++caches}`),
      }).catch((e: unknown) => e);
      expect((fromConfig as OciError).message).toContain(
        `from docker config ${join(configDir, 'config.json')} (auths["https://${registry.host}"])`,
      );
      expect(String(fromConfig)).not.toContain(wrong);
      expect(JSON.stringify(fromConfig)).not.toContain(wrong);
    });

    it('sends a bare --creds token as a bearer token, and never prints it', async () => {
      const token = 'bare-token-0123456789abcdef';
      const masked: string[] = [];
      registry.clearRequests();
      const error = await pullModule(pushed.url, '1.0.0', undefined, {
        ...noConfig(),
        credentials: token,
        secrets: (v) => masked.push(v),
        retry: fastRetry,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OciError);
      expect((error as OciError).message).toContain('it rejected a bearer token from --creds');
      expect((error as OciError).message).not.toContain(token);
      expect(masked).toContain(token);
      // sent to the registry itself, not exchanged at the token endpoint
      expect(
        registry.requests.some(
          (r) => r.path.startsWith('/v2/modules/sample/manifests/') && r.authorization === 'bearer',
        ),
      ).toBe(true);
      expect(registry.requests.filter((r) => r.outcome === 'token')).toHaveLength(0);
    });

    it('reuses one token for manifest and blobs', async () => {
      registry.clearRequests();
      const client = new ModuleClient({ ...noConfig(), credentials: creds });
      await client.pull(pushed.url, '1.0.0');
      const tokenRequests = registry.requests.filter((r) => r.outcome === 'token');
      const unauthorised = registry.requests.filter((r) => r.status === 401);
      expect(unauthorised).toHaveLength(1); // the first request learns the challenge
      expect(tokenRequests).toHaveLength(auth === 'token' ? 1 : 0);
      expect(registry.requests.filter((r) => r.path.includes('/blobs/') && r.status === 200)).toHaveLength(2);
    });
  });

  describe('a token registry that hands out anonymous pull tokens', () => {
    let registry: RegistryHandle;
    let pushed: PushedTimoniModule;
    let moduleDir: string;

    beforeAll(async () => {
      registry = await startRegistry({ auth: 'token', anonymousPull: true });
      moduleDir = await writeSampleModule();
      pushed = await pushTimoniModule({
        registry: registry.url,
        repository: 'public/sample',
        tag: '0.1.0',
        moduleDir,
        credentials: registry.credentials,
      });
    });
    afterAll(async () => {
      await registry?.stop();
      if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
    });

    it('pulls with a token fetched without credentials', async () => {
      registry.clearRequests();
      const module = await pullModule(pushed.url, '0.1.0', undefined, noConfig());
      expect(module.digest).toBe(pushed.digest);
      const token = registry.requests.filter((r) => r.outcome === 'token');
      expect(token).toHaveLength(1);
      expect(token[0]?.authorization).toBe('none');
      expect(token[0]?.path).toContain('scope=repository%3Apublic%2Fsample%3Apull');
    });
  });

  describe('a token registry whose tokens live two seconds', () => {
    let registry: RegistryHandle;
    let moduleDir: string;
    let url: string;

    beforeAll(async () => {
      registry = await startRegistry({ auth: 'token', tokenLifetimeSeconds: 2 });
      moduleDir = await writeSampleModule();
      const credentials = registry.credentials;
      await pushTimoniModule({
        registry: registry.url,
        repository: 'modules/short',
        tag: '1.0.0',
        moduleDir,
        credentials,
      });
      url = (
        await pushTimoniModule({
          registry: registry.url,
          repository: 'modules/short',
          tag: '1.1.0',
          moduleDir,
          credentials,
          annotations: { build: 'two' },
        })
      ).url;
    });
    afterAll(async () => {
      await registry?.stop();
      if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
    });

    it('fetches a new token once the cached one expires, without another 401', async () => {
      registry.clearRequests();
      const client = new ModuleClient({
        ...noConfig(),
        credentials: `${registry.credentials?.username}:${registry.credentials?.password}`,
      });
      await client.pull(url, '1.0.0');
      expect(registry.requests.filter((r) => r.outcome === 'token')).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const second = await client.pull(url, '1.1.0');
      expect(second.annotations.build).toBe('two');
      expect(registry.requests.filter((r) => r.outcome === 'token')).toHaveLength(2);
      expect(registry.requests.filter((r) => r.status === 401)).toHaveLength(1);
    });
  });
});

// Identity tokens (docker config `identitytoken`, or a helper's `<token>` user) are OAuth2
// refresh tokens: the client POSTs them to the token endpoint (grant_type=refresh_token)
// instead of sending Basic credentials. The test registry's token service speaks only the
// password grant, so a front server before the real token registry points the challenge
// at itself and trades a known refresh token for a real token from that service.
describe('identity tokens', () => {
  const REFRESH_TOKEN = 'refresh-0f8e7d6c5b4a39281706';
  let registry: RegistryHandle;
  let pushed: PushedTimoniModule;
  let moduleDir: string;
  let work: string;
  let front: Server;
  let frontHost: string;
  const forms: URLSearchParams[] = [];

  function collect(stream: NodeJS.ReadableStream): Promise<string> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'oci-identity-'));
    registry = await startRegistry({ auth: 'token' });
    moduleDir = await writeSampleModule();
    pushed = await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/sample',
      tag: '1.0.0',
      moduleDir,
      credentials: registry.credentials,
    });
    const upstream = new URL(registry.url);
    const basic = Buffer.from(`${registry.credentials?.username}:${registry.credentials?.password}`).toString('base64');

    front = createServer((req, res) => {
      if (req.url?.startsWith('/token')) {
        void collect(req).then((body) => {
          const form = new URLSearchParams(body);
          forms.push(form);
          if (
            req.method !== 'POST' ||
            form.get('grant_type') !== 'refresh_token' ||
            form.get('refresh_token') !== REFRESH_TOKEN
          ) {
            res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
            return;
          }
          const query = new URLSearchParams({ service: form.get('service') ?? '', scope: form.get('scope') ?? '' });
          httpRequest(
            {
              host: upstream.hostname,
              port: upstream.port,
              path: `/token?${query}`,
              headers: { authorization: `Basic ${basic}` },
            },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
              answer.pipe(res);
            },
          ).end();
        });
        return;
      }
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const headers = { ...answer.headers };
          if (typeof headers['www-authenticate'] === 'string')
            headers['www-authenticate'] = headers['www-authenticate'].replace(
              `${registry.url}/token`,
              `http://${frontHost}/token`,
            );
          res.writeHead(answer.statusCode ?? 502, headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    frontHost = `127.0.0.1:${(front.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    front?.closeAllConnections();
    await new Promise((resolve) => front?.close(resolve));
    await registry?.stop();
    await rm(work, { recursive: true, force: true });
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  async function configWith(name: string, refreshToken: string): Promise<string> {
    const dir = join(work, name);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({
        auths: { [frontHost]: { auth: Buffer.from('<token>:').toString('base64'), identitytoken: refreshToken } },
      }),
    );
    return dir;
  }

  describe('identity tokens', () => {
    it('trades the identity token at the token endpoint with a refresh_token grant', async () => {
      const masked: string[] = [];
      const dockerConfigDir = await configWith('good', REFRESH_TOKEN);
      const module = await pullModule(`oci://${frontHost}/modules/sample`, '1.0.0', undefined, {
        env: { PATH: process.env.PATH },
        dockerConfigDir,
        cacheDir: join(work, 'cache-good'),
        secrets: (v) => masked.push(v),
      });
      expect(module.digest).toBe(pushed.digest);
      const form = forms.at(-1);
      expect(form?.get('grant_type')).toBe('refresh_token');
      expect(form?.get('service')).toBe('timoni-fleet-test-registry');
      expect(form?.get('scope')).toBe('repository:modules/sample:pull');
      expect(form?.get('client_id')).toBe('timoni-fleet');
      expect(masked).toContain(REFRESH_TOKEN);
    });

    it('names the identity token and its source when the endpoint refuses it, without printing it', async () => {
      const wrong = 'refresh-wrong-99887766554433';
      const dockerConfigDir = await configWith('bad', wrong);
      const error = await pullModule(`oci://${frontHost}/modules/sample`, '1.0.0', undefined, {
        env: { PATH: process.env.PATH },
        dockerConfigDir,
        cacheDir: join(work, 'cache-bad'),
        retry: fastRetry,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OciError);
      expect((error as OciError).code).toBe('unauthorized');
      expect((error as OciError).message).toContain(
        `unauthorised (401) by ${frontHost} (token endpoint http://${frontHost}/token): it rejected an identity token from docker config ${join(dockerConfigDir, 'config.json')} (auths["${frontHost}"])`,
      );
      expect((error as OciError).message).not.toContain(wrong);
    });
  });
});

// A registry chooses where its token service is (the realm of its Bearer challenge). A
// pull request that names a registry could point the realm anywhere: explicit credentials
// are only sent to a realm on the registry's own host, or on a host that has an entry of
// its own. Two small servers on two loopback addresses stand in for the registry and a
// token service elsewhere; the token service records what it was sent.
describe('token realms', () => {
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
      res.writeHead(401, {
        'www-authenticate': `Bearer realm="http://${realmHost}/token",service="elsewhere"`,
        'content-type': 'application/json',
      });
      res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
    });
  });
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  const options = () => ({
    env: { PATH: process.env.PATH },
    dockerConfigDir: join(tmpdir(), 'no-docker-config'),
    cacheDir: mkdtempSync(join(tmpdir(), 'realm-cache-')),
    retry: fastRetry,
  });

  describe('a token realm on another host than the registry', () => {
    it('gets no explicit credentials without an entry of its own', async () => {
      tokenRequests.length = 0;
      await pullModule(`oci://${registryHost}/modules/app`, '1.0.0', undefined, {
        ...options(),
        hostCredentials: { [registryHost]: 'robot:realm-sentinel-pw' },
      }).catch(() => undefined);
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
});
