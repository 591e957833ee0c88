// The proxy of a server when the kubeconfig names none: HTTPS_PROXY / HTTP_PROXY and
// NO_PROXY, read as Go's net/http does for kubectl (loopback is never proxied). Pure.
import { BlockList, isIP } from 'node:net';

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '[::1]';
}

/** True when NO_PROXY excludes the host (`*`, host, `.suffix` or suffix, IP, CIDR; optional :port). */
export function bypassesProxy(server: URL, noProxy: string | undefined): boolean {
  const host = server.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(host)) return true;
  if (!noProxy) return false;
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const portMatch = /^(.*[^:]):(\d+)$/.exec(entry);
    if (portMatch && !entry.includes('/') && isIP(entry) !== 6) {
      if (portMatch[2] !== port) continue;
      entry = portMatch[1]!;
    }
    if (entry.includes('/')) {
      const [network, bits] = entry.split('/');
      const family = isIP(network ?? '');
      if (family && isIP(host) === family) {
        const list = new BlockList();
        list.addSubnet(network!, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
        if (list.check(host, family === 4 ? 'ipv4' : 'ipv6')) return true;
      }
      continue;
    }
    const name = entry.replace(/^\*?\./, '');
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy URL the environment asks for, for this server; undefined for a direct connection. */
export function proxyFromEnvironment(server: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const value = server.protocol === 'https:' ? envValue(env, 'HTTPS_PROXY') : envValue(env, 'HTTP_PROXY');
  if (!value || bypassesProxy(server, envValue(env, 'NO_PROXY'))) return undefined;
  try {
    return new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return undefined;
  }
}
