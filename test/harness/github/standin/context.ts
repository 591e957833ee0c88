// What a route handler receives, what it answers, and the access checks it shares
// with the other handlers.
import {
  GitHubError,
  notAccessibleByIntegration,
  notFound,
  problemsParsingJson,
  requiresAuthentication,
} from './errors.js';
import type { Urls } from './objects.js';
import type { RepositoryRecord } from './records.js';
import type { GitHubState } from './state.js';
import type { KnownToken } from './tokens.js';

export interface RequestContext {
  state: GitHubState;
  urls: Urls;
  method: string;
  url: URL;
  /** The authenticated token, or undefined for an anonymous request. */
  caller: KnownToken | undefined;
  /** The raw request body. */
  rawBody: string;
  /** The request's Accept header ('' when absent): a media type such as `application/vnd.github.raw+json`. */
  accept: string;
}

export interface Reply {
  status: number;
  /** JSON body; undefined for 204. */
  body?: unknown;
  headers?: Record<string, string>;
  /** An HTML page instead of JSON (what GitHub's front end answers on a 502 or 504). */
  html?: string;
  /** Bytes as they are (`text/plain`), for the raw media type of the contents endpoint. */
  raw?: Buffer;
}

/** Whether the caller's token is granted this repository. */
function granted(ctx: RequestContext, repository: RepositoryRecord): boolean {
  const scope = ctx.caller?.repositories;
  return (
    ctx.caller !== undefined &&
    (scope === undefined || scope.has(`${repository.owner.login}/${repository.name}`.toLowerCase()))
  );
}

/**
 * The repository a request names, checked for visibility: a private repository is
 * 404 to anonymous callers and to tokens not granted it, as GitHub hides it.
 */
export function visibleRepository(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  docs: string,
): RepositoryRecord {
  if (!repository) throw notFound(docs);
  if (repository.private && !granted(ctx, repository)) throw notFound(docs);
  return repository;
}

/** Refuses a write to callers that may not write to this repository. */
export function requireWrite(ctx: RequestContext, repository: RepositoryRecord, docs: string): void {
  if (!ctx.caller) throw requiresAuthentication(docs);
  if (ctx.caller.access !== 'write' || !granted(ctx, repository)) throw notAccessibleByIntegration(docs);
}

/** The request body as a JSON object, or GitHub's 400 when it is not JSON. */
export function jsonBody(ctx: RequestContext, docs: string): Record<string, unknown> {
  if (ctx.rawBody.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(ctx.rawBody);
  } catch {
    throw problemsParsingJson(docs);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw problemsParsingJson(docs);
  return parsed as Record<string, unknown>;
}

/** A path segment that must be a positive integer (issue numbers, comment ids); 404 otherwise. */
export function numericSegment(segment: string, docs: string): number {
  if (!/^\d+$/.test(segment)) throw notFound(docs);
  return Number.parseInt(segment, 10);
}

export { GitHubError };
