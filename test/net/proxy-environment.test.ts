// The proxy environment rules, case by case as Go's golang.org/x/net/http/httpproxy
// decides them (its proxy_test.go cases were the model for the expectations).
import { describe, expect, it } from 'vitest';
import { bypassesProxy, parseProxyUrl, proxyFromEnvironment } from '../../src/net/proxy-environment.js';

const url = (text: string) => new URL(text);

describe('proxies from the environment', () => {
  it('uses HTTPS_PROXY for https targets and HTTP_PROXY for http targets, upper case first', () => {
    expect(proxyFromEnvironment(url('https://api.example.com:6443'), { HTTPS_PROXY: 'http://proxy:3128' })?.href).toBe(
      'http://proxy:3128/',
    );
    expect(proxyFromEnvironment(url('https://api.example.com'), { https_proxy: 'proxy.corp:8080' })?.href).toBe(
      'http://proxy.corp:8080/',
    );
    expect(
      proxyFromEnvironment(url('https://api.example.com'), {
        HTTPS_PROXY: 'http://upper:1',
        https_proxy: 'http://lower:1',
      })?.host,
    ).toBe('upper:1');
    expect(
      proxyFromEnvironment(url('https://api.example.com'), { HTTPS_PROXY: '', https_proxy: 'http://lower:1' })?.host,
    ).toBe('lower:1');
    expect(proxyFromEnvironment(url('https://api.example.com'), { HTTP_PROXY: 'http://p:1' })).toBeUndefined();
    expect(proxyFromEnvironment(url('http://registry.example.com'), { HTTP_PROXY: 'http://p:1' })?.host).toBe('p:1');
    expect(proxyFromEnvironment(url('http://registry.example.com'), { HTTPS_PROXY: 'http://p:1' })).toBeUndefined();
    expect(proxyFromEnvironment(url('https://api.example.com'), {})).toBeUndefined();
  });

  it('reads a proxy value as Go does: a URL, else host[:port] meaning http://', () => {
    expect(parseProxyUrl('https://secure-proxy:8443')?.href).toBe('https://secure-proxy:8443/');
    expect(parseProxyUrl('socks5://s:1080')?.protocol).toBe('socks5:');
    expect(parseProxyUrl('proxy.corp:3128')?.href).toBe('http://proxy.corp:3128/');
    expect(parseProxyUrl('10.0.0.1')?.href).toBe('http://10.0.0.1/');
    expect(parseProxyUrl('http://user:p%40ss@proxy:3128')?.password).toBe('p%40ss');
  });

  it('never proxies localhost and loopback IPs, as Go hard-codes it; other names are not special', () => {
    expect(bypassesProxy(url('https://127.0.0.1:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://127.9.8.7:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://localhost:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://[::1]:6443'), undefined)).toBe(true);
    expect(bypassesProxy(url('https://registry.localhost:5000'), undefined)).toBe(false);
    expect(bypassesProxy(url('https://api.example.com'), undefined)).toBe(false);
    expect(bypassesProxy(url('https://10.0.0.1'), undefined)).toBe(false);
  });

  it('honours NO_PROXY: *, domains with their subdomains, leading-dot subdomains only, IPs, CIDRs and ports', () => {
    expect(bypassesProxy(url('https://api.example.com'), '*')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com'), 'other.org, example.com')).toBe(true);
    expect(bypassesProxy(url('https://example.com'), 'example.com')).toBe(true);
    expect(bypassesProxy(url('https://API.Example.COM'), 'EXAMPLE.com')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com'), '.example.com')).toBe(true);
    expect(bypassesProxy(url('https://example.com'), '.example.com')).toBe(false);
    expect(bypassesProxy(url('https://api.example.com'), '*.example.com')).toBe(true);
    expect(bypassesProxy(url('https://example.com'), '*.example.com')).toBe(false);
    expect(bypassesProxy(url('https://notexample.com'), 'example.com')).toBe(false);
    expect(bypassesProxy(url('https://10.1.2.3:6443'), '10.0.0.0/8')).toBe(true);
    expect(bypassesProxy(url('https://11.1.2.3:6443'), '10.0.0.0/8')).toBe(false);
    expect(bypassesProxy(url('https://[2001:db8::5]'), '2001:db8::/32')).toBe(true);
    expect(bypassesProxy(url('https://10.1.2.3:6443'), '10.1.2.3')).toBe(true);
    expect(bypassesProxy(url('https://10.1.2.3:6443'), '10.1.2.3:6443')).toBe(true);
    expect(bypassesProxy(url('https://10.1.2.3:6443'), '10.1.2.3:443')).toBe(false);
    expect(bypassesProxy(url('https://[2001:db8::5]:8443'), '[2001:db8::5]:8443')).toBe(true);
    expect(bypassesProxy(url('https://[2001:db8::5]:8443'), '2001:db8::5')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com:6443'), 'api.example.com:6443')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com'), 'api.example.com:443')).toBe(true);
    expect(bypassesProxy(url('http://api.example.com'), 'api.example.com:80')).toBe(true);
    expect(bypassesProxy(url('https://api.example.com:443'), 'api.example.com:6443')).toBe(false);
    expect(bypassesProxy(url('https://api.example.com'), ' , ,')).toBe(false);
  });

  it('turns NO_PROXY into a direct connection', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'registry.example.com' };
    expect(proxyFromEnvironment(url('https://registry.example.com/v2/'), env)).toBeUndefined();
    expect(proxyFromEnvironment(url('https://ghcr.io/v2/'), env)?.host).toBe('proxy:3128');
    expect(proxyFromEnvironment(url('https://ghcr.io/v2/'), { ...env, no_proxy: '*', NO_PROXY: '' })).toBeUndefined();
  });
});
