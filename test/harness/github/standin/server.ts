// The GitHub REST API stand-in: a node:http server on 127.0.0.1 that answers like
// api.github.com for the endpoints timoni-fleet uses (see router.ts), with GitHub's
// authentication, error bodies, pagination and rate-limit headers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Reply, type RequestContext } from './context.js';
import { DOCS, GitHubError, badCredentials } from './errors.js';
import { ANONYMOUS_LIMIT, GITHUB_TOKEN_LIMIT, RateLimitBudget, USER_TOKEN_LIMIT } from './rate-limit.js';
import { route } from './router.js';
import { GitHubState } from './state.js';
import {
  type KnownToken,
  type TokenSpec,
  generateInstallationToken,
  knownToken,
  readAuthorization,
  redactAuthorization,
} from './tokens.js';
import { GITHUB_ACTIONS_BOT } from './users.js';

export interface GitHubStandInOptions {
  /** Extra tokens to accept, beside the two generated ones (`token`, `readOnlyToken`). */
  tokens?: TokenSpec[];
  /** owner/name of the repositories the generated tokens are granted (all when left out), as a GITHUB_TOKEN is granted its own. */
  tokenRepositories?: string[];
  /** Requests per hour for every authenticated token (default: 1,000 for installation tokens, 5,000 for user tokens). */
  rateLimit?: number;
  /** The web server URL used in html_url fields. */
  serverUrl?: string;
  /** Clock for created_at/updated_at (tests that need fixed times). */
  now?: () => Date;
}

export interface GitHubStandIn {
  /** Base URL, for GITHUB_API_URL (no trailing slash). */
  url: string;
  state: GitHubState;
  /** A write-capable installation token acting as github-actions[bot]. */
  token: string;
  /** A read-only installation token, as a workflow on a fork's pull request receives. */
  readOnlyToken: string;
  /** Current rate-limit budget of a token (or of anonymous callers without one). */
  rateLimit(token?: string): ReturnType<RateLimitBudget['snapshot']>;
  stop(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseLoggedBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export async function startGitHubStandIn(options: GitHubStandInOptions = {}): Promise<GitHubStandIn> {
  const state = new GitHubState(options.now);
  const scope = options.tokenRepositories;
  const writeToken = knownToken({
    token: generateInstallationToken(),
    access: 'write',
    account: GITHUB_ACTIONS_BOT,
    repositories: scope,
  });
  const readToken = knownToken({
    token: generateInstallationToken(),
    access: 'read',
    account: GITHUB_ACTIONS_BOT,
    repositories: scope,
  });
  const tokens = new Map<string, KnownToken>();
  for (const t of [writeToken, readToken, ...(options.tokens ?? []).map(knownToken)]) tokens.set(t.token, t);

  const reset = Math.floor(Date.now() / 1000) + 3600;
  const budgets = new Map<string, RateLimitBudget>();
  const anonymous = new RateLimitBudget(ANONYMOUS_LIMIT, reset);
  const budgetOf = (caller: KnownToken | undefined): RateLimitBudget => {
    if (!caller) return anonymous;
    let budget = budgets.get(caller.token);
    if (!budget) {
      budget = new RateLimitBudget(
        options.rateLimit ?? (caller.kind === 'installation' ? GITHUB_TOKEN_LIMIT : USER_TOKEN_LIMIT),
        reset,
      );
      budgets.set(caller.token, budget);
    }
    return budget;
  };

  let urls = { api: '', server: options.serverUrl ?? 'https://github.com' };

  const answer = (res: ServerResponse, requestId: string, budget: RateLimitBudget, reply: Reply): void => {
    const headers: Record<string, string> = {
      'x-github-request-id': requestId,
      'x-github-media-type': 'github.v3; format=json',
      'x-github-api-version-selected': '2022-11-28',
      ...budget.headers(),
      ...(reply.headers ?? {}),
    };
    if (reply.html !== undefined) {
      res.writeHead(reply.status, { ...headers, 'content-type': 'text/html; charset=utf-8' });
      res.end(reply.html);
      return;
    }
    if (reply.raw !== undefined) {
      res.writeHead(reply.status, {
        ...headers,
        'x-github-media-type': 'github.v3; param=raw',
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(reply.raw.length),
      });
      res.end(reply.raw);
      return;
    }
    if (reply.status === 204 || reply.body === undefined) {
      res.writeHead(reply.status, headers);
      res.end();
      return;
    }
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = state.requestId();
    const rawBody = await readBody(req);
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', urls.api);
    const loggedHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : value;
      loggedHeaders[name] = name === 'authorization' ? redactAuthorization(text) : text;
    }
    const record = {
      requestId,
      method,
      path: req.url ?? '/',
      headers: loggedHeaders,
      body: parseLoggedBody(rawBody),
      status: 0,
    };
    state.requests.push(record);

    const credentials = readAuthorization(req.headers.authorization);
    const caller = credentials.kind === 'token' ? tokens.get(credentials.token) : undefined;
    const budget = budgetOf(caller);
    let reply: Reply;
    try {
      if (credentials.kind === 'malformed' || (credentials.kind === 'token' && !caller)) {
        budget.take();
        throw badCredentials();
      }
      if (url.pathname === '/rate_limit' && method === 'GET') {
        // GitHub does not count calls to /rate_limit against the budget.
        const core = budget.snapshot();
        reply = { status: 200, body: { resources: { core }, rate: core } };
      } else {
        const secondary = state.takeSecondaryRateLimit();
        if (!budget.take()) {
          const who = caller ? `installation ID ${caller.account.id}` : '127.0.0.1';
          throw new GitHubError(
            403,
            `API rate limit exceeded for ${who}.`,
            `${DOCS}/overview/rate-limits-for-the-rest-api#about-primary-rate-limits`,
          );
        }
        if (secondary) {
          throw new GitHubError(
            secondary.status,
            `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ${requestId}.`,
            `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`,
            undefined,
            { 'retry-after': String(secondary.retryAfter) },
          );
        }
        const forced = state.takeForcedError(method, url.pathname);
        if (forced?.hang) {
          // A GitHub that never answers: the connection stays open until the client gives up.
          record.status = -1;
          await new Promise<void>((resolve) => res.once('close', () => resolve()));
          return;
        }
        if (forced?.html) {
          reply = {
            status: forced.status,
            html: `<!DOCTYPE html>\n<html><head><title>Unicorn! &middot; GitHub</title></head><body>${forced.message}</body></html>\n`,
          };
          record.status = reply.status;
          answer(res, requestId, budget, reply);
          return;
        }
        if (forced) throw new GitHubError(forced.status, forced.message, DOCS);
        const ctx: RequestContext = { state, urls, method, url, caller, rawBody, accept: req.headers.accept ?? '' };
        reply = route(ctx);
      }
    } catch (error) {
      if (error instanceof GitHubError) {
        reply = { status: error.status, body: error.body(), headers: error.headers };
      } else {
        const message = error instanceof Error ? error.message : String(error);
        reply = {
          status: 500,
          body: {
            message: `stand-in failure on ${method} ${url.pathname}: ${message}`,
            documentation_url: DOCS,
            status: '500',
          },
        };
      }
    }
    record.status = reply.status;
    answer(res, requestId, budget, reply);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({ message: `stand-in crashed: ${String(error)}`, documentation_url: DOCS, status: '500' }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  urls = { ...urls, api: `http://127.0.0.1:${address.port}` };

  return {
    url: urls.api,
    state,
    token: writeToken.token,
    readOnlyToken: readToken.token,
    rateLimit: (token?: string) => budgetOf(token === undefined ? undefined : tokens.get(token)).snapshot(),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) =>
          error ? reject(new Error(`stopping the GitHub stand-in: ${error.message}`)) : resolve(),
        );
      }),
  };
}
