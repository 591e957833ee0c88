// Issue comments (pull requests are issues here):
//   GET    /repos/{o}/{r}/issues/{n}/comments      list, paginated, `since`
//   POST   /repos/{o}/{r}/issues/{n}/comments      create (201)
//   GET    /repos/{o}/{r}/issues/comments/{id}     get
//   PATCH  /repos/{o}/{r}/issues/comments/{id}     update
//   DELETE /repos/{o}/{r}/issues/comments/{id}     delete (204)
import { COMMENT_BODY_MAX_CHARACTERS, githubCharacterCount } from '../body-length.js';
import {
  type Reply,
  type RequestContext,
  jsonBody,
  numericSegment,
  requireWrite,
  visibleRepository,
} from '../context.js';
import { GitHubError, OPERATION_DOCS, invalidRequest, notFound, validationFailed } from '../errors.js';
import { commentObject } from '../objects.js';
import { paginate } from '../pagination.js';
import type { CommentRecord, RepositoryRecord } from '../records.js';

function describe(value: unknown): string {
  if (value === null) return 'nil';
  return JSON.stringify(value);
}

/** The `body` of a create or update request, checked as GitHub checks it. */
function commentBody(ctx: RequestContext, docs: string): string {
  const input = jsonBody(ctx, docs);
  if (!('body' in input)) throw invalidRequest('"body" wasn\'t supplied.', docs);
  const body = input.body;
  if (typeof body !== 'string') throw invalidRequest(`For 'properties/body', ${describe(body)} is not a string.`, docs);
  if (body.trim() === '') {
    throw validationFailed(
      [{ resource: 'IssueComment', code: 'unprocessable', field: 'data', message: 'Body cannot be blank' }],
      docs,
    );
  }
  if (githubCharacterCount(body) > COMMENT_BODY_MAX_CHARACTERS) {
    throw validationFailed(
      [
        {
          resource: 'IssueComment',
          code: 'unprocessable',
          field: 'data',
          message: `Body is too long (maximum is ${COMMENT_BODY_MAX_CHARACTERS} characters)`,
        },
      ],
      docs,
    );
  }
  return body;
}

function render(ctx: RequestContext, repo: RepositoryRecord, c: CommentRecord): Record<string, unknown> {
  const isPullRequest = ctx.state.issue(repo, c.issueNumber)?.pullRequest !== undefined;
  return commentObject(c, repo, isPullRequest, ctx.urls);
}

function issueOf(ctx: RequestContext, repo: RepositoryRecord, numberSegment: string, docs: string): number {
  const number = numericSegment(numberSegment, docs);
  if (!ctx.state.issue(repo, number)) throw notFound(docs);
  return number;
}

export function listIssueComments(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  numberSegment: string,
  linkBase: string,
): Reply {
  const docs = OPERATION_DOCS.listIssueComments;
  const repo = visibleRepository(ctx, repository, docs);
  const number = issueOf(ctx, repo, numberSegment, docs);
  let all = ctx.state.commentsOf(repo, number);
  const since = ctx.url.searchParams.get('since');
  if (since !== null) {
    const t = Date.parse(since);
    if (Number.isNaN(t))
      throw invalidRequest(`For 'properties/since', ${JSON.stringify(since)} is not a date-time.`, docs);
    all = all.filter((c) => Date.parse(c.updatedAt) >= t);
  }
  const page = paginate(all, ctx.url.searchParams, linkBase);
  return {
    status: 200,
    body: page.items.map((c) => render(ctx, repo, c)),
    headers: page.link ? { link: page.link } : {},
  };
}

export function createIssueComment(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  numberSegment: string,
): Reply {
  const docs = OPERATION_DOCS.createIssueComment;
  const repo = visibleRepository(ctx, repository, docs);
  const number = issueOf(ctx, repo, numberSegment, docs);
  requireWrite(ctx, repo, docs);
  const body = commentBody(ctx, docs);
  if (!ctx.caller) throw new GitHubError(500, 'stand-in: a write passed requireWrite without a caller', docs);
  const record = ctx.state.createComment(repo, number, body, ctx.caller.account);
  const rendered = render(ctx, repo, record);
  return { status: 201, body: rendered, headers: { location: String(rendered.url) } };
}

function existingComment(ctx: RequestContext, repo: RepositoryRecord, idSegment: string, docs: string): CommentRecord {
  const record = ctx.state.comment(numericSegment(idSegment, docs));
  if (!record || record.repositoryId !== repo.id) throw notFound(docs);
  return record;
}

export function getIssueComment(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  idSegment: string,
): Reply {
  const docs = OPERATION_DOCS.getIssueComment;
  const repo = visibleRepository(ctx, repository, docs);
  return { status: 200, body: render(ctx, repo, existingComment(ctx, repo, idSegment, docs)) };
}

export function updateIssueComment(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  idSegment: string,
): Reply {
  const docs = OPERATION_DOCS.updateIssueComment;
  const repo = visibleRepository(ctx, repository, docs);
  const record = existingComment(ctx, repo, idSegment, docs);
  requireWrite(ctx, repo, docs);
  ctx.state.updateComment(record, commentBody(ctx, docs));
  return { status: 200, body: render(ctx, repo, record) };
}

export function deleteIssueComment(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  idSegment: string,
): Reply {
  const docs = OPERATION_DOCS.deleteIssueComment;
  const repo = visibleRepository(ctx, repository, docs);
  const record = existingComment(ctx, repo, idSegment, docs);
  requireWrite(ctx, repo, docs);
  ctx.state.deleteComment(record.id);
  return { status: 204 };
}
