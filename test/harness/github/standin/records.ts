// What the stand-in stores. Tests seed repositories and pull requests, and read
// comments and requests back; the REST answers are rendered from these (objects.ts).
import type { Account } from './users.js';

export interface RepositoryRecord {
  id: number;
  owner: Account;
  name: string;
  defaultBranch: string;
  private: boolean;
  /** Issues turned off in the repository's settings (issue routes answer 410). */
  hasIssues?: boolean;
  /** Commit SHAs the repository knows (seeded ones and those of its pull requests). */
  commits: Set<string>;
}

export interface PullRequestRecord {
  id: number;
  number: number;
  title: string;
  body: string | null;
  user: Account;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  mergeCommitSha: string | null;
  headSha: string;
  headRef: string;
  /** owner/name of the repository the head branch lives in (differs for forks). */
  headRepoFullName: string;
  baseRef: string;
  baseSha: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  mergedAt: string | null;
}

export interface IssueRecord {
  number: number;
  title: string;
  /** The pull request behind this issue number, if it is one. */
  pullRequest: PullRequestRecord | undefined;
  /** Issue fields (for a pull request, its own record holds title, body, user and state). */
  id?: number;
  body?: string | null;
  user?: Account;
  state?: 'open' | 'closed';
  /** Why it was closed (or reopened), as GitHub's `state_reason`. */
  stateReason?: 'completed' | 'not_planned' | 'reopened' | null;
  labels?: string[];
  createdAt?: string;
  updatedAt?: string;
  closedAt?: string | null;
}

export interface CommentRecord {
  id: number;
  nodeId: string;
  repositoryId: number;
  issueNumber: number;
  body: string;
  user: Account;
  createdAt: string;
  updatedAt: string;
}

export interface RequestRecord {
  /** The x-github-request-id sent back. */
  requestId: string;
  method: string;
  /** Path and query as received. */
  path: string;
  /** Request headers, lower-cased names; the Authorization value is redacted. */
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it was not JSON, or undefined when empty. */
  body: unknown;
  /** Status code answered. */
  status: number;
}
