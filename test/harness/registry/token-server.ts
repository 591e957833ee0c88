// The registry's token service, in the shape of Docker Hub's and ghcr.io's: the registry
// answers 401 with `WWW-Authenticate: Bearer realm=".../token",service=...,scope=...`,
// the client asks the realm for a token (GET with optional basic credentials, or the
// OAuth2 password grant over POST) and retries with `Authorization: Bearer <jwt>`.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RegistryUser } from './auth-files.js';
import type { TokenAccess, TokenSigner } from './jwt.js';

export interface TokenServiceOptions {
  signer: TokenSigner;
  /** `iss` of the tokens; the registry's `auth.token.issuer`. */
  issuer: string;
  /** `aud` of the tokens; the registry's `auth.token.service`. */
  service: string;
  users: RegistryUser[];
  /** Grant `pull` to requests without credentials (public repositories). */
  anonymousPull: boolean;
  /** Token lifetime in seconds. */
  expiresIn: number;
}

/** Parses `type:name:actions` scopes; names may hold ':' (e.g. a port), actions are the last part. */
export function parseScopes(scopes: string[]): TokenAccess[] {
  const access: TokenAccess[] = [];
  for (const scope of scopes.flatMap((value) => value.split(' ')).filter((value) => value !== '')) {
    const parts = scope.split(':');
    if (parts.length < 3)
      throw new TokenRequestError(400, 'invalid_scope', `scope ${JSON.stringify(scope)} is not type:name:actions`);
    const type = parts[0] ?? '';
    const actions = (parts[parts.length - 1] ?? '').split(',').filter((action) => action !== '');
    access.push({ type, name: parts.slice(1, -1).join(':'), actions });
  }
  return access;
}

class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

interface TokenRequest {
  service: string | null;
  scopes: string[];
  /** Present when the client sent credentials. */
  login?: { name: string; password: string };
}

async function readTokenRequest(request: IncomingMessage, url: URL): Promise<TokenRequest> {
  if (request.method === 'GET') {
    const result: TokenRequest = { service: url.searchParams.get('service'), scopes: url.searchParams.getAll('scope') };
    const [scheme, encoded] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() === 'basic' && encoded) {
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new TokenRequestError(400, 'invalid_request', 'basic credentials are not user:password');
      result.login = { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    return result;
  }
  if (request.method === 'POST') {
    const form = new URLSearchParams(await readBody(request));
    const grant = form.get('grant_type');
    if (grant !== 'password')
      throw new TokenRequestError(
        400,
        'unsupported_grant_type',
        `grant_type ${JSON.stringify(grant)} is not supported; use password`,
      );
    return {
      service: form.get('service'),
      scopes: form.getAll('scope'),
      login: { name: form.get('username') ?? '', password: form.get('password') ?? '' },
    };
  }
  throw new TokenRequestError(
    405,
    'method_not_allowed',
    `${request.method ?? 'no method'} is not allowed on the token endpoint`,
  );
}

/** Decides what a caller may do: users get every action they ask for, anonymous callers `pull` at most. */
function grant(requested: TokenAccess[], authenticated: boolean, anonymousPull: boolean): TokenAccess[] {
  return requested
    .map((item) => ({
      ...item,
      actions: authenticated
        ? item.actions
        : anonymousPull && item.type === 'repository'
          ? item.actions.filter((action) => action === 'pull')
          : [],
    }))
    .filter((item) => item.actions.length > 0);
}

/** Returns a node:http handler for the token endpoint. */
export function tokenService(
  options: TokenServiceOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://token.invalid');
    readTokenRequest(request, url)
      .then((tokenRequest) => {
        if (tokenRequest.service !== null && tokenRequest.service !== options.service) {
          throw new TokenRequestError(
            400,
            'invalid_request',
            `service ${JSON.stringify(tokenRequest.service)} is not ${JSON.stringify(options.service)}`,
          );
        }
        let subject = '';
        if (tokenRequest.login) {
          const login = tokenRequest.login;
          const user = options.users.find((candidate) => candidate.name === login.name);
          // Same work for unknown users and wrong passwords.
          const matches = sameSecret(user?.password ?? '\0no user', login.password) && user !== undefined;
          if (!matches)
            throw new TokenRequestError(
              401,
              'UNAUTHORIZED',
              `invalid username or password for ${JSON.stringify(login.name)}`,
            );
          subject = login.name;
        }
        const access = grant(parseScopes(tokenRequest.scopes), subject !== '', options.anonymousPull);
        const now = Math.floor(Date.now() / 1000);
        const token = options.signer.sign(
          { issuer: options.issuer, subject, audience: options.service, access, expiresIn: options.expiresIn },
          now,
        );
        send(response, 200, {
          token,
          access_token: token,
          expires_in: options.expiresIn,
          issued_at: new Date(now * 1000).toISOString(),
        });
      })
      .catch((error: unknown) => {
        if (error instanceof TokenRequestError) {
          const headers: Record<string, string> =
            error.status === 401 ? { 'www-authenticate': 'Basic realm="timoni-fleet test token service"' } : {};
          send(response, error.status, { errors: [{ code: error.code, message: error.message }] }, headers);
        } else {
          send(response, 500, {
            errors: [{ code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) }],
          });
        }
      });
  };
}
