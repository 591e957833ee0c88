// Tokens the stand-in accepts, and how it reads the Authorization header:
// `Bearer <t>` and `token <t>` (scheme case-insensitive), and Basic with the token as
// password (`x-access-token:<t>`, as git does over HTTPS).
import { randomBytes } from 'node:crypto';
import { GITHUB_ACTIONS_BOT, type Account } from './users.js';

export interface TokenSpec {
  token: string;
  /** 'read' models a GITHUB_TOKEN of a pull request from a fork: writes give 403. */
  access?: 'write' | 'read';
  /** Who the token acts as; the GitHub Actions bot by default. */
  account?: Account;
  /** 'installation' (GITHUB_TOKEN, ghs_...) or 'user' (personal token): sets the rate limit. */
  kind?: 'installation' | 'user';
  /**
   * owner/name of the repositories the token is granted (a GITHUB_TOKEN is granted its
   * workflow's repository only); every repository when left out. Elsewhere the token
   * reads public repositories, gets 404 for private ones and 403 on writes.
   */
  repositories?: string[];
}

export interface KnownToken {
  token: string;
  access: 'write' | 'read';
  account: Account;
  kind: 'installation' | 'user';
  /** Lower-cased owner/name; undefined = every repository. */
  repositories: Set<string> | undefined;
}

export function knownToken(spec: TokenSpec): KnownToken {
  if (spec.token.length === 0) throw new Error('stand-in token spec: the token must not be empty');
  return {
    token: spec.token,
    access: spec.access ?? 'write',
    account: spec.account ?? GITHUB_ACTIONS_BOT,
    kind: spec.kind ?? 'installation',
    repositories: spec.repositories ? new Set(spec.repositories.map((r) => r.toLowerCase())) : undefined,
  };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh token shaped like a GitHub App installation token (ghs_ and 36 characters). */
export function generateInstallationToken(): string {
  const bytes = randomBytes(36);
  let out = 'ghs_';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export type Credentials =
  { kind: 'none' } | { kind: 'token'; token: string; scheme: string } | { kind: 'malformed'; scheme: string };

export function readAuthorization(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const match = /^\s*(\S+)\s+(.+?)\s*$/.exec(header);
  if (!match) return { kind: 'malformed', scheme: header.trim() };
  const scheme = match[1] ?? '';
  const value = match[2] ?? '';
  const lower = scheme.toLowerCase();
  if (lower === 'bearer' || lower === 'token') return { kind: 'token', token: value, scheme };
  if (lower === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { kind: 'malformed', scheme };
    return { kind: 'token', token: decoded.slice(colon + 1), scheme };
  }
  return { kind: 'malformed', scheme };
}

/** The Authorization header with its secret replaced, for the request log. */
export function redactAuthorization(header: string): string {
  const match = /^\s*(\S+)\s+/.exec(header);
  return match ? `${match[1]} [redacted]` : '[redacted]';
}
