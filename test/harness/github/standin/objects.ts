// The JSON objects of GitHub's REST API, rendered from the stand-in's records:
// repository (full-repository), pull-request and pull-request-simple, issue-comment, issue.
import type { CommentRecord, IssueRecord, PullRequestRecord, RepositoryRecord } from './records.js';
import { simpleUser } from './users.js';

export interface Urls {
  /** The stand-in's base URL (what api.github.com is to GitHub). */
  api: string;
  /** The web server (https://github.com). */
  server: string;
}

const fullName = (r: RepositoryRecord): string => `${r.owner.login}/${r.name}`;

export function repositoryObject(r: RepositoryRecord, urls: Urls): Record<string, unknown> {
  const api = `${urls.api}/repos/${fullName(r)}`;
  return {
    id: r.id,
    node_id: `R_kgDO${Buffer.from(String(r.id)).toString('base64url')}`,
    name: r.name,
    full_name: fullName(r),
    private: r.private,
    owner: simpleUser(r.owner, urls.api, urls.server),
    html_url: `${urls.server}/${fullName(r)}`,
    description: null,
    fork: false,
    url: api,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    clone_url: `${urls.server}/${fullName(r)}.git`,
    default_branch: r.defaultBranch,
    visibility: r.private ? 'private' : 'public',
    archived: false,
    disabled: false,
    has_issues: r.hasIssues !== false,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
  };
}

/** Repository as embedded in a pull request's head and base. */
function branchObject(
  label: string,
  ref: string,
  sha: string,
  repository: Record<string, unknown>,
  user: Record<string, unknown>,
): Record<string, unknown> {
  return { label, ref, sha, user, repo: repository };
}

/** The repository object for a fork that is not seeded: enough fields to tell it apart. */
function forkRepositoryObject(full: string, base: RepositoryRecord, urls: Urls): Record<string, unknown> {
  const [owner = '', name = ''] = full.split('/');
  return {
    ...repositoryObject(
      { ...base, id: base.id + 1_000_000, owner: { login: owner, id: 9_000_000, type: 'User' }, name },
      urls,
    ),
    fork: true,
    permissions: undefined,
  };
}

export function pullRequestSimpleObject(
  pr: PullRequestRecord,
  repository: RepositoryRecord,
  urls: Urls,
): Record<string, unknown> {
  const api = `${urls.api}/repos/${fullName(repository)}`;
  const baseRepo = repositoryObject(repository, urls);
  const isFork = pr.headRepoFullName.toLowerCase() !== fullName(repository).toLowerCase();
  const headRepo = isFork ? forkRepositoryObject(pr.headRepoFullName, repository, urls) : baseRepo;
  const headOwner = pr.headRepoFullName.split('/')[0] ?? '';
  return {
    url: `${api}/pulls/${pr.number}`,
    id: pr.id,
    node_id: `PR_kwDO${Buffer.from(String(pr.id)).toString('base64url')}`,
    html_url: `${urls.server}/${fullName(repository)}/pull/${pr.number}`,
    diff_url: `${urls.server}/${fullName(repository)}/pull/${pr.number}.diff`,
    patch_url: `${urls.server}/${fullName(repository)}/pull/${pr.number}.patch`,
    issue_url: `${api}/issues/${pr.number}`,
    commits_url: `${api}/pulls/${pr.number}/commits`,
    review_comments_url: `${api}/pulls/${pr.number}/comments`,
    comments_url: `${api}/issues/${pr.number}/comments`,
    statuses_url: `${api}/statuses/${pr.headSha}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: simpleUser(pr.user, urls.api, urls.server),
    body: pr.body,
    labels: [],
    milestone: null,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    merged_at: pr.mergedAt,
    merge_commit_sha: pr.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: branchObject(
      `${headOwner}:${pr.headRef}`,
      pr.headRef,
      pr.headSha,
      headRepo,
      isFork
        ? simpleUser({ login: headOwner, id: 9_000_000, type: 'User' }, urls.api, urls.server)
        : simpleUser(repository.owner, urls.api, urls.server),
    ),
    base: branchObject(
      `${repository.owner.login}:${pr.baseRef}`,
      pr.baseRef,
      pr.baseSha,
      baseRepo,
      simpleUser(repository.owner, urls.api, urls.server),
    ),
    author_association: 'MEMBER',
    auto_merge: null,
    draft: pr.draft,
  };
}

export function pullRequestObject(
  pr: PullRequestRecord,
  repository: RepositoryRecord,
  urls: Urls,
): Record<string, unknown> {
  return {
    ...pullRequestSimpleObject(pr, repository, urls),
    merged: pr.merged,
    mergeable: pr.state === 'open' ? true : null,
    rebaseable: pr.state === 'open' ? true : null,
    mergeable_state: pr.state === 'open' ? 'clean' : 'unknown',
    merged_by: pr.merged ? simpleUser(pr.user, urls.api, urls.server) : null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: 1,
  };
}

export function commentObject(
  c: CommentRecord,
  repository: RepositoryRecord,
  isPullRequest: boolean,
  urls: Urls,
): Record<string, unknown> {
  const api = `${urls.api}/repos/${fullName(repository)}`;
  const webKind = isPullRequest ? 'pull' : 'issues';
  return {
    url: `${api}/issues/comments/${c.id}`,
    html_url: `${urls.server}/${fullName(repository)}/${webKind}/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${api}/issues/${c.issueNumber}`,
    id: c.id,
    node_id: c.nodeId,
    user: simpleUser(c.user, urls.api, urls.server),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    // A bot has no association with the repository; people seeded by tests are members.
    author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    body: c.body,
    reactions: {
      url: `${api}/issues/comments/${c.id}/reactions`,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      hooray: 0,
      confused: 0,
      heart: 0,
      rocket: 0,
      eyes: 0,
    },
    performed_via_github_app:
      c.user.type === 'Bot' ? { id: 15368, slug: 'github-actions', name: 'GitHub Actions' } : null,
  };
}

/** A label as GitHub renders it; the stand-in creates labels on first use, as GitHub does for writers. */
function labelObject(name: string, repository: RepositoryRecord, urls: Urls): Record<string, unknown> {
  const id = [...name].reduce((hash, character) => (hash * 31 + (character.codePointAt(0) ?? 0)) % 1_000_000_007, 7);
  return {
    id,
    node_id: `LA_kwDO${Buffer.from(`${repository.id}:${name}`).toString('base64url')}`,
    url: `${urls.api}/repos/${fullName(repository)}/labels/${encodeURIComponent(name)}`,
    name,
    color: 'ededed',
    default: false,
    description: null,
  };
}

const OCTOCAT = { login: 'octocat', id: 583231, type: 'User' } as const;

/**
 * An issue as GitHub's issues API renders it; a pull request's number renders as an issue
 * with `pull_request` set (what the issues list returns for pull requests).
 */
export function issueObject(
  issue: IssueRecord,
  repository: RepositoryRecord,
  commentCount: number,
  urls: Urls,
): Record<string, unknown> {
  const api = `${urls.api}/repos/${fullName(repository)}`;
  const pr = issue.pullRequest;
  const user = pr?.user ?? issue.user ?? OCTOCAT;
  const state = pr?.state ?? issue.state ?? 'open';
  const web = `${urls.server}/${fullName(repository)}/${pr ? 'pull' : 'issues'}/${issue.number}`;
  return {
    url: `${api}/issues/${issue.number}`,
    repository_url: api,
    labels_url: `${api}/issues/${issue.number}/labels{/name}`,
    comments_url: `${api}/issues/${issue.number}/comments`,
    events_url: `${api}/issues/${issue.number}/events`,
    html_url: web,
    id: pr?.id ?? issue.id ?? issue.number,
    node_id: `${pr ? 'PR' : 'I'}_kwDO${Buffer.from(String(pr?.id ?? issue.id ?? issue.number)).toString('base64url')}`,
    number: issue.number,
    title: pr?.title ?? issue.title,
    user: simpleUser(user, urls.api, urls.server),
    labels: (issue.labels ?? []).map((name) => labelObject(name, repository, urls)),
    state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: commentCount,
    created_at: pr?.createdAt ?? issue.createdAt,
    updated_at: pr?.updatedAt ?? issue.updatedAt,
    closed_at: pr ? pr.closedAt : (issue.closedAt ?? null),
    author_association: user.type === 'Bot' ? 'NONE' : 'MEMBER',
    active_lock_reason: null,
    ...(pr
      ? {
          draft: pr.draft,
          pull_request: {
            url: `${api}/pulls/${issue.number}`,
            html_url: web,
            diff_url: `${web}.diff`,
            patch_url: `${web}.patch`,
            merged_at: pr.mergedAt,
          },
        }
      : {}),
    body: pr ? pr.body : (issue.body ?? null),
    closed_by: null,
    reactions: {
      url: `${api}/issues/${issue.number}/reactions`,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      hooray: 0,
      confused: 0,
      heart: 0,
      rocket: 0,
      eyes: 0,
    },
    timeline_url: `${api}/issues/${issue.number}/timeline`,
    performed_via_github_app:
      user.type === 'Bot' ? { id: 15368, slug: 'github-actions', name: 'GitHub Actions' } : null,
    state_reason: pr ? null : (issue.stateReason ?? null),
  };
}
