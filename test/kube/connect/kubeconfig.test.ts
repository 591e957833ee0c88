import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { connectionFor } from '../../../src/kube/connect/connection.js';
import {
  decodeKubeconfigText,
  KubeContextNotFoundError,
  loadKubeconfig,
  resolveContext,
} from '../../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../../src/secrets.js';

function config(
  name: string,
  options: {
    server?: string;
    user?: Record<string, unknown>;
    current?: string;
    cluster?: Record<string, unknown>;
  } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': options.current ?? '',
    clusters: [{ name, cluster: { server: options.server ?? `https://${name}.example:6443`, ...options.cluster } }],
    users: [{ name: `${name}-user`, user: options.user ?? { token: `token-of-${name}` } }],
    contexts: [{ name, context: { cluster: name, user: `${name}-user`, namespace: `${name}-ns` } }],
  };
}

function registry() {
  const seen: string[] = [];
  return { seen, secrets: new SecretRegistry((value) => seen.push(value)) };
}

describe('kubeconfig loading', () => {
  it('reads YAML and base64 of YAML alike', () => {
    const yaml = stringify(config('alpha', { current: 'alpha' }));
    const { secrets } = registry();
    const fromYaml = loadKubeconfig([yaml], secrets);
    const fromBase64 = loadKubeconfig([Buffer.from(yaml).toString('base64')], secrets);
    // base64 wrapped at 76 columns, as the base64 tool writes it
    const wrapped = Buffer.from(yaml)
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    const fromWrapped = loadKubeconfig([wrapped], secrets);
    for (const loaded of [fromYaml, fromBase64, fromWrapped]) {
      expect(loaded.currentContext).toBe('alpha');
      expect(resolveContext(loaded).cluster.server).toBe('https://alpha.example:6443');
      expect(resolveContext(loaded).namespace).toBe('alpha-ns');
    }
    expect(decodeKubeconfigText('apiVersion: v1')).toBe('apiVersion: v1');
  });

  it('merges several strings and documents, the first definition of a name winning', () => {
    const first = config('shared', { server: 'https://first:6443', current: 'shared' });
    const second = {
      ...config('shared', { server: 'https://second:6443', current: 'other' }),
    };
    second.clusters.push({ name: 'beta', cluster: { server: 'https://beta:6443' } });
    second.contexts.push({ name: 'beta', context: { cluster: 'beta', user: 'shared-user', namespace: 'b' } });
    const third = config('gamma', { current: 'gamma' });
    const { secrets } = registry();
    const merged = loadKubeconfig([stringify(first), `${stringify(second)}---\n${stringify(third)}`], secrets);
    expect(merged.currentContext).toBe('shared');
    expect([...merged.contexts.keys()]).toEqual(['shared', 'beta', 'gamma']);
    expect(resolveContext(merged, 'shared').cluster.server).toBe('https://first:6443');
    expect(resolveContext(merged, 'beta').cluster.server).toBe('https://beta:6443');
    expect(resolveContext(merged, 'beta').user.token).toBe('token-of-shared');
    expect(resolveContext(merged, 'gamma').user.token).toBe('token-of-gamma');
  });

  it('names the existing contexts, and only their names, when a context is missing', () => {
    const { secrets } = registry();
    const loaded = loadKubeconfig([stringify(config('alpha')), stringify(config('beta'))], secrets);
    let caught: unknown;
    try {
      resolveContext(loaded, 'prod-eu');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KubeContextNotFoundError);
    const message = (caught as Error).message;
    expect(message).toContain('"prod-eu"');
    expect(message).toContain('alpha, beta');
    expect(message).not.toContain('token-of');
    expect(message).not.toContain('example:6443');
    expect((caught as KubeContextNotFoundError).available).toEqual(['alpha', 'beta']);
  });

  it('registers every credential it reads as a secret', () => {
    const { seen, secrets } = registry();
    const key = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIExampleExampleExampleExample\n-----END EC PRIVATE KEY-----\n';
    loadKubeconfig(
      [
        stringify({
          clusters: [{ name: 'c', cluster: { server: 'https://c' } }],
          users: [
            { name: 'tok', user: { token: 'sekret-token-1' } },
            { name: 'basic', user: { username: 'admin', password: 'hunter2-pass' } },
            {
              name: 'cert',
              user: { 'client-certificate-data': 'Y2VydA==', 'client-key-data': Buffer.from(key).toString('base64') },
            },
            {
              name: 'exec',
              user: {
                exec: {
                  apiVersion: 'client.authentication.k8s.io/v1',
                  command: 'x',
                  env: [{ name: 'API_KEY', value: 'env-secret-9' }],
                },
              },
            },
          ],
          contexts: [],
        }),
      ],
      secrets,
    );
    expect(seen).toContain('sekret-token-1');
    expect(seen).toContain('hunter2-pass');
    expect(seen).toContain('env-secret-9');
    expect(seen).toContain(Buffer.from(key).toString('base64'));
    expect(seen).toContain('MHcCAQEEIExampleExampleExampleExample');
    expect(seen).not.toContain('admin');
    expect(secrets.redact('token sekret-token-1 and hunter2-pass')).toBe('token *** and ***');
    // Even a tiny credential reaches the callback; only redact() leaves it alone.
    secrets.register('pw1');
    expect(seen).toContain('pw1');
    expect(secrets.redact('pw1 stays')).toBe('pw1 stays');
  });

  it('registers the whole text as one document, as given and decoded, never offered but not masked', () => {
    // An exec plugin's kubeconfig holds no credential of its own: the text itself is still never offered.
    const yaml = stringify(
      config('gke', {
        user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'gke-gcloud-auth-plugin' } },
      }),
    );
    const base64 = Buffer.from(yaml)
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    const { seen, secrets } = registry();
    loadKubeconfig([base64], secrets);
    // Not masked line by line, nor sent to the runner: an exec kubeconfig has nothing to mask.
    expect(seen).toEqual([]);
    expect(secrets.secretIn(`KUBECONFIG_COPY=${yaml}`)).toBe('secret');
    expect(secrets.secretIn(base64)).toBe('secret');
    expect(secrets.secretIn('apiVersion: v1')).toBeUndefined();
    expect(secrets.redact('server: https://gke.example:6443')).toBe('server: https://gke.example:6443');
  });

  it('reads certificate and token files relative to the kubeconfig file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
    writeFileSync(join(dir, 'ca.pem'), 'CA-PEM');
    writeFileSync(join(dir, 'token'), 'file-token-42\n');
    const yaml = stringify({
      'current-context': 'c',
      clusters: [
        {
          name: 'c',
          cluster: {
            server: 'https://c:6443',
            'certificate-authority': 'ca.pem',
            'tls-server-name': 'api.internal',
            'proxy-url': 'http://u:proxy-pass@127.0.0.1:3128',
          },
        },
      ],
      users: [{ name: 'u', user: { tokenFile: 'token' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    });
    const { seen, secrets } = registry();
    const loaded = loadKubeconfig([{ text: yaml, path: join(dir, 'config') }], secrets);
    const connection = connectionFor(loaded, undefined, { secrets, name: 'cluster-c' });
    expect(connection.name).toBe('cluster-c');
    expect(connection.ca?.toString()).toBe('CA-PEM');
    expect(connection.servername).toBe('api.internal');
    expect(connection.proxyUrl?.host).toBe('127.0.0.1:3128');
    const auth = await connection.auth();
    expect(auth.headers.Authorization).toBe('Bearer file-token-42');
    expect(seen).toContain('file-token-42');
    expect(seen).toContain('proxy-pass');
  });

  it('sends basic auth, impersonation headers, and refuses a CA with insecure-skip-tls-verify', async () => {
    const { secrets } = registry();
    const loaded = loadKubeconfig(
      [
        stringify({
          clusters: [
            { name: 'insecure', cluster: { server: 'https://i', 'insecure-skip-tls-verify': true } },
            {
              name: 'both',
              cluster: { server: 'https://b', 'insecure-skip-tls-verify': true, 'certificate-authority-data': 'Q0E=' },
            },
          ],
          users: [
            { name: 'u', user: { username: 'me', password: 'pw-123456', as: 'alice', 'as-groups': ['dev', 'ops'] } },
          ],
          contexts: [
            { name: 'insecure', context: { cluster: 'insecure', user: 'u' } },
            { name: 'both', context: { cluster: 'both', user: 'u' } },
          ],
        }),
      ],
      secrets,
    );
    const connection = connectionFor(loaded, 'insecure', { secrets });
    expect(connection.rejectUnauthorized).toBe(false);
    const auth = await connection.auth();
    expect(auth.headers.Authorization).toBe(`Basic ${Buffer.from('me:pw-123456').toString('base64')}`);
    expect(auth.headers['Impersonate-User']).toBe('alice');
    // One header line per group: a comma-joined value would be one group named "dev, ops".
    expect(auth.headers['Impersonate-Group']).toEqual(['dev', 'ops']);
    expect(() => connectionFor(loaded, 'both', { secrets })).toThrow(/insecure-skip-tls-verify is not allowed/);
  });

  it('lets a kubeconfig proxy-url win over the environment, honours NO_PROXY, and registers proxy passwords', () => {
    const { secrets, seen } = registry();
    const loaded = loadKubeconfig(
      [
        stringify({
          clusters: [
            { name: 'env', cluster: { server: 'https://api.example.com:6443' } },
            { name: 'own', cluster: { server: 'https://api.example.com:6443', 'proxy-url': 'http://own-proxy:3128' } },
            { name: 'socks', cluster: { server: 'https://api.example.com:6443', 'proxy-url': 'socks5://s:1080' } },
          ],
          users: [{ name: 'u', user: {} }],
          contexts: ['env', 'own', 'socks'].map((name) => ({ name, context: { cluster: name, user: 'u' } })),
        }),
      ],
      secrets,
    );
    const env = { HTTPS_PROXY: 'http://user:env-proxy-pass@corp-proxy:8080' };
    expect(connectionFor(loaded, 'env', { secrets, env }).proxyUrl?.host).toBe('corp-proxy:8080');
    expect(seen).toContain('env-proxy-pass');
    expect(connectionFor(loaded, 'own', { secrets, env }).proxyUrl?.host).toBe('own-proxy:3128');
    expect(
      connectionFor(loaded, 'env', { secrets, env: { ...env, NO_PROXY: 'example.com' } }).proxyUrl,
    ).toBeUndefined();
    expect(() => connectionFor(loaded, 'socks', { secrets, env })).toThrow(/proxy-url scheme socks5: is not supported/);
  });

  it('names what is wrong: unknown cluster, invalid YAML, no current context', () => {
    const { secrets } = registry();
    const broken = loadKubeconfig(
      [stringify({ contexts: [{ name: 'x', context: { cluster: 'nowhere', user: 'u' } }] })],
      secrets,
    );
    expect(() => resolveContext(broken, 'x')).toThrow(/refers to cluster "nowhere"/);
    expect(() => resolveContext(broken)).toThrow(/no current-context.*contexts: x/);
    expect(() => loadKubeconfig(['clusters: [unclosed'], secrets)).toThrow(/kubeconfig #1 is not valid YAML/);
  });

  it("gives the YAML parser's reason and place, without the file's line (it may hold a credential)", () => {
    const { secrets } = registry();
    let message = '';
    try {
      loadKubeconfig(['apiVersion: v1\nusers:\n  - name: a: b\n    token: s3cr3t\n'], secrets);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^kubeconfig #1 is not valid YAML: \S.* at line 3, column \d+$/);
    expect(message).not.toContain('s3cr3t');
  });
});
