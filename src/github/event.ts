// What the workflow run is about, as the runner describes it: the event that triggered it
// (its webhook payload, GITHUB_EVENT_PATH), the repository, commit and ref, the run's URL
// and GitHub's API URL (GITHUB_API_URL; GitHub Enterprise Server has its own).
import { readFileSync } from 'node:fs';

export interface RunContext {
  eventName: string;
  payload: Record<string, unknown>;
  owner: string;
  repo: string;
  sha: string;
  ref: string;
  runUrl: string;
  apiUrl: string;
}

export function readRunContext(env: Readonly<Record<string, string | undefined>>): RunContext {
  const eventPath = env.GITHUB_EVENT_PATH;
  let payload: Record<string, unknown> = {};
  if (eventPath) {
    try {
      payload = JSON.parse(readFileSync(eventPath, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'does not exist'
          : `cannot be read as JSON (${(error as Error).message})`;
      throw new Error(`the event payload GITHUB_EVENT_PATH=${eventPath} ${why}; is this running in GitHub Actions?`, {
        cause: error,
      });
    }
  }
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '/').split('/');
  const serverUrl = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    owner,
    repo,
    sha: env.GITHUB_SHA ?? '',
    ref: env.GITHUB_REF ?? '',
    runUrl: `${serverUrl}/${owner}/${repo}/actions/runs/${env.GITHUB_RUN_ID ?? ''}`,
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
  };
}

/** The commit a run's changes are compared with: where the base runtime is read. */
export interface BaseCommit {
  sha: string;
  /** What the commit is to the run: "the pull request's base", "the push's before". */
  role: string;
}

const COMMIT_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const NO_COMMIT = /^0+$/;

/**
 * The commit before the run's change: on pull_request (and pull_request_target) the pull
 * request's base (`pull_request.base.sha`), on push the commit the branch was at before
 * (`before`). None for a push that created the branch (an all-zero `before`), and for every
 * other event (workflow_dispatch, schedule: no change to compare). A value that is not a
 * commit id is none too, said in `none`.
 */
export function baseCommitOf(context: Pick<RunContext, 'eventName' | 'payload'>): {
  commit?: BaseCommit;
  none?: string;
} {
  if (context.eventName === 'pull_request' || context.eventName === 'pull_request_target') {
    const pull = context.payload.pull_request as { base?: { sha?: unknown } } | undefined;
    const sha = pull?.base?.sha;
    if (typeof sha !== 'string' || !COMMIT_SHA.test(sha))
      return { none: `the ${context.eventName} event has no pull_request.base.sha commit id` };
    return { commit: { sha, role: "the pull request's base" } };
  }
  if (context.eventName === 'push') {
    const before = context.payload.before;
    if (typeof before !== 'string' || !COMMIT_SHA.test(before))
      return { none: 'the push event has no "before" commit id' };
    if (NO_COMMIT.test(before) || context.payload.created === true)
      return { none: 'the push created the branch: there is no commit before it' };
    return { commit: { sha: before, role: "the push's before" } };
  }
  return { none: `a ${context.eventName || 'run without an'} event compares no commits` };
}
