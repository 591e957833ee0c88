// The token service as clients other than ours use it: OAuth2 password grant over POST
// (containerd, ORAS), GET with basic credentials (docker, crane), and its refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry, type RegistryHandle } from './registry.js';
import { parseScopes } from './token-server.js';

let registry: RegistryHandle;
beforeAll(async () => {
  registry = await startRegistry({
    auth: 'token',
    users: [{ name: 'carol', password: 's3cret:with:colons' }],
    tokenLifetimeSeconds: 120,
  });
});
afterAll(async () => {
  await registry?.stop();
});

const service = 'timoni-fleet-test-registry';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('token service', () => {
  it('issues a token for basic credentials on GET with the granted access and lifetime', async () => {
    const response = await fetch(
      `${registry.url}/token?service=${service}&scope=repository:apps/a:pull,push&scope=repository:apps/b:pull`,
      {
        headers: { authorization: basic('carol', 's3cret:with:colons') },
      },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      token: string;
      access_token: string;
      expires_in: number;
      issued_at: string;
    };
    expect(body.access_token).toBe(body.token);
    expect(body.expires_in).toBe(120);
    const claims = claimsOf(body.token);
    expect(claims).toMatchObject({ iss: 'timoni-fleet-test-token-issuer', sub: 'carol', aud: service });
    expect(claims.access).toEqual([
      { type: 'repository', name: 'apps/a', actions: ['pull', 'push'] },
      { type: 'repository', name: 'apps/b', actions: ['pull'] },
    ]);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(120);
    const header = JSON.parse(Buffer.from(body.token.split('.')[0] ?? '', 'base64url').toString('utf8')) as {
      alg: string;
      x5c: string[];
    };
    expect(header.alg).toBe('ES256');
    expect(header.x5c).toHaveLength(1);
  });

  it('issues a token through the OAuth2 password grant on POST that the registry accepts', async () => {
    const form = new URLSearchParams({
      grant_type: 'password',
      username: 'carol',
      password: 's3cret:with:colons',
      service,
      scope: 'repository:apps/a:pull',
      client_id: 'test',
    });
    const response = await fetch(`${registry.url}/token`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    const catalog = await fetch(`${registry.url}/v2/apps/a/tags/list`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(catalog.status).toBe(404); // authorised; the repository does not exist yet
    const other = await fetch(`${registry.url}/v2/apps/z/tags/list`, { headers: { authorization: `Bearer ${token}` } });
    expect(other.status).toBe(401);
  });

  it('refuses wrong passwords, unknown grants, other services and malformed scopes', async () => {
    const wrongGet = await fetch(`${registry.url}/token?service=${service}&scope=repository:apps/a:pull`, {
      headers: { authorization: basic('carol', 'nope') },
    });
    expect(wrongGet.status).toBe(401);
    expect(await wrongGet.text()).not.toContain('nope');
    const wrongPost = await fetch(`${registry.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'carol', password: 'nope', service }),
    });
    expect(wrongPost.status).toBe(401);
    const refresh = await fetch(`${registry.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', service }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.text()).toContain('unsupported_grant_type');
    expect((await fetch(`${registry.url}/token?service=elsewhere`)).status).toBe(400);
    expect((await fetch(`${registry.url}/token?service=${service}&scope=repository`)).status).toBe(400);
    expect((await fetch(`${registry.url}/token`, { method: 'DELETE' })).status).toBe(405);
  });

  it('gives anonymous callers a token without access when anonymous pull is off', async () => {
    const response = await fetch(`${registry.url}/token?service=${service}&scope=repository:apps/a:pull`);
    expect(response.status).toBe(200);
    const { token } = (await response.json()) as { token: string };
    expect(claimsOf(token)).toMatchObject({ sub: '', access: [] });
  });

  it('parses scopes with several actions, several scopes per parameter and names holding colons', () => {
    expect(
      parseScopes(['repository:a/b:pull,push repository:c:pull', 'registry:catalog:*', 'repository:host:5000/x:pull']),
    ).toEqual([
      { type: 'repository', name: 'a/b', actions: ['pull', 'push'] },
      { type: 'repository', name: 'c', actions: ['pull'] },
      { type: 'registry', name: 'catalog', actions: ['*'] },
      { type: 'repository', name: 'host:5000/x', actions: ['pull'] },
    ]);
    expect(() => parseScopes(['repository:only'])).toThrow(/type:name:actions/);
  });
});
