import { describe, expect, it } from 'vitest';
import {
  isCredentialName,
  isSecretEnvironmentValue,
  parseVariableNames,
  runtimeEnvironment,
  RuntimeEnvironmentError,
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
      'runtime-env: REUSED (secret), GIT_REMOTE (password URL) hold a secret of the run or a URL with a password',
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
