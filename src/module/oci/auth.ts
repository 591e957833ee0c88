// Answers a registry's authentication challenges for one registry host, as the Docker
// token specification describes: on a Bearer challenge, fetch a token from the realm
// (with service and scope; Basic credentials when we have a user and password, an OAuth2
// refresh-token POST for identity tokens, nothing when anonymous) and cache it per scope
// until it expires; on a Basic challenge, send the user and password. Credentials are
// resolved only when a registry asks for them, so anonymous registries never see them.
import {
  describeCredential,
  explicitCredentialFor,
  isExplicitCredential,
  registerSecrets,
  resolveCredential,
  type Credential,
  type CredentialOptions,
} from './credentials.js';
import { OciError } from './errors.js';
import { quote } from '../../display-text.js';
import { drain, readBody, send } from './http.js';
import { isRetryableStatus, parseRetryAfter, TransientError, withRetry, type RetryPolicy } from './retry.js';
import type { SecretRegistry as SecretRedactor } from '../../secrets.js';

export interface AuthContext {
  credentials: CredentialOptions;
  secrets: SecretRedactor;
  retry: RetryPolicy;
  timeoutMs: number;
  userAgent: string;
  signal?: AbortSignal;
}

interface CachedToken {
  header: string;
  expiresAt: number;
}

const TOKEN_LIMIT = 1024 * 1024;

export class RegistryAuth {
  readonly #registry: string;
  readonly #context: AuthContext;
  #credential: Promise<Credential> | undefined;
  #challenge: Challenge | undefined;
  readonly #tokens = new Map<string, CachedToken>();

  /** `registry` as references name it (for credential lookup and messages). */
  constructor(registry: string, context: AuthContext) {
    this.#registry = registry;
    this.#context = context;
  }

  /** The credential in use, once a challenge made us resolve it. */
  credential(url: string): Promise<Credential> {
    this.#credential ??= resolveCredential(this.#registry, url, this.#context.credentials, this.#context.secrets);
    // A failed lookup is not kept: the next request tries again.
    this.#credential.catch(() => (this.#credential = undefined));
    return this.#credential;
  }

  /** The Authorization header to send up front, when an earlier challenge told us how. */
  async current(scope: string, url: string): Promise<string | undefined> {
    if (!this.#challenge) return undefined;
    const cached = this.#tokens.get(scope);
    if (cached && cached.expiresAt > Date.now()) return cached.header;
    return this.#answer(this.#challenge, scope, url);
  }

  /** Handles a 401: reads its challenge and returns a fresh Authorization header. */
  async challenged(wwwAuthenticate: string | undefined, scope: string, url: string): Promise<string> {
    const challenge = preferredChallenge(parseChallenges(wwwAuthenticate ?? ''));
    if (!challenge) {
      const credential = await this.credential(url);
      throw new OciError(
        'unauthorized',
        url,
        `unauthorised (401) by ${this.#registry}, which sent no usable WWW-Authenticate challenge; tried ${describeCredential(credential)}`,
        401,
      );
    }
    this.#challenge = challenge;
    this.#tokens.delete(scope);
    return this.#answer(challenge, scope, url);
  }

  /** The error for a 401 that persists after we answered the challenge. */
  async rejected(url: string, status: number, where = ''): Promise<OciError> {
    const credential = await this.credential(url);
    const what = describeCredential(credential);
    let text: string;
    if (credential.kind === 'anonymous')
      text = `unauthorised (${status}) by ${this.#registry}${where}: the registry requires credentials; ${what}`;
    else if (status === 403) text = `denied (403) by ${this.#registry}${where}: ${what} has no pull access`;
    else text = `unauthorised (${status}) by ${this.#registry}${where}: it rejected ${what}`;
    return new OciError(status === 403 ? 'denied' : 'unauthorized', url, text, status);
  }

  async #answer(challenge: Challenge, scope: string, url: string): Promise<string> {
    const credential = await this.credential(url);
    if (challenge.scheme === 'basic') {
      if (credential.kind === 'basic') {
        const header = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`;
        this.#context.secrets.add(header.slice(6));
        return header;
      }
      if (credential.kind === 'bearer') return `Bearer ${credential.token}`;
      if (credential.kind === 'anonymous') throw await this.rejected(url, 401, ' (Basic auth)');
      throw new OciError(
        'unauthorized',
        url,
        `unauthorised (401) by ${this.#registry}: it asks for Basic auth, which ${describeCredential(credential)} cannot answer`,
        401,
      );
    }
    if (challenge.scheme !== 'bearer') {
      throw new OciError(
        'unauthorized',
        url,
        `unauthorised: ${this.#registry} asks for unsupported auth scheme ${quote(challenge.scheme)}`,
        401,
      );
    }
    if (credential.kind === 'bearer') return `Bearer ${credential.token}`;
    const token = await this.#fetchToken(challenge, scope, credential, url);
    return token;
  }

  /**
   * What may be sent to a token realm. Explicit credentials are bound to the registry host
   * they were given for: a realm on another host (which the registry, and so a pull request
   * naming that registry, chooses) gets them only when it has an entry of its own, or is
   * Docker Hub's own token service. Docker config and GITHUB_TOKEN are the user's own
   * mapping of hosts and are sent as docker does.
   */
  #realmCredential(credential: Credential, realmHost: string): Credential {
    if (!isExplicitCredential(credential) || sameService(this.#registry, realmHost)) return credential;
    const own = explicitCredentialFor(realmHost, this.#context.credentials);
    if (own && this.#context.credentials.hostCredentials) {
      registerSecrets(own, this.#context.secrets);
      return own;
    }
    return {
      kind: 'anonymous',
      source: `the token realm ${realmHost} is not ${this.#registry}; explicit credentials are not sent there without an entry of its own`,
    };
  }

  async #fetchToken(challenge: Challenge, scope: string, credential: Credential, url: string): Promise<string> {
    const realm = challenge.params.realm;
    if (!realm)
      throw new OciError(
        'unauthorized',
        url,
        `unauthorised: the Bearer challenge of ${this.#registry} names no realm`,
        401,
      );
    let realmUrl: URL;
    try {
      realmUrl = new URL(realm);
    } catch {
      throw new OciError(
        'unauthorized',
        url,
        `unauthorised: the token realm ${JSON.stringify(realm)} of ${this.#registry} is not a URL`,
        401,
      );
    }
    if (realmUrl.protocol !== 'https:' && realmUrl.protocol !== 'http:') {
      throw new OciError('unauthorized', url, `unauthorised: the token realm of ${this.#registry} is not http(s)`, 401);
    }
    const service = challenge.params.service;
    credential = this.#realmCredential(credential, realmUrl.host);
    const { secrets, timeoutMs, userAgent, signal } = this.#context;
    const headers: Record<string, string> = { 'User-Agent': userAgent, Accept: 'application/json' };
    let method: 'GET' | 'POST' = 'GET';
    let body: string | undefined;
    if (credential.kind === 'identity') {
      method = 'POST';
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: credential.refreshToken,
        client_id: 'timoni-fleet',
        scope,
      });
      if (service) form.set('service', service);
      body = form.toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    } else {
      if (service) realmUrl.searchParams.set('service', service);
      realmUrl.searchParams.set('scope', scope);
      if (credential.kind === 'basic') {
        const basic = Buffer.from(`${credential.username}:${credential.password}`).toString('base64');
        secrets.add(basic);
        headers.Authorization = `Basic ${basic}`;
        if (credential.username !== '') realmUrl.searchParams.set('account', credential.username);
      }
    }
    const where = `${realmUrl.origin}${realmUrl.pathname}`;
    const response = await withRetry(
      async () => {
        const res = await send(realmUrl, { method, headers, body, timeoutMs, signal });
        const status = res.statusCode ?? 0;
        if (status === 401 || status === 403) {
          await drain(res);
          throw await this.rejected(url, status, ` (token endpoint ${where})`);
        }
        if (isRetryableStatus(status)) {
          await drain(res);
          throw new TransientError(
            `token endpoint ${where} answered ${status}`,
            status,
            parseRetryAfter(res.headers['retry-after'] as string | undefined),
          );
        }
        if (status < 200 || status >= 300) {
          await drain(res);
          throw new OciError(
            'unauthorized',
            url,
            `token endpoint ${where} of ${this.#registry} answered ${status}`,
            status,
          );
        }
        return readBody(res, TOKEN_LIMIT);
      },
      this.#context.retry,
      ({ error, attempts }) =>
        new OciError(
          'network',
          url,
          `token endpoint ${where} of ${this.#registry} failed after ${attempts} attempts: ${error.message}`,
          error instanceof TransientError ? error.status : undefined,
        ),
    );
    let parsed: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(response.toString('utf8')) as typeof parsed;
    } catch {
      throw new OciError(
        'unauthorized',
        url,
        `token endpoint ${where} of ${this.#registry} answered with something that is not JSON`,
      );
    }
    const token = typeof parsed.token === 'string' && parsed.token !== '' ? parsed.token : parsed.access_token;
    if (typeof token !== 'string' || token === '')
      throw new OciError('unauthorized', url, `token endpoint ${where} of ${this.#registry} returned no token`);
    secrets.add(token);
    const lifetime = typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 60;
    const header = `Bearer ${token}`;
    this.#tokens.set(scope, { header, expiresAt: Date.now() + Math.max(1, lifetime - 10) * 1000 });
    return header;
  }
}

const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** The host name of `host[:port]` (IPv6 in brackets kept whole). */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.replace(/:\d+$/, '');
}

/**
 * True when a token realm belongs to the registry itself: the same host name (a token
 * service on another port of the same host is the registry's own), or Docker Hub's.
 */
function sameService(registry: string, realmHost: string): boolean {
  const registryHost = hostName(registry);
  const realm = hostName(realmHost);
  if (registryHost === realm) return true;
  return DOCKER_HUB.has(registryHost) && realm === 'auth.docker.io';
}

// Parses `WWW-Authenticate` challenges (RFC 7235) as registries send them:
//   Bearer realm="https://auth.example/token",service="registry",scope="repository:a/b:pull"
//   Basic realm="Registry Realm"
// Several challenges may share one header (Node.js joins repeated headers with ", ").

export interface Challenge {
  /** Lower-cased scheme: `bearer`, `basic`, ... */
  scheme: string;
  /** Parameters with lower-cased names; values unquoted. */
  params: Record<string, string>;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;

export function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let i = 0;
  const skip = (chars: RegExp): void => {
    while (i < header.length && chars.test(header[i] ?? '')) i += 1;
  };
  const token = (): string | undefined => {
    TOKEN.lastIndex = i;
    const match = TOKEN.exec(header);
    if (!match) return undefined;
    i = TOKEN.lastIndex;
    return match[0];
  };
  let current: Challenge | undefined;
  while (i < header.length) {
    skip(/[\s,]/);
    if (i >= header.length) break;
    const word = token();
    if (word === undefined) {
      // an unexpected character: skip the rest of this element rather than give up
      while (i < header.length && header[i] !== ',') i += 1;
      continue;
    }
    skip(/[ \t]/);
    if (header[i] === '=' && current) {
      i += 1;
      skip(/[ \t]/);
      let value: string;
      if (header[i] === '"') {
        i += 1;
        value = '';
        while (i < header.length && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < header.length) i += 1;
          value += header[i];
          i += 1;
        }
        i += 1;
      } else {
        // lenient: an unquoted value runs to the next comma or space
        const start = i;
        while (i < header.length && !/[\s,]/.test(header[i] ?? '')) i += 1;
        value = header.slice(start, i);
      }
      current.params[word.toLowerCase()] = value;
      continue;
    }
    if (header[i] === '=' && !current) {
      // token68 or a parameter before any scheme: malformed, skip to the next comma
      while (i < header.length && header[i] !== ',') i += 1;
      continue;
    }
    current = { scheme: word.toLowerCase(), params: {} };
    challenges.push(current);
  }
  return challenges;
}

/** The challenge to answer: Bearer when offered, else Basic, else the first. */
export function preferredChallenge(challenges: Challenge[]): Challenge | undefined {
  return challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'basic') ?? challenges[0];
}
