// The environment the runner gives a JavaScript action's process: a clean base
// (PATH, HOME, locale; nothing of the caller's GITHUB_*, INPUT_*, RUNNER_*, ACTIONS_*
// or test-runner variables), the RUNNER_* and GITHUB_* variables of the job and step,
// CI=true, and one INPUT_ variable per input.
import type { GitHubContext } from './github-context.js';

/** Variables a hosted runner's process has that the harness takes from its own environment. */
const INHERITED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'];

export interface RunnerFiles {
  eventPath: string;
  output: string;
  summary: string;
  env: string;
  path: string;
  state: string;
  runnerTemp: string;
  toolCache: string;
}

export function baseEnvironment(parent: NodeJS.ProcessEnv, extraNames: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (INHERITED.includes(name) || name.startsWith('LC_') || extraNames.includes(name)) env[name] = value;
  }
  return env;
}

export function runnerEnvironment(
  github: GitHubContext,
  files: RunnerFiles,
  options: { debug: boolean; workspaceParent: string },
): Record<string, string> {
  const arch =
    process.arch === 'arm64' ? 'ARM64' : process.arch === 'arm' ? 'ARM' : process.arch === 'ia32' ? 'X86' : 'X64';
  const env: Record<string, string> = {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION: github.action,
    GITHUB_ACTION_REPOSITORY: '',
    GITHUB_ACTION_REF: '',
    GITHUB_ACTOR: github.actor,
    GITHUB_ACTOR_ID: github.actor_id,
    GITHUB_API_URL: github.api_url,
    GITHUB_BASE_REF: github.base_ref,
    GITHUB_ENV: files.env,
    GITHUB_EVENT_NAME: github.event_name,
    GITHUB_EVENT_PATH: files.eventPath,
    GITHUB_GRAPHQL_URL: github.graphql_url,
    GITHUB_HEAD_REF: github.head_ref,
    GITHUB_JOB: github.job,
    GITHUB_OUTPUT: files.output,
    GITHUB_PATH: files.path,
    GITHUB_REF: github.ref,
    GITHUB_REF_NAME: github.ref_name,
    GITHUB_REF_PROTECTED: 'false',
    GITHUB_REF_TYPE: github.ref_type,
    GITHUB_REPOSITORY: github.repository,
    GITHUB_REPOSITORY_ID: github.repository_id,
    GITHUB_REPOSITORY_OWNER: github.repository_owner,
    GITHUB_REPOSITORY_OWNER_ID: github.repository_owner_id,
    GITHUB_RETENTION_DAYS: github.retention_days,
    GITHUB_RUN_ATTEMPT: github.run_attempt,
    GITHUB_RUN_ID: github.run_id,
    GITHUB_RUN_NUMBER: github.run_number,
    GITHUB_SERVER_URL: github.server_url,
    GITHUB_SHA: github.sha,
    GITHUB_STATE: files.state,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_TRIGGERING_ACTOR: github.triggering_actor,
    GITHUB_WORKFLOW: github.workflow,
    GITHUB_WORKFLOW_REF: github.workflow_ref,
    GITHUB_WORKFLOW_SHA: github.workflow_sha,
    GITHUB_WORKSPACE: github.workspace,
    RUNNER_ARCH: arch,
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_NAME: 'GitHub Actions 1',
    RUNNER_OS: process.platform === 'win32' ? 'Windows' : process.platform === 'darwin' ? 'macOS' : 'Linux',
    RUNNER_TEMP: files.runnerTemp,
    RUNNER_TOOL_CACHE: files.toolCache,
    RUNNER_WORKSPACE: options.workspaceParent,
  };
  if (options.debug) env.RUNNER_DEBUG = '1';
  return env;
}
