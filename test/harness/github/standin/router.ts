// Maps a method and path to its handler. Repository routes answer under both
// /repos/{owner}/{repo} and /repositories/{id} (the form GitHub's Link headers use).
import { type Reply, type RequestContext } from './context.js';
import { DOCS, notFound } from './errors.js';
import type { RepositoryRecord } from './records.js';
import { getContent } from './routes/contents.js';
import {
  createIssueComment,
  deleteIssueComment,
  getIssueComment,
  listIssueComments,
  updateIssueComment,
} from './routes/comments.js';
import { createIssue, getIssue, listRepositoryIssues, updateIssue } from './routes/issues.js';
import { getPullRequest, listPullRequestsForCommit } from './routes/pulls.js';
import { getRepository } from './routes/repository.js';
import { authenticatedUser } from './routes/user.js';

interface RepositoryPath {
  repository: RepositoryRecord | undefined;
  /** Absolute URL prefix Link headers use for this repository. */
  linkPrefix: string | undefined;
  rest: string[];
}

function splitRepositoryPath(ctx: RequestContext, segments: string[]): RepositoryPath | undefined {
  if (segments[0] === 'repos' && segments.length >= 3) {
    const repository = ctx.state.repository(segments[1] ?? '', segments[2] ?? '');
    return {
      repository,
      linkPrefix: repository ? `${ctx.urls.api}/repositories/${repository.id}` : undefined,
      rest: segments.slice(3),
    };
  }
  if (segments[0] === 'repositories' && segments.length >= 2 && /^\d+$/.test(segments[1] ?? '')) {
    const repository = ctx.state.repositoryById(Number.parseInt(segments[1] ?? '', 10));
    return {
      repository,
      linkPrefix: repository ? `${ctx.urls.api}/repositories/${repository.id}` : undefined,
      rest: segments.slice(2),
    };
  }
  return undefined;
}

/** Routes one authenticated (or anonymous) request; throws GitHubError for error answers. */
export function route(ctx: RequestContext): Reply {
  const segments = ctx.url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
  if (segments.length === 1 && segments[0] === 'user' && ctx.method === 'GET') return authenticatedUser(ctx);
  const target = splitRepositoryPath(ctx, segments);
  if (!target) throw notFound(DOCS);
  const { repository, rest } = target;
  const link = (suffix: string): string => `${target.linkPrefix ?? ctx.urls.api}${suffix}`;
  const m = ctx.method;
  const [a, b, c] = rest;

  if (rest.length === 0 && m === 'GET') return getRepository(ctx, repository);
  if (rest.length === 1 && a === 'issues') {
    if (m === 'GET') return listRepositoryIssues(ctx, repository, link('/issues'));
    if (m === 'POST') return createIssue(ctx, repository);
  }
  if (rest.length === 2 && a === 'issues' && b !== undefined && b !== 'comments') {
    if (m === 'GET') return getIssue(ctx, repository, b);
    if (m === 'PATCH') return updateIssue(ctx, repository, b);
  }
  if (rest.length === 3 && a === 'issues' && b === 'comments' && c !== undefined) {
    if (m === 'GET') return getIssueComment(ctx, repository, c);
    if (m === 'PATCH') return updateIssueComment(ctx, repository, c);
    if (m === 'DELETE') return deleteIssueComment(ctx, repository, c);
  }
  if (rest.length === 3 && a === 'issues' && b !== undefined && c === 'comments') {
    if (m === 'GET') return listIssueComments(ctx, repository, b, link(`/issues/${b}/comments`));
    if (m === 'POST') return createIssueComment(ctx, repository, b);
  }
  if (rest.length >= 1 && a === 'contents' && m === 'GET') return getContent(ctx, repository, rest.slice(1));
  if (rest.length === 2 && a === 'pulls' && b !== undefined && m === 'GET') return getPullRequest(ctx, repository, b);
  if (rest.length === 3 && a === 'commits' && b !== undefined && c === 'pulls' && m === 'GET') {
    return listPullRequestsForCommit(ctx, repository, b, link(`/commits/${b}/pulls`));
  }
  throw notFound(DOCS);
}
