import { describe, expect, it } from 'vitest';
import { parseChallenges, preferredChallenge } from '../../../src/module/oci/challenge.js';

describe('parseChallenges', () => {
  it('reads a Docker Hub bearer challenge', () => {
    const header = 'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"';
    expect(parseChallenges(header)).toEqual([
      {
        scheme: 'bearer',
        params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/nginx:pull' },
      },
    ]);
  });

  it('keeps commas inside quoted values and unescapes quoted pairs', () => {
    const [challenge] = parseChallenges('Bearer realm="https://a/token", scope="repository:a/b:pull,push", error="say \\"hi\\""');
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
