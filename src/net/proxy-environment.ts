// Which proxy a request goes through when the caller names none: HTTPS_PROXY / HTTP_PROXY
// and NO_PROXY (upper case first, then lower case), read exactly as Go's
// golang.org/x/net/http/httpproxy does for kubectl, Timoni and every Go client:
//
//   - https:// targets use HTTPS_PROXY, http:// targets HTTP_PROXY (no fallback between them);
//   - a value without a usable scheme (`proxy.corp:3128`) means `http://proxy.corp:3128`;
//     one that cannot be parsed at all is ignored (Go drops it and connects directly);
//   - `localhost` and loopback IPs (127.0.0.0/8, ::1) are never proxied: Go hard-codes it
//     before NO_PROXY is read (`*.localhost` and other names are not special);
//   - NO_PROXY is a comma-separated list, case-insensitive: `*` (no proxy at all), an IP
//     (`10.1.2.3`, `[::1]:8443`), a CIDR (`10.0.0.0/8`, no port), or a domain, which
//     matches itself and its subdomains (`example.com`), or only its subdomains with a
//     leading dot (`.example.com`, `*.example.com`); IPs and domains take an optional port,
//     compared with the target's port (its scheme's default when it has none).
//
// Pure: the environment is a parameter.
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** The first non-empty of NAME and name, as Go's getEnvAny. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

const defaultPorts: Record<string, string> = { 'http:': '80', 'https:': '443', 'socks5:': '1080' };

/** The port a URL connects to: its own, or its scheme's default. */
export function effectivePort(url: URL): string {
  return url.port || defaultPorts[url.protocol] || '';
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

function ipFamily(address: string): 'ipv4' | 'ipv6' | undefined {
  const family = isIP(address);
  return family === 4 ? 'ipv4' : family === 6 ? 'ipv6' : undefined;
}

/** `host`, `host:port`, `[v6]:port` -> host and port; a bare IPv6 address has no port. */
function splitHostPort(entry: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ?? '' };
  if (isIP(entry) === 6) return { host: entry, port: '' };
  const withPort = /^(.*):(\d*)$/.exec(entry);
  return withPort ? { host: withPort[1]!, port: withPort[2]! } : { host: entry, port: '' };
}

/** True when NO_PROXY (or the loopback rule) sends requests to `target` directly. */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = effectivePort(target);
  const family = ipFamily(host);
  if (host === 'localhost' || (family && loopback.check(host, family))) return true;
  for (const raw of (noProxy ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      const [network = '', bits = ''] = entry.split('/');
      const networkFamily = ipFamily(network);
      if (networkFamily && /^\d+$/.test(bits) && Number(bits) <= (networkFamily === 'ipv4' ? 32 : 128)) {
        // A CIDR holds no port; an IPv4 target is compared with an IPv4 network only.
        if (family !== networkFamily) continue;
        const list = new BlockList();
        list.addSubnet(network, Number(bits), networkFamily);
        if (list.check(host, family)) return true;
        continue;
      }
    }
    const { host: entryHost, port: entryPort } = splitHostPort(entry);
    if (!entryHost) continue;
    if (entryPort && entryPort !== port) continue;
    const entryFamily = ipFamily(entryHost);
    if (entryFamily) {
      if (family && sameAddress(host, family, entryHost, entryFamily)) return true;
      continue;
    }
    // `*.example.com` is `.example.com`: subdomains only; `example.com` also matches itself.
    const dotted = entryHost.startsWith('*.') ? entryHost.slice(1) : entryHost;
    const suffix = domainToASCII(dotted.startsWith('.') ? dotted.slice(1) : dotted) || dotted.replace(/^\./, '');
    if (host.endsWith(`.${suffix}`) || (!dotted.startsWith('.') && host === suffix)) return true;
  }
  return false;
}

function sameAddress(host: string, family: 'ipv4' | 'ipv6', entry: string, entryFamily: 'ipv4' | 'ipv6'): boolean {
  const list = new BlockList();
  list.addAddress(entry, entryFamily);
  return list.check(host, family);
}

/**
 * A proxy setting as Go parses it: a URL with scheme http, https or socks5, else the value
 * read as `http://value`; undefined when neither parses (Go then connects directly).
 */
export function parseProxyUrl(value: string): URL | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed && parsed.host && ['http:', 'https:', 'socks5:'].includes(parsed.protocol)) return parsed;
  try {
    return new URL(`http://${value}`);
  } catch {
    return parsed;
  }
}

/** The environment variable that names the proxy of a target (for messages). */
export function proxyVariable(target: URL): 'HTTPS_PROXY' | 'HTTP_PROXY' {
  return target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
}

/** The proxy the environment asks for to reach `target`; undefined for a direct connection. */
export function proxyFromEnvironment(target: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return undefined;
  const value = envValue(env, proxyVariable(target));
  if (!value || bypassesProxy(target, envValue(env, 'NO_PROXY'))) return undefined;
  return parseProxyUrl(value);
}
