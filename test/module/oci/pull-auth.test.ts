// Pulls a Timoni module from a real registry (distribution v3) in its three set-ups:
// anonymous, basic auth (htpasswd) and bearer tokens from a token server, with
// credentials from --creds and from docker config.json; wrong or missing credentials
// fail with the credential source named and the secret absent.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModuleClient, OciError, pullModule } from '../../../src/module/oci/index.js';
import { pushTimoniModule, startRegistry, type PushedTimoniModule, type RegistryAuthMode, type RegistryHandle } from '../../registry/index.js';
import { writeSampleModule } from '../../registry/sample-module.js';
import { expectedTree, fastRetry, readTree } from './registry-fixtures.js';

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
    pushed = await pushTimoniModule({ registry: registry.url, repository: 'modules/sample', tag: '1.0.0', moduleDir, credentials: registry.credentials });
    creds = registry.credentials ? `${registry.credentials.username}:${registry.credentials.password}` : undefined;
  });
  afterAll(async () => {
    await registry?.stop();
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  it('extracts every layer into one folder and reports digest, version and repository', async () => {
    const masked: string[] = [];
    const module = await pullModule(pushed.url, '1.0.0', undefined, { ...noConfig(), credentials: creds, secrets: (v) => masked.push(v) });
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
      expect(registry.requests.some((r) => r.path.startsWith('/v2/modules/sample/manifests/1.0.0') && r.authorization === scheme && r.status === 200)).toBe(true);
    }
  });

  if (auth === 'anonymous') return;

  it('reads the credentials from docker config.json', async () => {
    const configDir = await dockerConfig(`config-${auth}`, {
      auths: { [registry.host]: { auth: Buffer.from(creds ?? '').toString('base64') } },
    });
    const module = await pullModule(pushed.url, '1.0.0', undefined, { env: { PATH: process.env.PATH }, dockerConfigDir: configDir, cacheDir: join(work, `cache-${++caches}`) });
    expect(module.digest).toBe(pushed.digest);
  });

  it('fails without credentials, naming where it looked', async () => {
    const error = await pullModule(pushed.url, '1.0.0', undefined, { ...noConfig(), retry: fastRetry }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OciError);
    expect((error as OciError).code).toBe('unauthorized');
    expect((error as OciError).message).toMatch(new RegExp(`^oci://${registry.host.replace(/\./g, '\\.')}/modules/sample:1\\.0\\.0: unauthorised \\(401\\) by ${registry.host.replace(/\./g, '\\.')}( \\([^)]*\\))?: the registry requires credentials; `));
    expect((error as OciError).message).toContain(`no credentials (none configured for ${registry.host}; checked --creds, docker config ${join(work, 'no-docker-config', 'config.json')} (absent))`);
  });

  it('fails with a wrong password, naming the credential source but never the secret', async () => {
    const wrong = 'wrong-password-d41d8cd98f';
    const fromFlag = await pullModule(pushed.url, '1.0.0', undefined, { ...noConfig(), credentials: `${registry.credentials?.username}:${wrong}`, retry: fastRetry }).catch((e: unknown) => e);
    expect(fromFlag).toBeInstanceOf(OciError);
    expect((fromFlag as OciError).code).toBe('unauthorized');
    expect((fromFlag as OciError).message).toContain(`it rejected user "${registry.credentials?.username}" from --creds`);
    expect((fromFlag as OciError).message).not.toContain(wrong);
    expect((fromFlag as OciError).message).not.toContain(Buffer.from(`${registry.credentials?.username}:${wrong}`).toString('base64'));

    const configDir = await dockerConfig(`wrong-${auth}`, { auths: { [`https://${registry.host}`]: { username: registry.credentials?.username, password: wrong } } });
    const fromConfig = await pullModule(pushed.url, '1.0.0', undefined, { env: { PATH: process.env.PATH }, dockerConfigDir: configDir, retry: fastRetry, cacheDir: join(work, `cache-${++caches}`) }).catch((e: unknown) => e);
    expect((fromConfig as OciError).message).toContain(`from docker config ${join(configDir, 'config.json')} (auths["https://${registry.host}"])`);
    expect(String(fromConfig)).not.toContain(wrong);
    expect(JSON.stringify(fromConfig)).not.toContain(wrong);
  });

  it('sends a bare --creds token as a bearer token, and never prints it', async () => {
    const token = 'bare-token-0123456789abcdef';
    const masked: string[] = [];
    registry.clearRequests();
    const error = await pullModule(pushed.url, '1.0.0', undefined, { ...noConfig(), credentials: token, secrets: (v) => masked.push(v), retry: fastRetry }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OciError);
    expect((error as OciError).message).toContain('it rejected a bearer token from --creds');
    expect((error as OciError).message).not.toContain(token);
    expect(masked).toContain(token);
    // sent to the registry itself, not exchanged at the token endpoint
    expect(registry.requests.some((r) => r.path.startsWith('/v2/modules/sample/manifests/') && r.authorization === 'bearer')).toBe(true);
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
    pushed = await pushTimoniModule({ registry: registry.url, repository: 'public/sample', tag: '0.1.0', moduleDir, credentials: registry.credentials });
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
    await pushTimoniModule({ registry: registry.url, repository: 'modules/short', tag: '1.0.0', moduleDir, credentials });
    url = (await pushTimoniModule({ registry: registry.url, repository: 'modules/short', tag: '1.1.0', moduleDir, credentials, annotations: { build: 'two' } })).url;
  });
  afterAll(async () => {
    await registry?.stop();
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  it('fetches a new token once the cached one expires, without another 401', async () => {
    registry.clearRequests();
    const client = new ModuleClient({ ...noConfig(), credentials: `${registry.credentials?.username}:${registry.credentials?.password}` });
    await client.pull(url, '1.0.0');
    expect(registry.requests.filter((r) => r.outcome === 'token')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const second = await client.pull(url, '1.1.0');
    expect(second.annotations.build).toBe('two');
    expect(registry.requests.filter((r) => r.outcome === 'token')).toHaveLength(2);
    expect(registry.requests.filter((r) => r.status === 401)).toHaveLength(1);
  });
});
