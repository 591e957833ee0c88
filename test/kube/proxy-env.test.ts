import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { connectionFor } from '../../src/kube/connection.js';
import { loadKubeconfig } from '../../src/kube/kubeconfig.js';
import { bypassesProxy, proxyFromEnvironment } from '../../src/kube/proxy-env.js';
import { SecretRegistry } from '../../src/secrets.js';

const url = (text: string) => new URL(text);

describe('proxies from the environment', () => {
  it('uses HTTPS_PROXY for https servers, lowercase too', () => {
    expect(proxyFromEnvironment(url('https://api.example.com:6443'), { HTTPS_PROXY: 'http://proxy:3128' })?.href).toBe('http://proxy:3128/');
    expect(proxyFromEnvironment(url('https://api.example.com'), { https_proxy: 'proxy.corp:8080' })?.href).toBe('http://proxy.corp:8080/');
    expect(proxyFromEnvironment(url('https://api.example.com'), { HTTP_PROXY: 'http://p:1' })).toBeUndefined();
    expect(proxyFromEnvironment(url('https://api.example.com'), {})).toBeUndefined();
  });

  it('never proxies loopback, and honours NO_PROXY names, suffixes, IPs, CIDRs and ports', () => {
    expect(bypassesProxy(url('https://127.0.0.1:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://localhost:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://[::1]:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://api.example.com'), undefined)).toBe(false);
    expect(bypassesProxy(url('https://api.example.com'), '*')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com'), 'other.org, example.com')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com'), '.example.com')).toBe(true);
    expect(bypassesProxy(url('https://notexample.com'), 'example.com')).toBe(false);
    expect(bypassesProxy(url('https://10.1.2.3:6443'), '10.0.0.0/8')).toBe(true);
    expect(bypassesProxy(url('https://11.1.2.3:6443'), '10.0.0.0/8')).toBe(false);
    expect(bypassesProxy(url('https://10.1.2.3:6443'), '10.1.2.3')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com:6443'), 'api.example.com:6443')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com:443'), 'api.example.com:6443')).toBe(false);
  });

  it('lets a kubeconfig proxy-url win over the environment, and registers proxy passwords', () => {
    const seen: string[] = [];
    const secrets = new SecretRegistry((value) => seen.push(value));
    const config = loadKubeconfig(
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
    expect(connectionFor(config, 'env', { secrets, env }).proxyUrl?.host).toBe('corp-proxy:8080');
    expect(seen).toContain('env-proxy-pass');
    expect(connectionFor(config, 'own', { secrets, env }).proxyUrl?.host).toBe('own-proxy:3128');
    expect(connectionFor(config, 'env', { secrets, env: { ...env, NO_PROXY: 'example.com' } }).proxyUrl).toBeUndefined();
    expect(() => connectionFor(config, 'socks', { secrets, env })).toThrow(/proxy-url scheme socks5: is not supported/);
  });
});
