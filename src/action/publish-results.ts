// What a run leaves behind: step outputs, the job summary and the pull request comment,
// each rendered from the ChangeSet with every secret masked.
import type { ChangeSet } from '../fleet/changeset.js';
import { hasChanges } from '../fleet/changeset.js';
import type { RunContext, RunPlan } from '../github/event-context.js';
import { appendStepSummary, setOutput } from '../github/file-commands.js';
import { pullRequestForCommit, upsertMarkedComment, type CommentOutcome } from '../github/pull-request-comment.js';
import { GitHubClient } from '../github/rest-client.js';
import { formatAnnotation } from '../github/workflow-commands.js';
import type { Environment } from '../github/action-inputs.js';
import { commentMarker, maskChangeSet, maskSecrets, renderJobSummary, renderPullRequestComment, renderRolloutComment, type ReportContext } from '../report/index.js';

export interface PublishInput {
  env: Environment;
  changeSet: ChangeSet;
  context: RunContext;
  plan: Extract<RunPlan, { mode: 'diff' | 'apply' }>;
  secrets: readonly string[];
  githubToken: string;
  comment: boolean;
  log(line: string): void;
}

async function postComment(input: PublishInput, reportContext: ReportContext): Promise<CommentOutcome | undefined> {
  if (!input.comment) return undefined;
  if (!input.githubToken) {
    input.log('no github-token: the pull request comment is skipped');
    return undefined;
  }
  const client = new GitHubClient({ apiUrl: input.context.apiUrl, token: input.githubToken });
  let pullRequest = input.plan.pullRequest;
  if (pullRequest === undefined && input.plan.mode === 'apply') {
    pullRequest = await pullRequestForCommit(client, input.context.owner, input.context.repo, input.plan.sha).catch(() => undefined);
  }
  if (pullRequest === undefined) return undefined;
  const context = { ...reportContext, pullRequest };
  const body = input.plan.mode === 'diff' ? renderPullRequestComment(input.changeSet, context) : renderRolloutComment(input.changeSet, context);
  return upsertMarkedComment(client, { owner: input.context.owner, repo: input.context.repo, issueNumber: pullRequest }, commentMarker(input.changeSet.bundle), body);
}

export async function publishResults(input: PublishInput): Promise<void> {
  const masked = maskChangeSet(input.changeSet, input.secrets);
  const notes: string[] = [];
  const reportContext: ReportContext = {
    commitSha: input.plan.sha,
    runUrl: input.context.runUrl,
    repository: `${input.context.owner}/${input.context.repo}`,
    secrets: input.secrets,
    notes,
  };

  let outcome: CommentOutcome | undefined;
  try {
    outcome = await postComment(input, reportContext);
  } catch (error) {
    const message = maskSecrets(error instanceof Error ? error.message : String(error), input.secrets);
    input.log(formatAnnotation({ level: 'warning', title: 'PR comment not posted', message }).trimEnd());
    notes.push(`The pull request comment could not be posted: ${message}`);
  }
  if (outcome?.kind === 'not-permitted') {
    input.log(formatAnnotation({ level: 'warning', title: 'PR comment not posted', message: outcome.reason }).trimEnd());
    notes.push(`No pull request comment: ${outcome.reason}.`);
  } else if (outcome) {
    input.log(`pull request comment ${outcome.kind}: ${outcome.url}`);
  }

  const commentUrl = outcome && outcome.kind !== 'not-permitted' ? outcome.url : '';
  appendStepSummary(input.env, renderJobSummary(masked, { ...reportContext, ...(commentUrl ? { commentUrl } : {}) }));

  const applied = masked.clusters.filter((c) => c.status === 'applied').map((c) => c.name);
  const failed = masked.clusters.find((c) => c.status === 'failed')?.name ?? '';
  setOutput(input.env, 'has-changes', String(hasChanges(masked)));
  setOutput(input.env, 'changes', JSON.stringify(masked));
  setOutput(input.env, 'applied-clusters', applied.join(','));
  setOutput(input.env, 'failed-cluster', failed);
  setOutput(input.env, 'comment-url', commentUrl);
}
