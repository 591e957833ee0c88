// The one issue per bundle that a drift check keeps current: found again by its hidden
// marker and its author, created when missing, updated in place, and closed with a comment
// when it is no longer true.
//
// As for the pull request comment (comments.ts), only an open issue that this token's own
// account opened and whose body starts with the marker is ever taken: a person's issue
// that quotes the marker, or another bundle's, is left alone. GitHub's issues list also
// returns pull requests (items with `pull_request`); they are skipped. The list asks GitHub
// for the author's open issues only (`creator`), 100 a page, every page.
import { COMMENT_LIMIT, commentLength } from './limits.js';
import type { GitHubApi } from './api.js';

export interface RepositoryTarget {
  owner: string;
  repo: string;
}

export interface Issue {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  state: 'open' | 'closed';
  user?: { login?: string } | null;
  /** Present on the pull requests GitHub's issues list returns among the issues. */
  pull_request?: unknown;
}

export interface IssueContent {
  title: string;
  body: string;
  /** Labels for a new issue (GitHub creates missing ones for a writer); an update leaves labels alone. */
  labels?: readonly string[];
}

export type IssueOutcome = { kind: 'created' | 'updated'; number: number; url: string };

/** GitHub's limit on an issue title (characters). */
export const ISSUE_TITLE_LIMIT = 256;

const issuesPath = (target: RepositoryTarget): string =>
  `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/issues`;

function checkContent(content: Pick<IssueContent, 'title' | 'body'>, marker: string): void {
  if (!content.body.startsWith(marker)) throw new Error('a marked issue body must start with its marker');
  const length = commentLength(content.body);
  if (length > COMMENT_LIMIT)
    throw new Error(`issue body has ${length} characters; GitHub accepts at most ${COMMENT_LIMIT}`);
  if ([...content.title].length > ISSUE_TITLE_LIMIT)
    throw new Error(
      `issue title has ${[...content.title].length} characters; GitHub accepts at most ${ISSUE_TITLE_LIMIT}`,
    );
}

/** The open issue of this marker: opened by `author`, its body starting with the marker; the oldest when there are several. */
export async function findMarkedIssue(
  client: GitHubApi,
  target: RepositoryTarget,
  marker: string,
  author: string,
): Promise<Issue | undefined> {
  const open = await client.paginate<Issue>(`${issuesPath(target)}?state=open&creator=${encodeURIComponent(author)}`);
  return open
    .filter(
      (issue) =>
        issue.pull_request === undefined &&
        issue.state === 'open' &&
        issue.user?.login === author &&
        issue.body?.startsWith(marker) === true,
    )
    .sort((a, b) => a.number - b.number)[0];
}

export async function createIssue(client: GitHubApi, target: RepositoryTarget, content: IssueContent): Promise<Issue> {
  const labels = [...(content.labels ?? [])];
  const response = await client.request<Issue>('POST', issuesPath(target), {
    title: content.title,
    body: content.body,
    ...(labels.length > 0 ? { labels } : {}),
  });
  return response.data;
}

export async function updateIssue(
  client: GitHubApi,
  target: RepositoryTarget,
  number: number,
  content: Pick<IssueContent, 'title' | 'body'>,
): Promise<Issue> {
  const response = await client.request<Issue>('PATCH', `${issuesPath(target)}/${number}`, {
    title: content.title,
    body: content.body,
  });
  return response.data;
}

/** Says why in a comment, then closes the issue as completed. */
export async function closeIssueWithComment(
  client: GitHubApi,
  target: RepositoryTarget,
  number: number,
  comment: string,
): Promise<Issue> {
  const length = commentLength(comment);
  if (length > COMMENT_LIMIT)
    throw new Error(`closing comment has ${length} characters; GitHub accepts at most ${COMMENT_LIMIT}`);
  await client.request('POST', `${issuesPath(target)}/${number}/comments`, { body: comment });
  const response = await client.request<Issue>('PATCH', `${issuesPath(target)}/${number}`, {
    state: 'closed',
    state_reason: 'completed',
  });
  return response.data;
}

/** Updates the marked issue in place, or opens it when there is none. */
export async function upsertMarkedIssue(
  client: GitHubApi,
  target: RepositoryTarget,
  marker: string,
  content: IssueContent,
  author: string,
): Promise<IssueOutcome> {
  checkContent(content, marker);
  const existing = await findMarkedIssue(client, target, marker, author);
  if (existing) {
    const updated = await updateIssue(client, target, existing.number, content);
    return { kind: 'updated', number: updated.number, url: updated.html_url };
  }
  const created = await createIssue(client, target, content);
  return { kind: 'created', number: created.number, url: created.html_url };
}
