// What a run leaves behind: step outputs, the job summary and the pull request comment,
// each rendered from the ChangeSet with every secret masked.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeSet } from '../changeset.js';
import { hasChanges } from '../changeset.js';
import type { RunContext, RunPlan } from '../github/event-context.js';
import { appendStepSummary, setOutput } from '../github/file-commands.js';
import { pullRequestForCommit, tokenIdentity, upsertMarkedComment, type CommentOutcome } from '../github/pull-request-comment.js';
import { GitHubClient } from '../github/rest-client.js';
import type { Annotation } from '../github/workflow-commands.js';
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
  /** The login of the App bot that writes the comment, for GitHub App tokens (`comment-author`). */
  commentAuthor?: string;
  /** The bundle files as given: the comment's marker names them when the bundle's name is unknown. */
  bundleFiles: readonly string[];
  /** The run's deadline, for the GitHub requests. */
  signal?: AbortSignal;
  log: { line(text: string): void; annotate(annotation: Annotation): void };
}

/**
 * GitHub documents 1 MB for one step output; the `changes` output stays well under it.
 * A larger ChangeSet is given without its diffs, or as a summary of its clusters, with
 * `truncated` saying so; the whole of it is always in the file named by `changes-file`.
 */
export const CHANGES_OUTPUT_LIMIT = 512 * 1024;

function withoutDiffs(changeSet: ChangeSet): ChangeSet {
  return {
    ...changeSet,
    clusters: changeSet.clusters.map((cluster) => ({
      ...cluster,
      instances: cluster.instances.map((instance) => ({ ...instance, changes: instance.changes.map(({ diff: _diff, ...change }) => ({ ...change, diff: '' })) })),
    })),
  };
}

export function changesOutput(changeSet: ChangeSet, changesFile: string): string {
  const whole = JSON.stringify(changeSet);
  if (Buffer.byteLength(whole) <= CHANGES_OUTPUT_LIMIT) return whole;
  const note = `the ChangeSet has ${Buffer.byteLength(whole)} bytes, over the ${CHANGES_OUTPUT_LIMIT} of this output; the whole of it is in ${changesFile || 'the changes-file output'}`;
  const lighter = JSON.stringify({ ...withoutDiffs(changeSet), truncated: `diffs left out: ${note}` });
  if (Buffer.byteLength(lighter) <= CHANGES_OUTPUT_LIMIT) return lighter;
  const clusters = changeSet.clusters.map((cluster) => ({ name: cluster.name, group: cluster.group, status: cluster.status }));
  return JSON.stringify({ bundle: changeSet.bundle, mode: changeSet.mode, clusters, truncated: `only the clusters' status: ${note}` });
}

/** Writes the whole (masked) ChangeSet under RUNNER_TEMP; its path is the `changes-file` output. */
function writeChangesFile(env: Environment, changeSet: ChangeSet): string {
  const folder = env.RUNNER_TEMP;
  if (!folder) return '';
  const name = `timoni-fleet-changes-${(changeSet.bundle || 'bundle').replace(/[^A-Za-z0-9_.-]/g, '_')}-${env.GITHUB_RUN_ID ?? '0'}-${process.pid}.json`;
  const path = join(folder, name);
  writeFileSync(path, `${JSON.stringify(changeSet, null, 2)}\n`, { mode: 0o600 });
  return path;
}

async function postComment(input: PublishInput, reportContext: ReportContext): Promise<CommentOutcome | undefined> {
  if (!input.comment) return undefined;
  if (!input.githubToken) {
    input.log.line('no github-token: the pull request comment is skipped');
    return undefined;
  }
  const client = new GitHubClient({ apiUrl: input.context.apiUrl, token: input.githubToken, ...(input.signal ? { signal: input.signal } : {}) });
  let pullRequest = input.plan.pullRequest;
  if (pullRequest === undefined && input.plan.mode === 'apply') {
    pullRequest = await pullRequestForCommit(client, input.context.owner, input.context.repo, input.plan.sha).catch(() => undefined);
  }
  if (pullRequest === undefined) return undefined;
  const context = { ...reportContext, pullRequest };
  const body = input.plan.mode === 'diff' ? renderPullRequestComment(input.changeSet, context) : renderRolloutComment(input.changeSet, context);
  const author = await tokenIdentity(client, input.commentAuthor);
  const marker = commentMarker(input.changeSet.bundle, input.bundleFiles);
  return upsertMarkedComment(client, { owner: input.context.owner, repo: input.context.repo, issueNumber: pullRequest }, marker, body, author);
}

export async function publishResults(input: PublishInput): Promise<void> {
  const masked = maskChangeSet(input.changeSet, input.secrets);
  const notes: string[] = [];
  const reportContext: ReportContext = {
    commitSha: input.plan.sha,
    runUrl: input.context.runUrl,
    repository: `${input.context.owner}/${input.context.repo}`,
    secrets: input.secrets,
    bundleFiles: input.bundleFiles,
    notes,
  };

  let outcome: CommentOutcome | undefined;
  try {
    outcome = await postComment(input, reportContext);
  } catch (error) {
    const message = maskSecrets(error instanceof Error ? error.message : String(error), input.secrets);
    input.log.annotate({ level: 'warning', title: 'PR comment not posted', message });
    notes.push(`The pull request comment could not be posted: ${message}`);
  }
  if (outcome?.kind === 'not-permitted') {
    input.log.annotate({ level: 'warning', title: 'PR comment not posted', message: outcome.reason });
    notes.push(`No pull request comment: ${outcome.reason}.`);
  } else if (outcome) {
    input.log.line(`pull request comment ${outcome.kind}: ${outcome.url}`);
  }

  const commentUrl = outcome && outcome.kind !== 'not-permitted' ? outcome.url : '';
  appendStepSummary(input.env, renderJobSummary(masked, { ...reportContext, ...(commentUrl ? { commentUrl } : {}) }));

  const applied = masked.clusters.filter((c) => c.status === 'applied').map((c) => c.name);
  const failed = masked.clusters.find((c) => c.status === 'failed')?.name ?? '';
  setOutput(input.env, 'has-changes', String(hasChanges(masked)));
  const changesFile = writeChangesFile(input.env, masked);
  setOutput(input.env, 'changes', changesOutput(masked, changesFile));
  setOutput(input.env, 'changes-file', changesFile);
  setOutput(input.env, 'applied-clusters', applied.join(','));
  setOutput(input.env, 'failed-cluster', failed);
  setOutput(input.env, 'comment-url', commentUrl);
}
