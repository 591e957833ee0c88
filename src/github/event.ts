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
      const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read as JSON (${(error as Error).message})`;
      throw new Error(`the event payload GITHUB_EVENT_PATH=${eventPath} ${why}; is this running in GitHub Actions?`, { cause: error });
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
