// GET /repos/{owner}/{repo}/pulls/{pull_number} and
// GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls.
import { GitHubError, OPERATION_DOCS, notFound } from '../errors.js';
import { type Reply, type RequestContext, numericSegment, visibleRepository } from '../context.js';
import { pullRequestObject, pullRequestSimpleObject } from '../objects.js';
import { paginate } from '../pagination.js';
import type { RepositoryRecord } from '../records.js';

export function getPullRequest(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  numberSegment: string,
): Reply {
  const docs = OPERATION_DOCS.getPullRequest;
  const repo = visibleRepository(ctx, repository, docs);
  const pr = ctx.state.issue(repo, numericSegment(numberSegment, docs))?.pullRequest;
  if (!pr) throw notFound(docs);
  return { status: 200, body: pullRequestObject(pr, repo, ctx.urls) };
}

/**
 * The merged pull requests that brought `sha` into the repository (by merge commit or
 * head); when there are none, the open pull requests whose head is `sha`. GitHub
 * answers 422 for a commit it does not know.
 */
export function listPullRequestsForCommit(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  sha: string,
  linkBase: string,
): Reply {
  const docs = OPERATION_DOCS.listPullRequestsForCommit;
  const repo = visibleRepository(ctx, repository, docs);
  if (!repo.commits.has(sha)) throw new GitHubError(422, `No commit found for SHA: ${sha}`, docs);
  const all = ctx.state.pullRequests(repo);
  const merged = all.filter((pr) => pr.merged && (pr.mergeCommitSha === sha || pr.headSha === sha));
  const chosen = merged.length > 0 ? merged : all.filter((pr) => pr.state === 'open' && pr.headSha === sha);
  const page = paginate(chosen, ctx.url.searchParams, linkBase);
  const headers: Record<string, string> = page.link ? { link: page.link } : {};
  return { status: 200, body: page.items.map((pr) => pullRequestSimpleObject(pr, repo, ctx.urls)), headers };
}
