// Where registry credentials come from (--creds, docker config.json and its helpers,
// GITHUB_TOKEN), and explicit credentials bound to the registry host they were given for.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeCredential,
  lookupDockerConfig,
  normaliseRegistryKey,
  parseExplicitCredentials,
  resolveCredential,
} from '../../../src/module/oci/credentials.js';
import { OciError, pullModule } from '../../../src/module/oci/index.js';
import { SecretRegistry as SecretRedactor } from '../../../src/secrets.js';
import {
  pushTimoniModule,
  startRegistry,
  type PushedTimoniModule,
  type RegistryHandle,
} from '../../harness/registry/index.js';
import { writeSampleModule } from '../../harness/registry/sample-module.js';
import { fastRetry } from './registry-fixtures.js';

let root: string;
let binDir: string;
let env: NodeJS.ProcessEnv;

// A credential helper speaking docker's protocol: the server URL on stdin, JSON on stdout.
const helperScript = `#!/bin/sh
[ "$1" = "get" ] || { echo "unexpected action $1" >&2; exit 2; }
server=$(cat)
echo "$server" >> "$HELPER_LOG"
case "$server" in
  ghcr.io) printf '{"ServerURL":"ghcr.io","Username":"helper-user","Secret":"helper-secret-1"}' ;;
  https://index.docker.io/v1/) printf '{"ServerURL":"%s","Username":"hub-user","Secret":"hub-secret-2"}' "$server" ;;
  token.example) printf '{"ServerURL":"token.example","Username":"<token>","Secret":"refresh-secret-3"}' ;;
  slow.example) sleep 5; printf '{}' ;;
  broken.example) echo "backend unreachable" >&2; exit 3 ;;
  *) printf 'credentials not found in native keychain'; exit 1 ;;
esac
`;

async function writeConfig(name: string, config: unknown): Promise<string> {
  const dir = join(root, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'docker-config-'));
  binDir = join(root, 'bin');
  await mkdir(binDir);
  await writeFile(join(binDir, 'docker-credential-test'), helperScript);
  await chmod(join(binDir, 'docker-credential-test'), 0o755);
  env = { PATH: `${binDir}:/usr/bin:/bin`, HOME: join(root, 'home'), HELPER_LOG: join(root, 'helper.log') };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('parseExplicitCredentials', () => {
  it('reads user:password as basic and a bare value as a bearer token, like Timoni --creds', () => {
    expect(parseExplicitCredentials('bot:pa:ss')).toEqual({
      kind: 'basic',
      username: 'bot',
      password: 'pa:ss',
      source: '--creds',
    });
    expect(parseExplicitCredentials('tok3n')).toEqual({ kind: 'bearer', token: 'tok3n', source: '--creds' });
  });
  it('describes a credential without its value', () => {
    const text = describeCredential(parseExplicitCredentials('bot:hunter2'));
    expect(text).toBe('user "bot" from --creds');
    expect(text).not.toContain('hunter2');
  });
});

describe('normaliseRegistryKey', () => {
  it('strips scheme and path and folds Docker Hub names', () => {
    expect(normaliseRegistryKey('https://ghcr.io/v2/')).toBe('ghcr.io');
    expect(normaliseRegistryKey('https://index.docker.io/v1/')).toBe('index.docker.io');
    expect(normaliseRegistryKey('docker.io')).toBe('index.docker.io');
    expect(normaliseRegistryKey('127.0.0.1:5000')).toBe('127.0.0.1:5000');
  });
});

describe('lookupDockerConfig', () => {
  it('reads auths entries: base64 auth, username/password, identitytoken', async () => {
    const dir = await writeConfig('auths', {
      auths: {
        'https://127.0.0.1:5000': { auth: Buffer.from('alice:s3cret:x').toString('base64') },
        'registry.example.com': { username: 'bob', password: 'pw-bob' },
        'id.example.com': { auth: Buffer.from('carol:').toString('base64'), identitytoken: 'refresh-carol' },
      },
    });
    const masked: string[] = [];
    const secrets = new SecretRedactor((v) => masked.push(v));
    const options = { env, dockerConfigDir: dir };
    const a = await lookupDockerConfig('127.0.0.1:5000', options, secrets);
    expect(a.credential).toEqual({
      kind: 'basic',
      username: 'alice',
      password: 's3cret:x',
      source: `docker config ${join(dir, 'config.json')} (auths["https://127.0.0.1:5000"])`,
    });
    expect((await lookupDockerConfig('registry.example.com', options, secrets)).credential).toMatchObject({
      kind: 'basic',
      username: 'bob',
      password: 'pw-bob',
    });
    expect((await lookupDockerConfig('id.example.com', options, secrets)).credential).toMatchObject({
      kind: 'identity',
      username: 'carol',
      refreshToken: 'refresh-carol',
    });
    expect((await lookupDockerConfig('other.example.com', options, secrets)).credential).toBeUndefined();
    expect(masked).toEqual(
      expect.arrayContaining([Buffer.from('alice:s3cret:x').toString('base64'), 'pw-bob', 'refresh-carol']),
    );
  });

  it('finds config.json through DOCKER_CONFIG, then ~/.docker', async () => {
    const dir = await writeConfig('via-env', { auths: { 'r.example': { username: 'u', password: 'p-env' } } });
    const viaEnv = await lookupDockerConfig('r.example', { env: { ...env, DOCKER_CONFIG: dir } }, new SecretRedactor());
    expect(viaEnv.credential).toMatchObject({ password: 'p-env' });
    await writeConfig('home/.docker', { auths: { 'r.example': { username: 'u', password: 'p-home' } } });
    const viaHome = await lookupDockerConfig('r.example', { env }, new SecretRedactor());
    expect(viaHome.credential).toMatchObject({ password: 'p-home' });
    const absent = await lookupDockerConfig(
      'r.example',
      { env: { ...env, DOCKER_CONFIG: join(root, 'nowhere') } },
      new SecretRedactor(),
    );
    expect(absent).toEqual({
      credential: undefined,
      checked: `docker config ${join(root, 'nowhere', 'config.json')} (absent)`,
    });
  });

  it('asks credHelpers first, passing the server URL on stdin', async () => {
    const dir = await writeConfig('helpers', {
      credHelpers: { 'ghcr.io': 'test', 'index.docker.io': 'test', 'token.example': 'test' },
      auths: { 'ghcr.io': { username: 'ignored', password: 'ignored' } },
    });
    const masked: string[] = [];
    const secrets = new SecretRedactor((v) => masked.push(v));
    const options = { env, dockerConfigDir: dir };
    const ghcr = await lookupDockerConfig('ghcr.io', options, secrets);
    expect(ghcr.credential).toEqual({
      kind: 'basic',
      username: 'helper-user',
      password: 'helper-secret-1',
      source: `docker-credential-test (credHelpers["ghcr.io"] in ${join(dir, 'config.json')})`,
    });
    expect((await lookupDockerConfig('index.docker.io', options, secrets)).credential).toMatchObject({
      username: 'hub-user',
      password: 'hub-secret-2',
    });
    expect((await lookupDockerConfig('token.example', options, secrets)).credential).toMatchObject({
      kind: 'identity',
      refreshToken: 'refresh-secret-3',
    });
    expect(masked).toEqual(expect.arrayContaining(['helper-secret-1', 'hub-secret-2', 'refresh-secret-3']));
    const log = await readFile(env.HELPER_LOG as string, 'utf8');
    expect(log).toContain('https://index.docker.io/v1/\n');
  });

  it('uses credsStore and falls back to auths when the store has nothing', async () => {
    const dir = await writeConfig('store', {
      credsStore: 'test',
      auths: { 'fallback.example': { username: 'f', password: 'pw-fallback' } },
    });
    const options = { env, dockerConfigDir: dir };
    expect((await lookupDockerConfig('ghcr.io', options, new SecretRedactor())).credential).toMatchObject({
      password: 'helper-secret-1',
      source: `docker-credential-test (credsStore in ${join(dir, 'config.json')})`,
    });
    expect((await lookupDockerConfig('fallback.example', options, new SecretRedactor())).credential).toMatchObject({
      password: 'pw-fallback',
    });
  });

  it('gives clear errors for a missing helper, a slow helper and a failing helper', async () => {
    const dir = await writeConfig('bad-helpers', {
      credHelpers: { 'missing.example': 'nosuchhelper', 'slow.example': 'test', 'broken.example': 'test' },
    });
    const options = { env, dockerConfigDir: dir, helperTimeoutMs: 500 };
    await expect(lookupDockerConfig('missing.example', options, new SecretRedactor())).rejects.toThrow(
      /credential helper docker-credential-nosuchhelper \(credHelpers\["missing.example"\] in .*config.json\) is not installed: no docker-credential-nosuchhelper in PATH/,
    );
    const started = Date.now();
    await expect(lookupDockerConfig('slow.example', options, new SecretRedactor())).rejects.toThrow(
      /did not answer within 500 ms/,
    );
    expect(Date.now() - started).toBeLessThan(4000);
    await expect(lookupDockerConfig('broken.example', options, new SecretRedactor())).rejects.toThrow(
      /failed \(exit 3\): backend unreachable/,
    );
  });

  it('refuses a config that is not JSON without printing its content', async () => {
    const dir = join(root, 'not-json');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.json'), '{"auths": {"x": {"password": "leaky-pw"');
    const error = await lookupDockerConfig('x', { env, dockerConfigDir: dir }, new SecretRedactor()).catch(
      (e: Error) => e,
    );
    expect(String(error)).toMatch(/is not valid JSON/);
    expect(String(error)).not.toContain('leaky-pw');
  });
});

describe('resolveCredential', () => {
  it('prefers --creds over docker config', async () => {
    const dir = await writeConfig('prefer', { auths: { 'r.example': { username: 'u', password: 'from-config' } } });
    const credential = await resolveCredential(
      'r.example',
      'oci://r.example/a',
      { env, dockerConfigDir: dir, credentials: 'me:from-flag' },
      new SecretRedactor(),
    );
    expect(credential).toMatchObject({ kind: 'basic', username: 'me', password: 'from-flag', source: '--creds' });
  });

  it('uses GITHUB_TOKEN for ghcr.io only when nothing else is configured', async () => {
    const empty = await writeConfig('empty', {});
    const masked: string[] = [];
    const credential = await resolveCredential(
      'ghcr.io',
      'oci://ghcr.io/a/b',
      { env: { ...env, GITHUB_TOKEN: 'ghs_example', GITHUB_ACTOR: 'octocat' }, dockerConfigDir: empty },
      new SecretRedactor((v) => masked.push(v)),
    );
    expect(credential).toEqual({ kind: 'basic', username: 'octocat', password: 'ghs_example', source: 'GITHUB_TOKEN' });
    expect(masked).toContain('ghs_example');
    const other = await resolveCredential(
      'quay.io',
      'oci://quay.io/a/b',
      { env: { ...env, GITHUB_TOKEN: 'ghs_example' }, dockerConfigDir: empty },
      new SecretRedactor(),
    );
    expect(other.kind).toBe('anonymous');
    expect(other.source).toContain(`docker config ${join(empty, 'config.json')}`);
    const helpers = await writeConfig('ghcr-helper', { credHelpers: { 'ghcr.io': 'test' } });
    const fromHelper = await resolveCredential(
      'ghcr.io',
      'oci://ghcr.io/a/b',
      { env: { ...env, GITHUB_TOKEN: 'ghs_example' }, dockerConfigDir: helpers },
      new SecretRedactor(),
    );
    expect(fromHelper).toMatchObject({ username: 'helper-user' });
  });

  it('turns docker config failures into an OciError naming the module URL', async () => {
    const dir = await writeConfig('missing-helper', { credsStore: 'absent' });
    const error = await resolveCredential(
      'r.example',
      'oci://r.example/a:1.0.0',
      { env, dockerConfigDir: dir },
      new SecretRedactor(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OciError);
    expect((error as OciError).code).toBe('credentials');
    expect((error as OciError).message).toMatch(
      /^oci:\/\/r\.example\/a:1\.0\.0: credential helper docker-credential-absent/,
    );
  });
});

// Explicit registry credentials are bound to the registry host they were given for (the
// action's `registry-creds`): a pull request that points a module at another registry
// never gets them, against a real registry with basic auth and one with a token server.
describe('credentials bound to a registry host', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'oci-binding-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  let caches = 0;
  const options = () => ({
    env: { PATH: process.env.PATH },
    dockerConfigDir: join(work, 'none'),
    cacheDir: join(work, `cache-${++caches}`),
    retry: fastRetry,
  });

  describe.each(['basic', 'token'] as const)('registry-creds with %s auth', (auth) => {
    let registry: RegistryHandle;
    let pushed: PushedTimoniModule;
    let creds: string;
    let moduleDir: string | undefined;
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
      creds = `${registry.credentials?.username}:${registry.credentials?.password}`;
    });
    afterAll(async () => {
      await registry?.stop();
      if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
    });

    it('answers the challenge of the host they are bound to', async () => {
      const module = await pullModule(pushed.url, '1.0.0', undefined, {
        ...options(),
        hostCredentials: { [registry.host]: creds },
      });
      expect(module.digest).toBe(pushed.digest);
    });

    it('never sends them to another registry: the request log shows no credentials at all', async () => {
      registry.clearRequests();
      const before = registry.requests.length;
      const error = await pullModule(pushed.url, '1.0.0', undefined, {
        ...options(),
        hostCredentials: { 'ghcr.io': creds },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OciError);
      expect((error as OciError).message).toContain(`registry-creds (no entry for ${registry.host})`);
      const sent = registry.requests.slice(before);
      expect(sent.length).toBeGreaterThan(0);
      // Nothing carried the user and password: no Basic auth to the registry, none to its token
      // service (a bearer token, if any, is the anonymous one the token service hands anyone).
      expect(sent.filter((request) => request.authorization === 'basic').map((request) => request.path)).toEqual([]);
      expect(
        sent
          .filter((request) => request.path.startsWith('/token'))
          .every((request) => request.authorization === 'none'),
      ).toBe(true);
    });
  });
});
