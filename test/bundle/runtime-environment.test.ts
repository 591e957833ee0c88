import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_DECODING_DEPTH } from '../../src/encoded-text.js';
import { SecretRegistry } from '../../src/secrets.js';
import {
  isCredentialName,
  isSecretEnvironmentValue,
  parseVariableNames,
  runtimeEnvironment,
  RuntimeEnvironmentError,
  withholdingReason,
} from '../../src/bundle/runtime-environment.js';

const env = {
  'INPUT_GITHUB-TOKEN': 'ghs_input',
  INPUT_KUBECONFIG: 'apiVersion: v1',
  ACTIONS_RUNTIME_TOKEN: 'runtime-token',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token',
  GITHUB_TOKEN: 'ghs_env',
  GITHUB_HEAD_REF: 'evil.example/backdoor',
  GITHUB_ACTOR: 'mallory',
  GITHUB_REPOSITORY: 'acme/fleet',
  DEMO_REGISTRY: 'registry.example',
  REUSED: 'registered-secret-value',
};

describe('the environment offered to runtime attributes', () => {
  it('offers nothing without runtime-from-env or an allow-list (as Timoni without --runtime-from-env)', () => {
    expect(runtimeEnvironment(env, { all: false, allowed: [] })).toBeUndefined();
  });

  const secretIn = (value: string) =>
    value.includes('registered-secret-value') ? 'secret' : /:\/\/[^@]*:[^@]*@/.test(value) ? 'password URL' : undefined;

  it('with runtime-from-env: everything but job credentials, author-controlled text and values that hold a secret', () => {
    const withheld: string[] = [];
    const offered = runtimeEnvironment(
      { ...env, GIT_REMOTE: 'https://x-access-token:t@github.com/o/r', COPY: 'a registered-secret-value b' },
      { all: true, allowed: [], secretIn, onWithheld: (name, why) => withheld.push(`${name}: ${why}`) },
    );
    expect(Object.keys(offered ?? {}).sort()).toEqual(['DEMO_REGISTRY', 'GITHUB_REPOSITORY']);
    // Named to the caller with a word of why, never with the value.
    expect(withheld.sort()).toEqual(['COPY: secret', 'GIT_REMOTE: password URL', 'REUSED: secret']);
  });

  it('refuses listed variables that hold a secret, naming each of them and never a value', () => {
    const listed = { ...env, GIT_REMOTE: 'https://x-access-token:t@github.com/o/r' };
    const offer = () =>
      runtimeEnvironment(listed, {
        all: false,
        allowed: ['DEMO_REGISTRY', 'REUSED', 'GIT_REMOTE'],
        secretIn,
        onWithheld: () => expect.unreachable('a listed variable is refused, not withheld'),
      });
    expect(offer).toThrow(RuntimeEnvironmentError);
    expect(offer).toThrow(
      'runtime-env: REUSED (secret), GIT_REMOTE (password URL) hold a secret of the run or a credential (as it stands or encoded)',
    );
    expect(offer).not.toThrow(/registered-secret-value|x-access-token/);
    expect(runtimeEnvironment(listed, { all: false, allowed: ['DEMO_REGISTRY'], secretIn })).toEqual({
      DEMO_REGISTRY: 'registry.example',
    });
  });

  it('with an allow-list: only the names listed, author-controlled ones included, credentials refused', () => {
    expect(runtimeEnvironment(env, { all: false, allowed: ['GITHUB_HEAD_REF', 'MISSING'] })).toEqual({
      GITHUB_HEAD_REF: 'evil.example/backdoor',
    });
    expect(() => runtimeEnvironment(env, { all: false, allowed: ['ACTIONS_RUNTIME_TOKEN'] })).toThrow(
      RuntimeEnvironmentError,
    );
    expect(() => runtimeEnvironment(env, { all: false, allowed: ['GITHUB_TOKEN'] })).toThrow(
      /holds a credential of the job itself/,
    );
  });

  it('masks credentials, never GitHub context, author-controlled text or a value for being in the environment', () => {
    expect(isSecretEnvironmentValue('DB_PASSWORD', 'hunter2')).toBe(true);
    expect(isSecretEnvironmentValue('GITHUB_HEAD_REF', 'evil.example/backdoor')).toBe(false);
    expect(isSecretEnvironmentValue('GITHUB_REPOSITORY', 'acme/fleet')).toBe(false);
    expect(isSecretEnvironmentValue('DEMO_REGISTRY', '127.0.0.1:5000')).toBe(false);
    expect(isSecretEnvironmentValue('REGION', 'eu-west-1')).toBe(false);
  });

  it('masks a URL that carries a password whatever its name, unless the pull request author chose it', () => {
    expect(isSecretEnvironmentValue('DATABASE_URL', 'postgres://app:hunter3@db.internal:5432/app')).toBe(true);
    expect(isSecretEnvironmentValue('REGISTRY_URL', 'https://registry.example/v2/')).toBe(false);
    expect(isSecretEnvironmentValue('MIRROR', 'https://user@mirror.example/')).toBe(false);
    expect(isSecretEnvironmentValue('GITHUB_HEAD_REF', 'https://a:b@evil.example')).toBe(false);
    expect(isSecretEnvironmentValue('CLONE', 'git clone https://x-access-token:t0ken@github.com/o/r')).toBe(true);
  });

  it('tells credentials by the words of their name', () => {
    for (const name of [
      'DB_PASSWORD',
      'NPM_TOKEN',
      'GHTOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'SSH_KEY',
      'api-key',
      'GH_PAT',
      'REDIS_PASS',
      'DOCKER_AUTH',
      'SENTRY_DSN',
      'GPG_PASSPHRASE',
      'registry_credentials',
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
    for (const name of [
      'DEMO_REGISTRY',
      'KEYCLOAK_URL',
      'PATH',
      'AUTHOR',
      'REGION',
      'GITHUB_REPOSITORY',
      'MONKEY_COUNT',
    ]) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });

  it('reads names from lines or commas and refuses what is not a name', () => {
    expect(parseVariableNames('A,B\n C_1 \n', 'runtime-env')).toEqual(['A', 'B', 'C_1']);
    expect(() => parseVariableNames('INPUT_GITHUB-TOKEN', 'runtime-env')).toThrow(
      /is not an environment variable name/,
    );
  });
});

describe('withholdingReason: a value that holds a secret, as it stands or encoded as an attacker would', () => {
  const token = 'ghs_zq7SentinelJobT0kenValue';
  const clientKey =
    '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIzq7SentinelClientKeyMaterial0123456789abcdef\n-----END EC PRIVATE KEY-----\n';
  const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://k:6443\nusers:\n- name: u\n  user:\n    client-key-data: ${Buffer.from(clientKey).toString('base64')}\n`;
  const registry = new SecretRegistry();
  registry.register(token);
  registry.register(clientKey);
  registry.registerDocument(kubeconfig);
  const why = (value: string) => withholdingReason(value, (text) => registry.secretIn(text));
  const base64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

  it('withholds the attacks that got through: a Docker auth config, a gzipped kubeconfig, a JDBC URL with password=', () => {
    const docker = JSON.stringify({ auths: { 'ghcr.io': { auth: base64(`user:${token}`) } } });
    expect(why(docker)).toBe('registry credential');
    // The token inside, found through JSON then base64 even without the Docker shape.
    expect(why(JSON.stringify({ registries: { 'ghcr.io': { basic: base64(`user:${token}`) } } }))).toBe(
      'secret in base64 in JSON',
    );
    expect(why(base64(gzipSync(kubeconfig)))).toBe('secret in gzip in base64');
    // Another kubeconfig than the run's, gzipped: its credential by its shape.
    expect(why(base64(gzipSync(kubeconfig.replace(/client-key-data: \S+/, 'token: other-cluster-token'))))).toBe(
      'kubeconfig credential in gzip in base64',
    );
    expect(why('jdbc:postgresql://db:5432/x?user=u&password=hunter2')).toBe('password');
    expect(why('Server=db;Database=x;User Id=u;Password=hunter2;')).toBe('password');
  });

  it('withholds the secrets of the run in base64url, hex, percent-encoding, JSON escapes and nested twice', () => {
    const inText = `user=ci secret=${token} end`;
    expect(why(Buffer.from(`x${inText}`).toString('base64url'))).toBe('secret in base64');
    // Hex has no alignment: the hex of any text around the secret holds its registered hex form.
    expect(why(Buffer.from(inText).toString('hex'))).toBe('secret');
    expect(why(Buffer.from('jdbc:postgresql://db/x?password=hunter2').toString('hex'))).toBe('password in hex');
    expect(why(inText.replace(/[a-z_]/g, (c) => `%${c.charCodeAt(0).toString(16)}`))).toBe(
      'secret in percent-encoding',
    );
    expect(why(JSON.stringify(inText).slice(1, -1).replace(/s/g, '\\u0073'))).toBe('secret in JSON escapes');
    expect(why(base64(JSON.stringify({ note: Buffer.from(`x${inText}`).toString('base64url') })))).toBe(
      'secret in base64 in JSON in base64',
    );
    expect(why(base64(JSON.stringify({ note: Buffer.from('mysql://db/x?pwd=hunter2').toString('hex') })))).toBe(
      'password in hex in JSON in base64',
    );
    // Another PEM private key than the run's, by its shape.
    expect(why(base64('key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEother\n-----END RSA PRIVATE KEY-----\n'))).toBe(
      'private key in base64',
    );
    // Deeper than the bound: withheld for being too deep to look into.
    let deep = inText;
    for (let depth = 0; depth <= MAX_DECODING_DEPTH; depth++) deep = base64(deep);
    expect(why(deep)).toBe(`encoded more than ${MAX_DECODING_DEPTH} deep`);
  });

  it('offers ordinary values: regions, plain URLs, short words that look like base64 or hex, JSON settings', () => {
    for (const value of [
      'eu-west-1',
      'dev',
      'cafe',
      'deadbeef',
      'production',
      'main',
      'https://registry.example/v2/',
      'https://user@mirror.example/',
      'postgres://db.internal:5432/app?sslmode=require',
      'registry.example:5000',
      '{"replicas": 3, "region": "eu-west-1"}',
      base64('hello world, nothing secret here'),
      '/usr/local/bin:/usr/bin:/bin',
      'acme/fleet',
      '100%',
    ]) {
      expect(why(value), value).toBeUndefined();
    }
  });

  it('runtimeEnvironment applies it under runtime-from-env, naming each withheld variable and why', () => {
    const withheld: string[] = [];
    const offered = runtimeEnvironment(
      {
        DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { 'ghcr.io': { auth: base64(`user:${token}`) } } }),
        KUBECONFIG_GZ: base64(gzipSync(kubeconfig)),
        JDBC_URL: 'jdbc:postgresql://db:5432/x?user=u&password=hunter2',
        REGION: 'eu-west-1',
        STAGE: 'dev',
      },
      {
        all: true,
        allowed: [],
        secretIn: (text) => registry.secretIn(text),
        onWithheld: (name, reason) => withheld.push(`${name} (${reason})`),
      },
    );
    expect(offered).toEqual({ REGION: 'eu-west-1', STAGE: 'dev' });
    expect(withheld).toEqual([
      'DOCKER_AUTH_CONFIG (registry credential)',
      'KUBECONFIG_GZ (secret in gzip in base64)',
      'JDBC_URL (password)',
    ]);
  });
});
