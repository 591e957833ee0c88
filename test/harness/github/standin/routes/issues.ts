// Issues (pull requests are issues here too, as on GitHub):
//   GET    /repos/{o}/{r}/issues          list, paginated; state (open), creator, labels, sort, direction
//   POST   /repos/{o}/{r}/issues          create (201, Location)
//   GET    /repos/{o}/{r}/issues/{n}      get (a pull request's number renders with `pull_request`)
//   PATCH  /repos/{o}/{r}/issues/{n}      update: title, body, state, state_reason, labels
//
// As GitHub: the list holds pull requests (with `pull_request`), newest first; a repository
// with issues turned off answers 410 "Issues are disabled for this repo" to create, get and
// update; a body over 65,536 characters is a 422 naming the field; labels a writer names
// that do not exist yet are created.
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
import { issueObject } from '../objects.js';
import { paginate } from '../pagination.js';
import type { IssueRecord, RepositoryRecord } from '../records.js';
import type { IssueChanges } from '../state.js';

/** GitHub's limit on an issue title. */
export const ISSUE_TITLE_MAX_CHARACTERS = 256;

function describe(value: unknown): string {
  return value === null ? 'nil' : JSON.stringify(value);
}

function issuesEnabled(repo: RepositoryRecord, docs: string): void {
  if (repo.hasIssues === false) throw new GitHubError(410, 'Issues are disabled for this repo', docs);
}

function render(ctx: RequestContext, repo: RepositoryRecord, issue: IssueRecord): Record<string, unknown> {
  return issueObject(issue, repo, ctx.state.commentsOf(repo, issue.number).length, ctx.urls);
}

function oneOf<T extends string>(
  ctx: RequestContext,
  name: string,
  allowed: readonly T[],
  fallback: T,
  docs: string,
): T {
  const raw = ctx.url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw invalidRequest(
      `For 'properties/${name}', ${JSON.stringify(raw)} is not one of [${allowed.map((a) => JSON.stringify(a)).join(', ')}].`,
      docs,
    );
  return raw as T;
}

export function listRepositoryIssues(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  linkBase: string,
): Reply {
  const docs = OPERATION_DOCS.listRepositoryIssues;
  const repo = visibleRepository(ctx, repository, docs);
  const state = oneOf(ctx, 'state', ['open', 'closed', 'all'] as const, 'open', docs);
  const direction = oneOf(ctx, 'direction', ['asc', 'desc'] as const, 'desc', docs);
  const sort = oneOf(ctx, 'sort', ['created', 'updated', 'comments'] as const, 'created', docs);
  const creator = ctx.url.searchParams.get('creator');
  const labels = (ctx.url.searchParams.get('labels') ?? '')
    .split(',')
    .map((label) => label.trim().toLowerCase())
    .filter(Boolean);
  const stateOf = (issue: IssueRecord) => issue.pullRequest?.state ?? issue.state ?? 'open';
  const authorOf = (issue: IssueRecord) => issue.pullRequest?.user.login ?? issue.user?.login ?? 'octocat';
  const key = (issue: IssueRecord): string | number =>
    sort === 'comments'
      ? ctx.state.commentsOf(repo, issue.number).length
      : sort === 'updated'
        ? (issue.pullRequest?.updatedAt ?? issue.updatedAt ?? '')
        : (issue.pullRequest?.createdAt ?? issue.createdAt ?? '');
  const all = ctx.state
    .issuesOf(repo)
    .filter((issue) => state === 'all' || stateOf(issue) === state)
    .filter((issue) => creator === null || authorOf(issue).toLowerCase() === creator.toLowerCase())
    .filter((issue) => labels.every((label) => (issue.labels ?? []).some((own) => own.toLowerCase() === label)))
    .sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      const order = ka < kb ? -1 : ka > kb ? 1 : a.number - b.number;
      return direction === 'asc' ? order : -order;
    });
  const page = paginate(all, ctx.url.searchParams, linkBase);
  return {
    status: 200,
    body: page.items.map((issue) => render(ctx, repo, issue)),
    headers: page.link ? { link: page.link } : {},
  };
}

/** The title of a create or update request, checked as GitHub checks it (numbers are taken as text). */
function titleOf(value: unknown, docs: string): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw invalidRequest(`For 'properties/title', ${describe(value)} is not a string or integer.`, docs);
  const title = String(value);
  if (title.trim() === '') throw validationFailed([{ resource: 'Issue', code: 'missing_field', field: 'title' }], docs);
  if (githubCharacterCount(title) > ISSUE_TITLE_MAX_CHARACTERS) {
    throw validationFailed(
      [
        {
          resource: 'Issue',
          code: 'custom',
          field: 'title',
          message: `title is too long (maximum is ${ISSUE_TITLE_MAX_CHARACTERS} characters)`,
        },
      ],
      docs,
    );
  }
  return title;
}

function bodyOf(value: unknown, docs: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string')
    throw invalidRequest(`For 'properties/body', ${describe(value)} is not a string or null.`, docs);
  if (githubCharacterCount(value) > COMMENT_BODY_MAX_CHARACTERS) {
    throw validationFailed(
      [
        {
          resource: 'Issue',
          code: 'custom',
          field: 'body',
          message: `body is too long (maximum is ${COMMENT_BODY_MAX_CHARACTERS} characters)`,
        },
      ],
      docs,
    );
  }
  return value;
}

/** `labels`: names, or objects with a `name` (both forms GitHub accepts). */
function labelsOf(value: unknown, docs: string): string[] {
  if (!Array.isArray(value)) throw invalidRequest(`For 'properties/labels', ${describe(value)} is not an array.`, docs);
  return value.map((entry: unknown) => {
    const name =
      typeof entry === 'string'
        ? entry
        : typeof entry === 'object' && entry !== null
          ? (entry as { name?: unknown }).name
          : undefined;
    if (typeof name !== 'string' || name.trim() === '')
      throw invalidRequest(`For 'items', ${describe(entry)} is not a label name.`, docs);
    return name;
  });
}

export function createIssue(ctx: RequestContext, repository: RepositoryRecord | undefined): Reply {
  const docs = OPERATION_DOCS.createIssue;
  const repo = visibleRepository(ctx, repository, docs);
  requireWrite(ctx, repo, docs);
  issuesEnabled(repo, docs);
  const input = jsonBody(ctx, docs);
  if (!('title' in input)) throw invalidRequest('"title" wasn\'t supplied.', docs);
  const title = titleOf(input.title, docs);
  const body = 'body' in input ? bodyOf(input.body, docs) : null;
  const labels = 'labels' in input && input.labels !== null ? labelsOf(input.labels, docs) : [];
  if (!ctx.caller) throw new GitHubError(500, 'stand-in: a write passed requireWrite without a caller', docs);
  const issue = ctx.state.createIssue(repo, { title, body, labels, user: ctx.caller.account });
  const rendered = render(ctx, repo, issue);
  return { status: 201, body: rendered, headers: { location: String(rendered.url) } };
}

function existingIssue(ctx: RequestContext, repo: RepositoryRecord, numberSegment: string, docs: string): IssueRecord {
  const issue = ctx.state.issue(repo, numericSegment(numberSegment, docs));
  if (!issue) throw notFound(docs);
  return issue;
}

export function getIssue(ctx: RequestContext, repository: RepositoryRecord | undefined, numberSegment: string): Reply {
  const docs = OPERATION_DOCS.getIssue;
  const repo = visibleRepository(ctx, repository, docs);
  const issue = existingIssue(ctx, repo, numberSegment, docs);
  if (!issue.pullRequest) issuesEnabled(repo, docs);
  return { status: 200, body: render(ctx, repo, issue) };
}

const STATE_REASONS = ['completed', 'not_planned', 'reopened'] as const;

export function updateIssue(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  numberSegment: string,
): Reply {
  const docs = OPERATION_DOCS.updateIssue;
  const repo = visibleRepository(ctx, repository, docs);
  const issue = existingIssue(ctx, repo, numberSegment, docs);
  requireWrite(ctx, repo, docs);
  if (!issue.pullRequest) issuesEnabled(repo, docs);
  const input = jsonBody(ctx, docs);
  const changes: IssueChanges = {};
  if ('title' in input && input.title !== null) changes.title = titleOf(input.title, docs);
  if ('body' in input) changes.body = bodyOf(input.body, docs);
  if ('labels' in input && input.labels !== null) changes.labels = labelsOf(input.labels, docs);
  if ('state' in input) {
    if (input.state !== 'open' && input.state !== 'closed')
      throw invalidRequest(`For 'properties/state', ${describe(input.state)} is not one of ["open", "closed"].`, docs);
    changes.state = input.state;
  }
  if ('state_reason' in input) {
    const reason = input.state_reason;
    if (reason !== null && !(STATE_REASONS as readonly unknown[]).includes(reason)) {
      throw invalidRequest(
        `For 'properties/state_reason', ${describe(reason)} is not one of ["completed", "not_planned", "reopened", null].`,
        docs,
      );
    }
    changes.stateReason = reason as IssueChanges['stateReason'];
  }
  ctx.state.updateIssue(issue, changes);
  return { status: 200, body: render(ctx, repo, issue) };
}
