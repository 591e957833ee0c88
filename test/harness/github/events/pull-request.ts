// `pull_request` webhook payloads: opened, synchronize, reopened, closed (merged or
// not), for pull requests from the same repository or from a fork.
import type { GitHubEvent } from '../runner/github-context.js';
import {
  DEFAULT_URLS,
  type PayloadUrls,
  type RepositoryRef,
  fakeSha,
  repositoryPayload,
  repositoryRef,
  stableId,
  userPayload,
} from './payload-objects.js';

export interface PullRequestEventSpec {
  action: 'opened' | 'synchronize' | 'reopened' | 'closed' | 'edited' | 'ready_for_review';
  /** The base repository (where the workflow runs): 'owner/name' or a RepositoryRef. */
  repository: RepositoryRef | string;
  number: number;
  headSha: string;
  headRef?: string;
  baseRef?: string;
  baseSha?: string;
  /** 'forker/name' for a pull request from a fork. */
  headRepository?: string;
  title?: string;
  body?: string | null;
  /** Author of the pull request and sender of the event. */
  sender?: string;
  draft?: boolean;
  /** closed only: whether it was merged. */
  merged?: boolean;
  /** The merge commit (merged) or the test-merge commit (open). */
  mergeCommitSha?: string | null;
  /** synchronize only: the head before the push (default: derived from headSha). */
  before?: string;
  urls?: PayloadUrls;
}

export function pullRequestEvent(spec: PullRequestEventSpec): GitHubEvent {
  const urls = spec.urls ?? DEFAULT_URLS;
  const base = repositoryRef(spec.repository);
  const baseFull = `${base.owner}/${base.name}`;
  const merged = spec.merged ?? false;
  if (merged && spec.action !== 'closed')
    throw new Error(`pullRequestEvent: #${spec.number} can only be merged on action 'closed', not '${spec.action}'`);
  if (merged && !spec.mergeCommitSha) throw new Error(`pullRequestEvent: merged #${spec.number} needs mergeCommitSha`);
  if (!/^[0-9a-f]{40}$/.test(spec.headSha))
    throw new Error(`pullRequestEvent: headSha '${spec.headSha}' is not a 40-hex SHA`);
  const headFull = spec.headRepository ?? baseFull;
  const isFork = headFull.toLowerCase() !== baseFull.toLowerCase();
  const headRepoRef = repositoryRef(headFull);
  const baseRef = spec.baseRef ?? base.defaultBranch ?? 'main';
  const headRef = spec.headRef ?? `feature-${spec.number}`;
  const author = spec.sender ?? (isFork ? headRepoRef.owner : 'octocat');
  const closed = spec.action === 'closed';
  const at = '2026-11-22T01:00:00Z';
  const api = `${urls.api}/repos/${baseFull}`;
  const baseRepository = repositoryPayload(base, urls);
  const headRepository = isFork
    ? repositoryPayload({ ...headRepoRef, ownerType: 'User' }, urls, { fork: true })
    : baseRepository;
  const pullRequest: Record<string, unknown> = {
    url: `${api}/pulls/${spec.number}`,
    id: stableId(`${baseFull}#${spec.number}`),
    node_id: `PR_kwDO${Buffer.from(`${baseFull}#${spec.number}`).toString('base64url')}`,
    html_url: `${urls.server}/${baseFull}/pull/${spec.number}`,
    diff_url: `${urls.server}/${baseFull}/pull/${spec.number}.diff`,
    patch_url: `${urls.server}/${baseFull}/pull/${spec.number}.patch`,
    issue_url: `${api}/issues/${spec.number}`,
    commits_url: `${api}/pulls/${spec.number}/commits`,
    comments_url: `${api}/issues/${spec.number}/comments`,
    statuses_url: `${api}/statuses/${spec.headSha}`,
    number: spec.number,
    state: closed ? 'closed' : 'open',
    locked: false,
    title: spec.title ?? `Change ${spec.number}`,
    user: userPayload(author, urls),
    body: spec.body ?? null,
    created_at: '2026-11-21T12:00:00Z',
    updated_at: at,
    closed_at: closed ? at : null,
    merged_at: merged ? at : null,
    merge_commit_sha: spec.mergeCommitSha ?? null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    labels: [],
    draft: spec.draft ?? false,
    head: {
      label: `${headRepoRef.owner}:${headRef}`,
      ref: headRef,
      sha: spec.headSha,
      user: userPayload(headRepoRef.owner, urls, isFork ? 'User' : (base.ownerType ?? 'Organization')),
      repo: headRepository,
    },
    base: {
      label: `${base.owner}:${baseRef}`,
      ref: baseRef,
      sha: spec.baseSha ?? fakeSha(`${baseFull}@${baseRef}`),
      user: userPayload(base.owner, urls, base.ownerType ?? 'Organization'),
      repo: baseRepository,
    },
    author_association: isFork ? 'CONTRIBUTOR' : 'MEMBER',
    auto_merge: null,
    merged,
    mergeable: closed ? null : true,
    rebaseable: closed ? null : true,
    mergeable_state: closed ? 'unknown' : 'clean',
    merged_by: merged ? userPayload('octocat', urls) : null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: isFork,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: 1,
  };
  const payload: Record<string, unknown> = { action: spec.action, number: spec.number, pull_request: pullRequest };
  if (spec.action === 'synchronize') {
    payload.before = spec.before ?? fakeSha(`before:${spec.headSha}`);
    payload.after = spec.headSha;
  }
  payload.repository = baseRepository;
  if ((base.ownerType ?? 'Organization') === 'Organization')
    payload.organization = { login: base.owner, id: stableId(base.owner) };
  payload.sender = userPayload(author, urls);
  return { name: 'pull_request', payload };
}
