import { describe, expect, it } from 'vitest';
import { isSecretVariable, parseVariableNames, runtimeEnvironment, RuntimeEnvironmentError } from '../../src/bundle/runtime-environment.js';

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

  it('with runtime-from-env: everything but job credentials, author-controlled text and registered secrets', () => {
    const offered = runtimeEnvironment(env, { all: true, allowed: [], isRegisteredSecret: (value) => value === 'registered-secret-value' });
    expect(Object.keys(offered ?? {}).sort()).toEqual(['DEMO_REGISTRY', 'GITHUB_REPOSITORY']);
  });

  it('with an allow-list: only the names listed, author-controlled ones included, credentials refused', () => {
    expect(runtimeEnvironment(env, { all: false, allowed: ['GITHUB_HEAD_REF', 'MISSING'] })).toEqual({ GITHUB_HEAD_REF: 'evil.example/backdoor' });
    expect(() => runtimeEnvironment(env, { all: false, allowed: ['ACTIONS_RUNTIME_TOKEN'] })).toThrow(RuntimeEnvironmentError);
    expect(() => runtimeEnvironment(env, { all: false, allowed: ['GITHUB_TOKEN'] })).toThrow(/holds a credential of the job itself/);
  });

  it('masks what may be secret, never GitHub context or author-controlled text', () => {
    expect(isSecretVariable('DB_PASSWORD')).toBe(true);
    expect(isSecretVariable('GITHUB_HEAD_REF')).toBe(false);
    expect(isSecretVariable('GITHUB_REPOSITORY')).toBe(false);
  });

  it('reads names from lines or commas and refuses what is not a name', () => {
    expect(parseVariableNames('A,B\n C_1 \n', 'runtime-env')).toEqual(['A', 'B', 'C_1']);
    expect(() => parseVariableNames('INPUT_GITHUB-TOKEN', 'runtime-env')).toThrow(/is not an environment variable name/);
  });
});
