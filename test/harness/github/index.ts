// The GitHub side of the test setup, for other tests to import:
// the REST API stand-in, the Actions runner harness and webhook event builders.
export { startGitHubStandIn, type GitHubStandIn, type GitHubStandInOptions } from './standin/server.js';
export {
  GitHubState,
  type PullRequestSeed,
  type RepositorySeed,
  type CommentSeed,
  type IssueSeed,
} from './standin/state.js';
export type { CommentRecord, PullRequestRecord, RepositoryRecord, RequestRecord } from './standin/records.js';
export { COMMENT_BODY_MAX_CHARACTERS, githubCharacterCount } from './standin/body-length.js';
export { GITHUB_ACTIONS_BOT, type Account } from './standin/users.js';
export type { TokenSpec } from './standin/tokens.js';
export { runAction, type ActionRun, type RunActionOptions, type RunningAction } from './runner/run-action.js';
export { assertNoSecretLeak } from './runner/secret-leak.js';
export type { WorkflowCommand } from './runner/workflow-commands.js';
export type { GitHubEvent, GitHubContextOverrides } from './runner/github-context.js';
export { readActionMetadata, inputVariableName } from './runner/action-metadata.js';
export { pullRequestEvent, type PullRequestEventSpec } from './events/pull-request.js';
export { pushEvent, type PushEventSpec } from './events/push.js';
export { workflowDispatchEvent, type WorkflowDispatchEventSpec } from './events/workflow-dispatch.js';
export { fakeSha } from './events/payload-objects.js';
export { seedFromEvent } from './events/seed.js';
