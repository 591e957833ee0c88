// Parses the `WWW-Authenticate` challenge of a registry 401 (RFC 7235 auth-params).

export interface AuthChallenge {
  scheme: 'basic' | 'bearer' | string;
  params: Record<string, string>;
}

/** Parses `Bearer realm="...",service="...",scope="a b"`; quoted values may hold commas. */
export function parseChallenge(header: string): AuthChallenge {
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  const scheme = (space < 0 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const params: Record<string, string> = {};
  const pattern = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (const match of (space < 0 ? '' : trimmed.slice(space + 1)).matchAll(pattern)) {
    const key = match[1];
    if (key === undefined) continue;
    params[key.toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
  }
  return { scheme, params };
}
