// Seeds the GitHub stand-in with what an event refers to, so that the action run
// for that event finds its repository, pull request and commits.
import type { GitHubEvent } from '../runner/github-context.js';
import type { GitHubState } from '../standin/state.js';

interface RepoPayload {
  id: number;
  name: string;
  full_name: string;
  private?: boolean;
  default_branch: string;
  owner: { login: string; type?: string };
}

function repository(state: GitHubState, payload: Record<string, unknown>, event: string): RepoPayload {
  const repo = payload.repository as RepoPayload | undefined;
  if (!repo?.full_name) throw new Error(`seedFromEvent: ${event} payload has no repository`);
  if (!state.repository(repo.owner.login, repo.name)) {
    state.addRepository({
      owner: repo.owner.login,
      name: repo.name,
      id: repo.id,
      defaultBranch: repo.default_branch,
      private: repo.private ?? false,
      ownerType: repo.owner.type === 'User' ? 'User' : 'Organization',
    });
  }
  return repo;
}

export function seedFromEvent(state: GitHubState, event: GitHubEvent): void {
  const p = event.payload;
  const repo = repository(state, p, event.name);
  const owner = repo.owner.login;
  if (event.name === 'pull_request' || event.name === 'pull_request_target') {
    const pr = p.pull_request as {
      number: number;
      title: string;
      body: string | null;
      state: 'open' | 'closed';
      draft: boolean;
      merged: boolean;
      merge_commit_sha: string | null;
      head: { sha: string; ref: string; repo: { full_name: string } };
      base: { sha: string; ref: string };
    };
    const record = state.repository(owner, repo.name);
    if (!record) throw new Error(`seedFromEvent: repository ${repo.full_name} vanished while seeding`);
    if (!state.issue(record, pr.number)) {
      state.addPullRequest({
        owner,
        repo: repo.name,
        number: pr.number,
        title: pr.title,
        body: pr.body,
        state: pr.state,
        draft: pr.draft,
        merged: pr.merged,
        mergeCommitSha: pr.merge_commit_sha,
        headSha: pr.head.sha,
        headRef: pr.head.ref,
        headRepoFullName: pr.head.repo.full_name,
        baseRef: pr.base.ref,
        baseSha: pr.base.sha,
      });
    }
  } else if (event.name === 'push') {
    for (const sha of [p.before, p.after])
      if (typeof sha === 'string' && !/^0{40}$/.test(sha)) state.addCommit(owner, repo.name, sha);
  }
}
