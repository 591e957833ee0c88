// A small client for the OCI distribution API over node:http, for the tests' pushes and
// pulls (the product's own OCI client lives in src/module/). It answers registry
// challenges the way docker and crane do: basic credentials for `Basic`, a token from
// the realm for `Bearer` (with basic credentials when it has some).
import { request as httpRequest, Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { parseChallenge } from './www-authenticate.js';

export interface ClientCredentials {
  username: string;
  password: string;
}

export interface RegistryResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A registry answered with an unexpected status; the message never holds credentials. */
export class RegistryHttpError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly responseBody: string,
    what: string,
  ) {
    super(`${what}: ${method} ${url} answered ${status}${responseBody ? `: ${responseBody.slice(0, 500)}` : ''}`);
    this.name = 'RegistryHttpError';
  }
}

interface SendOptions {
  headers?: OutgoingHttpHeaders;
  body?: Buffer;
  /** Statuses that count as success. */
  expect: number[];
  /** What the request is for, for error messages, e.g. `uploading layer sha256:...`. */
  what: string;
}

/** `registry` is `http://127.0.0.1:PORT` or `127.0.0.1:PORT` (plain HTTP: loopback only). */
export function registryBaseUrl(registry: string): URL {
  const base = new URL(/^https?:\/\//.test(registry) ? registry : `http://${registry}`);
  if (base.protocol !== 'http:') throw new Error(`test registry client speaks plain HTTP only, got ${registry}`);
  return base;
}

export class DistributionClient {
  readonly base: URL;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private authorization: string | undefined;

  /**
   * @param repository e.g. `apps/podinfo`
   * @param actions what the client will do, for token scopes: `['pull']` or `['pull', 'push']`
   */
  constructor(
    registry: string,
    readonly repository: string,
    private readonly credentials: ClientCredentials | undefined,
    private readonly actions: string[],
  ) {
    this.base = registryBaseUrl(registry);
  }

  close(): void {
    this.agent.destroy();
  }

  /** Sends a request to `pathOrUrl` (a path under the registry or an absolute upload URL). */
  async send(method: string, pathOrUrl: string, options: SendOptions): Promise<RegistryResponse> {
    const url = new URL(pathOrUrl, this.base);
    let response = await this.exchange(method, url, options);
    if (response.status === 401) {
      const header = response.headers['www-authenticate'];
      if (typeof header !== 'string') {
        throw new RegistryHttpError(
          method,
          url.href,
          401,
          response.body.toString('utf8'),
          `${options.what} (no WWW-Authenticate challenge)`,
        );
      }
      if (parseChallenge(header).scheme === 'basic' && !this.credentials) {
        throw new RegistryHttpError(
          method,
          url.href,
          401,
          response.body.toString('utf8'),
          `${options.what} (basic credentials required, none given)`,
        );
      }
      await this.answerChallenge(header, options.what);
      response = await this.exchange(method, url, options);
    }
    if (!options.expect.includes(response.status)) {
      const refused = response.status === 401 ? ' (credentials refused)' : '';
      throw new RegistryHttpError(
        method,
        url.href,
        response.status,
        response.body.toString('utf8'),
        `${options.what}${refused}`,
      );
    }
    return response;
  }

  private async answerChallenge(header: string, what: string): Promise<void> {
    const challenge = parseChallenge(header);
    const basic = this.credentials
      ? `Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`
      : undefined;
    if (challenge.scheme === 'basic') {
      this.authorization = basic;
      return;
    }
    if (challenge.scheme !== 'bearer')
      throw new Error(`${what}: unsupported authentication scheme ${challenge.scheme} at ${this.base.host}`);
    const realm = challenge.params.realm;
    if (!realm) throw new Error(`${what}: the bearer challenge of ${this.base.host} has no realm`);
    const tokenUrl = new URL(realm);
    if (challenge.params.service) tokenUrl.searchParams.set('service', challenge.params.service);
    tokenUrl.searchParams.append('scope', `repository:${this.repository}:${this.actions.join(',')}`);
    const response = await this.exchange(
      'GET',
      tokenUrl,
      { headers: basic ? { authorization: basic } : {}, expect: [200], what },
      false,
    );
    if (response.status !== 200) {
      const refused = response.status === 401 ? ' (credentials refused by the token service)' : '';
      throw new RegistryHttpError(
        'GET',
        tokenUrl.href,
        response.status,
        response.body.toString('utf8'),
        `${what}: fetching a token${refused}`,
      );
    }
    const parsed = JSON.parse(response.body.toString('utf8')) as { token?: string; access_token?: string };
    const token = parsed.token ?? parsed.access_token;
    if (!token) throw new Error(`${what}: the token service at ${tokenUrl.origin} returned no token`);
    this.authorization = `Bearer ${token}`;
  }

  private exchange(method: string, url: URL, options: SendOptions, authorize = true): Promise<RegistryResponse> {
    const headers: OutgoingHttpHeaders = { 'user-agent': 'timoni-fleet-tests', ...options.headers };
    if (authorize && this.authorization) headers.authorization = this.authorization;
    if (options.body) headers['content-length'] = options.body.length;
    else if (method === 'PUT' || method === 'POST' || method === 'PATCH') headers['content-length'] = 0;
    return new Promise((resolveResponse, reject) => {
      const request = httpRequest(url, { method, headers, agent: this.agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolveResponse({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', (error) =>
          reject(new Error(`${options.what}: reading the answer to ${method} ${url.href} failed: ${error.message}`)),
        );
      });
      request.on('error', (error) =>
        reject(new Error(`${options.what}: ${method} ${url.href} failed: ${error.message}`)),
      );
      request.end(options.body);
    });
  }
}
