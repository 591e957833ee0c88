// What the client may present to a registry, and where it came from. The `source` is a
// description safe to print ("--creds", "docker config /home/u/.docker/config.json
// (auths["ghcr.io"])", "GITHUB_TOKEN"); the values never are.
import { OciError } from './errors.js';
import { lookupDockerConfig, type DockerConfigOptions } from './docker-config.js';
import type { SecretRegistry as SecretRedactor } from '../../secrets.js';

export type Credential =
  | { kind: 'anonymous'; source: string }
  /** user:password; sent as Basic to the registry or to its token endpoint. */
  | { kind: 'basic'; username: string; password: string; source: string }
  /** A registry token sent as-is: `Authorization: Bearer <token>` (Timoni's bare `--creds`). */
  | { kind: 'bearer'; token: string; source: string }
  /** An OAuth2 refresh token (docker `identitytoken`), exchanged at the token endpoint. */
  | { kind: 'identity'; username: string; refreshToken: string; source: string };

export interface CredentialOptions extends DockerConfigOptions {
  /** Timoni's `--creds`: `user:password` for basic auth, or a bare token for bearer auth. */
  credentials?: string;
  /**
   * Explicit credentials bound to registry hosts (the action's `registry-creds`); when given,
   * `credentials` is ignored and a registry without an entry gets none of them.
   */
  hostCredentials?: Record<string, string>;
}

/** Where explicit credentials come from, as messages name them. */
const EXPLICIT_SOURCES = ['--creds', 'registry-creds'];

/** True for credentials the user gave explicitly (bound to hosts), not docker config or GITHUB_TOKEN. */
export function isExplicitCredential(credential: Credential): boolean {
  return EXPLICIT_SOURCES.some((source) => credential.source.startsWith(source));
}

/** The explicit credential for a host (`registry-creds` entry, or `--creds`), if any. */
export function explicitCredentialFor(host: string, options: CredentialOptions): Credential | undefined {
  if (options.hostCredentials) {
    const entry = options.hostCredentials[host.toLowerCase()];
    return entry ? parseExplicitCredentials(entry, `registry-creds (${host})`) : undefined;
  }
  return options.credentials ? parseExplicitCredentials(options.credentials) : undefined;
}

/** Reads `--creds` as Timoni does: the first `:` splits user and password; no `:` is a token. */
export function parseExplicitCredentials(value: string, source = '--creds'): Credential {
  const colon = value.indexOf(':');
  if (colon === -1) return { kind: 'bearer', token: value, source };
  return { kind: 'basic', username: value.slice(0, colon), password: value.slice(colon + 1), source };
}

/** Registers the values of a credential with the redactor (and so with the caller's mask). */
export function registerSecrets(credential: Credential, secrets: SecretRedactor): void {
  switch (credential.kind) {
    case 'basic':
      secrets.add(credential.password);
      secrets.add(Buffer.from(`${credential.username}:${credential.password}`).toString('base64'));
      break;
    case 'bearer':
      secrets.add(credential.token);
      break;
    case 'identity':
      secrets.add(credential.refreshToken);
      break;
    case 'anonymous':
      break;
  }
}

/** A short description of a credential for messages: its source and kind, never its value. */
export function describeCredential(credential: Credential): string {
  if (credential.kind === 'anonymous') return `no credentials (${credential.source})`;
  const what = credential.kind === 'basic' ? `user "${credential.username}"` : credential.kind === 'bearer' ? 'a bearer token' : 'an identity token';
  return `${what} from ${credential.source}`;
}

/**
 * The credential for `registry`, in order: explicit `--creds`; docker `config.json`
 * (credHelpers, credsStore, auths); `GITHUB_TOKEN` for ghcr.io; otherwise anonymous.
 */
export async function resolveCredential(registry: string, url: string, options: CredentialOptions, secrets: SecretRedactor): Promise<Credential> {
  let credential = explicitCredentialFor(registry, options);
  const checked: string[] = [options.hostCredentials ? `registry-creds (no entry for ${registry})` : '--creds'];
  if (!credential) {
    const found = await lookupDockerConfig(registry, options, secrets).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new OciError('credentials', url, secrets.redact(message));
    });
    checked.push(found.checked);
    credential = found.credential;
  }
  const env = options.env ?? process.env;
  if (!credential && registry === 'ghcr.io' && env.GITHUB_TOKEN) {
    credential = { kind: 'basic', username: env.GITHUB_ACTOR || 'x-access-token', password: env.GITHUB_TOKEN, source: 'GITHUB_TOKEN' };
  }
  if (registry === 'ghcr.io') checked.push('GITHUB_TOKEN');
  credential ??= { kind: 'anonymous', source: `none configured for ${registry}; checked ${checked.join(', ')}` };
  registerSecrets(credential, secrets);
  return credential;
}
