// The one comment per bundle on a pull request: found again by its hidden marker and
// updated in place, created when missing. A token that may not write comments (fork pull
// requests) is reported as such rather than failing the run.
//
// Only a comment that this token's own account wrote and whose body starts with the marker
// is ever updated: a maintainer's comment that quotes the marker, a comment the pull
// request's author pre-seeded with it, or another bundle's comment whose diff contains it
// are left alone.
import { COMMENT_LIMIT, commentLength } from './limits.js';
import { GitHubApiError, type GitHubApi } from './api.js';

export interface IssueTarget {
  owner: string;
  repo: string;
  issueNumber: number;
}

export type CommentOutcome =
  { kind: 'created' | 'updated'; id: number; url: string } | { kind: 'not-permitted'; reason: string };

interface IssueComment {
  id: number;
  body?: string;
  html_url: string;
  user?: { login?: string } | null;
}

/** The account a workflow's GITHUB_TOKEN acts as. */
export const GITHUB_ACTIONS_BOT = 'github-actions[bot]';

/**
 * The login of the account the token acts as: `GET /user` for a personal token; an
 * installation token (GITHUB_TOKEN, a GitHub App's) has no user there (403), and acts as
 * `github-actions[bot]` unless the workflow names its App's bot (`comment-author`).
 */
export async function tokenIdentity(client: GitHubApi, override?: string): Promise<string> {
  if (override) return override;
  try {
    const response = await client.request<{ login?: string }>('GET', '/user');
    if (response.data.login) return response.data.login;
  } catch (error) {
    if (!(error instanceof GitHubApiError && (error.status === 403 || error.status === 401))) throw error;
  }
  return GITHUB_ACTIONS_BOT;
}

/** 403 without a rate limit: the token is valid but may not write (fork pull requests). */
function isPermissionDenied(error: unknown): error is GitHubApiError {
  return error instanceof GitHubApiError && error.status === 403 && !/rate limit/i.test(error.apiMessage);
}

/** The comment of this bundle: written by `author`, its body starting with the marker. */
export async function findMarkedComment(
  client: GitHubApi,
  target: IssueTarget,
  marker: string,
  author: string,
): Promise<IssueComment | undefined> {
  const comments = await client.paginate<IssueComment>(
    `/repos/${target.owner}/${target.repo}/issues/${target.issueNumber}/comments`,
  );
  return comments.find((comment) => comment.user?.login === author && comment.body?.startsWith(marker) === true);
}

/**
 * `author`'s comment whose second line is `line` (and whose first line is a marker of its
 * own): the comment this one replaces when its own marker is not known (upsertMarkedComment).
 */
function findBySecondLine(comments: readonly IssueComment[], line: string, author: string): IssueComment | undefined {
  return comments.find((comment) => {
    if (comment.user?.login !== author || !comment.body) return false;
    const [first, second] = comment.body.split('\n', 2);
    return second === line && first !== undefined && first.startsWith('<!-- ') && first.endsWith(' -->');
  });
}

/**
 * Posts the comment, or updates the one of `author` that starts with `marker`. `sameAs`, a
 * line: when no comment starts with the marker, the comment whose second line it is counts as
 * this one too; it keeps its own first line (its marker) above the new body. The PR comment
 * of a bundle whose name is unknown this time (an evaluation stopped by the deadline) so
 * replaces the comment of its last diff, which names its bundle files on its second line.
 */
export async function upsertMarkedComment(
  client: GitHubApi,
  target: IssueTarget,
  marker: string,
  body: string,
  author: string,
  sameAs?: string,
): Promise<CommentOutcome> {
  if (!body.startsWith(marker)) throw new Error('a marked comment body must start with its marker');
  const length = commentLength(body);
  if (length > COMMENT_LIMIT)
    throw new Error(`comment body has ${length} characters; GitHub accepts at most ${COMMENT_LIMIT}`);
  try {
    const comments = await client.paginate<IssueComment>(
      `/repos/${target.owner}/${target.repo}/issues/${target.issueNumber}/comments`,
    );
    let existing = comments.find((comment) => comment.user?.login === author && comment.body?.startsWith(marker));
    let sent = body;
    if (!existing && sameAs) {
      existing = findBySecondLine(comments, sameAs, author);
      const kept = existing?.body?.split('\n', 1)[0];
      if (kept !== undefined && commentLength(`${kept}\n${body}`) <= COMMENT_LIMIT) sent = `${kept}\n${body}`;
      else existing = undefined;
    }
    if (existing) {
      const response = await client.request<IssueComment>(
        'PATCH',
        `/repos/${target.owner}/${target.repo}/issues/comments/${existing.id}`,
        { body: sent },
      );
      return { kind: 'updated', id: response.data.id, url: response.data.html_url };
    }
    const response = await client.request<IssueComment>(
      'POST',
      `/repos/${target.owner}/${target.repo}/issues/${target.issueNumber}/comments`,
      { body },
    );
    return { kind: 'created', id: response.data.id, url: response.data.html_url };
  } catch (error) {
    if (isPermissionDenied(error)) {
      return {
        kind: 'not-permitted',
        reason: `the token may not write comments on #${target.issueNumber} (${error.status}: ${error.apiMessage}); pull requests from forks get a read-only token`,
      };
    }
    throw error;
  }
}

/** The pull request a pushed commit came from (a merge commit), if any. */
export async function pullRequestForCommit(
  client: GitHubApi,
  owner: string,
  repo: string,
  sha: string,
): Promise<number | undefined> {
  const response = await client.request<Array<{ number: number; merged_at: string | null }>>(
    'GET',
    `/repos/${owner}/${repo}/commits/${sha}/pulls`,
  );
  const merged = response.data.find((pull) => pull.merged_at !== null) ?? response.data[0];
  return merged?.number;
}
