// The one comment per bundle on a pull request: found again by its hidden marker and
// updated in place, created when missing. A token that may not write comments (fork pull
// requests) is reported as such rather than failing the run.
import { GitHubApiError, type GitHubClient } from './rest-client.js';

export interface IssueTarget {
  owner: string;
  repo: string;
  issueNumber: number;
}

export type CommentOutcome =
  | { kind: 'created' | 'updated'; id: number; url: string }
  | { kind: 'not-permitted'; reason: string };

interface IssueComment {
  id: number;
  body?: string;
  html_url: string;
}

/** GitHub's limit on a comment body, counted in characters (code points). */
export const COMMENT_BODY_LIMIT = 65_536;

export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** 403 without a rate limit: the token is valid but may not write (fork pull requests). */
function isPermissionDenied(error: unknown): error is GitHubApiError {
  return error instanceof GitHubApiError && error.status === 403 && !/rate limit/i.test(error.apiMessage);
}

export async function findMarkedComment(client: GitHubClient, target: IssueTarget, marker: string): Promise<IssueComment | undefined> {
  const comments = await client.paginate<IssueComment>(`/repos/${target.owner}/${target.repo}/issues/${target.issueNumber}/comments`);
  return comments.find((comment) => comment.body?.includes(marker));
}

export async function upsertMarkedComment(client: GitHubClient, target: IssueTarget, marker: string, body: string): Promise<CommentOutcome> {
  if (!body.includes(marker)) throw new Error('a marked comment body must contain its marker');
  const length = characterCount(body);
  if (length > COMMENT_BODY_LIMIT) throw new Error(`comment body has ${length} characters; GitHub accepts at most ${COMMENT_BODY_LIMIT}`);
  try {
    const existing = await findMarkedComment(client, target, marker);
    if (existing) {
      const response = await client.request<IssueComment>('PATCH', `/repos/${target.owner}/${target.repo}/issues/comments/${existing.id}`, { body });
      return { kind: 'updated', id: response.data.id, url: response.data.html_url };
    }
    const response = await client.request<IssueComment>('POST', `/repos/${target.owner}/${target.repo}/issues/${target.issueNumber}/comments`, { body });
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
export async function pullRequestForCommit(client: GitHubClient, owner: string, repo: string, sha: string): Promise<number | undefined> {
  const response = await client.request<Array<{ number: number; merged_at: string | null }>>('GET', `/repos/${owner}/${repo}/commits/${sha}/pulls`);
  const merged = response.data.find((pull) => pull.merged_at !== null) ?? response.data[0];
  return merged?.number;
}
