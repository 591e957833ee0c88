// What a run leaves behind: step outputs, the job summary and the pull request comment,
// each rendered from the ChangeSet with every secret masked.
//
// A comment that cannot be posted is never silent: an annotation names the pull request
// and GitHub's answer, and the job summary says so. It fails the step when the comment was
// the point of the run, a pull request's diff that reviewers would otherwise not see; after
// a rollout the clusters' outcome decides alone (what was applied is applied, and the
// summary records it). A token that may not comment (a fork's pull request) is a warning.
import { type ChangeSet, hasChanges, isLeaving } from '../changeset.js';
import { GitHubApi, type GitHubApiOptions } from '../github/api.js';
import { pullRequestForCommit, tokenIdentity, upsertMarkedComment } from '../github/comments.js';
import type { RunContext } from '../github/event.js';
import {
  commentMarker,
  maskChangeSet,
  maskSecrets,
  renderJobSummary,
  renderPullRequestComment,
  renderRolloutComment,
  renderRunFailureComment,
  renderRunFailureSummary,
  type ReportContext,
  type RunFailure,
  type ReviewedRecord,
} from '../report/index.js';
import { writeChangesFile, type ChangesFileTarget } from './changes-file.js';
import type { RunPlan } from './event-plan.js';
import { appendStepSummary, setOutput, type Environment } from './runner.js';
import { type Annotation } from '../workflow-commands.js';

/**
 * Where a run publishes, the same for the pull request comment, the drift issue and the
 * status issue: the runner's files, the event, GitHub with its token, the secrets to mask.
 */
export interface PublishTarget {
  env: Environment;
  context: RunContext;
  secrets: readonly string[];
  githubToken: string;
  /** The login of the App bot that writes comments and issues, for GitHub App tokens (`comment-author`). */
  commentAuthor?: string;
  /** The bundle files as given: the markers name them when the bundle's name is unknown. */
  bundleFiles: readonly string[];
  /** The run's deadline, for the GitHub requests. */
  signal?: AbortSignal;
  /** Retry and rate-limit settings of the GitHub client (tests shorten the backoff). */
  api?: Pick<GitHubApiOptions, 'retries' | 'retryBaseMs' | 'maxRateLimitWaitMs' | 'requestTimeoutMs'>;
  log: { line(text: string): void; annotate(annotation: Annotation): void };
}

export interface PublishInput extends PublishTarget {
  changeSet: ChangeSet;
  plan: Extract<RunPlan, { mode: 'diff' | 'apply' }>;
  comment: boolean;
  /** Where the `changes-file` input puts the ChangeSet file (else under RUNNER_TEMP). */
  changesFile?: ChangesFileTarget;
  /** Notes for the job summary from elsewhere (the drift issue). */
  notes?: readonly string[];
  /**
   * After a rollout, what the review check found (review-check.ts): notes for the job summary,
   * warnings for the comment, and the review record the comment carries forward.
   */
  review?: { notes: readonly string[]; warnings: readonly string[]; record?: ReviewedRecord };
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
      instances: cluster.instances.map((instance) => ({
        ...instance,
        changes: instance.changes.map(({ diff: _diff, ...change }) => ({ ...change, diff: '' })),
      })),
    })),
  };
}

export function changesOutput(changeSet: ChangeSet, changesFile: string): string {
  const whole = JSON.stringify(changeSet);
  if (Buffer.byteLength(whole) <= CHANGES_OUTPUT_LIMIT) return whole;
  const note = `the ChangeSet has ${Buffer.byteLength(whole)} bytes, over the ${CHANGES_OUTPUT_LIMIT} of this output; the whole of it is in ${changesFile || 'the changes-file output'}`;
  const lighter = JSON.stringify({ ...withoutDiffs(changeSet), truncated: `diffs left out: ${note}` });
  if (Buffer.byteLength(lighter) <= CHANGES_OUTPUT_LIMIT) return lighter;
  const clusters = changeSet.clusters.map((cluster) => ({
    name: cluster.name,
    group: cluster.group,
    status: cluster.status,
  }));
  return JSON.stringify({
    bundle: changeSet.bundle,
    mode: changeSet.mode,
    clusters,
    truncated: `only the clusters' status: ${note}`,
  });
}

/** What became of the pull request comment. */
export type CommentReport =
  /** No comment was due: `comment: false`, no token, or no pull request to comment on. */
  | { kind: 'none' }
  | { kind: 'created' | 'updated'; pullRequest: number; url: string }
  /** The token may not write comments (a fork's pull request): GitHub's reason. */
  | { kind: 'not-permitted'; pullRequest: number; reason: string }
  /** GitHub refused or did not answer (after its retries), or the body could not be sent. */
  | { kind: 'failed'; pullRequest?: number; message: string };

export interface PublishOutcome {
  comment: CommentReport;
  /** The step fails for what was published: a pull request's diff whose comment could not be posted. */
  fails: boolean;
}

/** What the run's GitHub client is made of, as the publishing steps (comment, issue, review) get it. */
export interface RunClientInput {
  context: { apiUrl: string };
  githubToken: string;
  log: { line(text: string): void };
  signal?: AbortSignal;
  api?: Pick<GitHubApiOptions, 'retries' | 'retryBaseMs' | 'maxRateLimitWaitMs' | 'requestTimeoutMs'>;
}

/** The run's GitHub client: its API address and token, its log, its deadline, and the test overrides of retries and waits. */
export function runGitHubClient(input: RunClientInput): GitHubApi {
  return new GitHubApi({
    apiUrl: input.context.apiUrl,
    token: input.githubToken,
    log: (line) => input.log.line(line),
    ...(input.signal ? { signal: input.signal } : {}),
    ...input.api,
  });
}

/**
 * The pull request a rollout belongs to: the merged pull request of the event, or for a
 * push the one GitHub links to the pushed commit (`commits/{sha}/pulls`). Any other event
 * (a workflow_dispatch, a schedule) has none, even when its commit came from a pull request:
 * such a run neither rewrites that pull request's comment (its result goes to the job
 * summary) nor counts as reviewed by it.
 */
export async function pullRequestOfRollout(
  client: GitHubApi,
  context: RunContext,
  plan: Extract<RunPlan, { mode: 'diff' | 'apply' }>,
): Promise<number | undefined> {
  if (plan.pullRequest !== undefined) return plan.pullRequest;
  if (plan.mode !== 'apply' || context.eventName !== 'push') return undefined;
  return pullRequestForCommit(client, context.owner, context.repo, plan.sha);
}

/** An error's message with every secret masked (GitHub may echo what it was sent). */
const errorMessage = (error: unknown, secrets: readonly string[]): string =>
  maskSecrets(error instanceof Error ? error.message : String(error), secrets);

/** What a comment is posted from: where, for which plan, whether comments are wanted. */
type CommentInput = PublishTarget & Pick<PublishInput, 'plan' | 'comment'>;

/** The comment's body for its pull request, and the bundle it is of ('' when its name is unknown). */
interface CommentBody {
  bundle: string;
  render(context: ReportContext): string;
}

async function postComment(
  input: CommentInput,
  reportContext: ReportContext,
  comment: CommentBody,
): Promise<CommentReport> {
  if (!input.comment) return { kind: 'none' };
  if (!input.githubToken) {
    input.log.line('no github-token: the pull request comment is skipped');
    return { kind: 'none' };
  }
  const client = runGitHubClient(input);
  let pullRequest: number | undefined;
  try {
    pullRequest = await pullRequestOfRollout(client, input.context, input.plan);
  } catch (error) {
    return {
      kind: 'failed',
      message: `the pull request of commit ${input.plan.sha.slice(0, 7)} could not be looked up: ${errorMessage(error, input.secrets)}`,
    };
  }
  if (pullRequest === undefined) {
    if (input.plan.mode === 'apply' && input.context.eventName !== 'push')
      input.log.line(
        `a ${input.context.eventName || 'manual'} rollout updates no pull request comment: its result is in the job summary`,
      );
    return { kind: 'none' };
  }
  try {
    const body = comment.render({ ...reportContext, pullRequest });
    const author = await tokenIdentity(client, input.commentAuthor);
    const marker = commentMarker(comment.bundle, input.bundleFiles);
    // A bundle whose name is unknown this time (its evaluation failed or was stopped by the
    // deadline) replaces the comment of its last diff, found by its files (comment.ts `filesLine`).
    const outcome = await upsertMarkedComment(
      client,
      { owner: input.context.owner, repo: input.context.repo, issueNumber: pullRequest },
      marker,
      body,
      author,
      comment.bundle === '' && input.bundleFiles.length > 0 ? marker : undefined,
    );
    return outcome.kind === 'not-permitted'
      ? { kind: 'not-permitted', pullRequest, reason: outcome.reason }
      : { kind: outcome.kind, pullRequest, url: outcome.url };
  } catch (error) {
    return { kind: 'failed', pullRequest, message: errorMessage(error, input.secrets) };
  }
}

/** The comment of a ChangeSet: a diff's, or a rollout's with what its review check found. */
function changeSetComment(input: PublishInput): CommentBody {
  const extra = input.review
    ? { warnings: input.review.warnings, ...(input.review.record ? { reviewed: input.review.record } : {}) }
    : {};
  return {
    bundle: input.changeSet.bundle,
    render: (context) =>
      input.plan.mode === 'diff'
        ? renderPullRequestComment(input.changeSet, context)
        : renderRolloutComment(input.changeSet, context, extra),
  };
}

/** Says in the log and the job summary's notes what became of the comment; true when that fails the step. */
function reportComment(report: CommentReport, input: CommentInput, notes: string[]): boolean {
  switch (report.kind) {
    case 'none':
      return false;
    case 'created':
    case 'updated':
      input.log.line(`pull request comment ${report.kind}: ${report.url}`);
      return false;
    case 'not-permitted':
      input.log.annotate({ level: 'warning', title: 'PR comment not posted', message: report.reason });
      notes.push(`No pull request comment: ${report.reason}.`);
      return false;
    case 'failed': {
      const where =
        report.pullRequest === undefined
          ? 'The pull request comment'
          : `The comment on pull request #${report.pullRequest}`;
      const fails = input.plan.mode === 'diff';
      const consequence = fails
        ? 'the diff is only in the job summary and the changes output; the step fails so that it is not missed'
        : 'the rollout is not affected: its outcome is in the job summary and the outputs';
      input.log.annotate({
        level: fails ? 'error' : 'warning',
        title: 'PR comment not posted',
        message: `${where} could not be posted: ${report.message}; ${consequence}`,
      });
      notes.push(`${where} could not be posted: ${report.message}.`);
      return fails;
    }
  }
}

export async function publishResults(input: PublishInput): Promise<PublishOutcome> {
  const masked = maskChangeSet(input.changeSet, input.secrets);
  const notes: string[] = [...(input.notes ?? []), ...(input.review?.notes ?? [])];
  const reportContext: ReportContext = {
    commitSha: input.plan.sha,
    runUrl: input.context.runUrl,
    repository: `${input.context.owner}/${input.context.repo}`,
    secrets: input.secrets,
    bundleFiles: input.bundleFiles,
    notes,
  };

  const comment = await postComment(input, reportContext, changeSetComment(input));
  const fails = reportComment(comment, input, notes);

  const commentUrl = comment.kind === 'created' || comment.kind === 'updated' ? comment.url : '';
  appendStepSummary(input.env, renderJobSummary(masked, { ...reportContext, ...(commentUrl ? { commentUrl } : {}) }));

  // A cluster that left the fleet is not applied: the bundle was removed from it (`removed-clusters`).
  // A cluster of a failed wave that was applied, then put back (on-failure: rollback), does not hold what was applied.
  const applied = masked.clusters
    .filter((c) => c.status === 'applied' && !isLeaving(c) && c.rollback?.outcome !== 'rolled back')
    .map((c) => c.name);
  const removed = masked.clusters.filter((c) => c.status === 'applied' && isLeaving(c)).map((c) => c.name);
  const failed = masked.clusters.find((c) => c.status === 'failed')?.name ?? '';
  setOutput(input.env, 'has-changes', String(hasChanges(masked)));
  const changesFile = writeChangesFile(input.env, masked, input.changesFile);
  setOutput(input.env, 'changes', changesOutput(masked, changesFile));
  setOutput(input.env, 'changes-file', changesFile);
  setOutput(input.env, 'applied-clusters', applied.join(','));
  setOutput(input.env, 'removed-clusters', removed.join(','));
  setOutput(input.env, 'failed-cluster', failed);
  setOutput(input.env, 'comment-url', commentUrl);
  return { comment, fails };
}

/** What a run that failed before it reached any cluster publishes (publishRunFailure). */
export interface RunFailureInput extends PublishTarget {
  failure: RunFailure;
  plan: Extract<RunPlan, { mode: 'diff' | 'apply' }>;
  comment: boolean;
}

/**
 * A run that failed before it reached any cluster (the runtime not read or not evaluated, its
 * evaluation stopped by the deadline): a pull request's diff replaces the bundle's comment,
 * found by its bundle files (the bundle's name is unknown then), with why this commit could not
 * be diffed, so that the last commit's diff does not stand for it; the job summary says the
 * same. An apply says it in the job summary only. The failure's message is masked when
 * rendered; the step fails whatever is published (run-action.ts).
 */
export async function publishRunFailure(input: RunFailureInput): Promise<CommentReport> {
  const notes: string[] = [];
  const reportContext: ReportContext = {
    commitSha: input.plan.sha,
    runUrl: input.context.runUrl,
    repository: `${input.context.owner}/${input.context.repo}`,
    secrets: input.secrets,
    bundleFiles: input.bundleFiles,
    notes,
  };
  const comment =
    input.plan.mode === 'diff' && input.bundleFiles.length > 0
      ? await postComment(input, reportContext, {
          bundle: '',
          render: (context) => renderRunFailureComment(input.failure, context),
        })
      : ({ kind: 'none' } as const);
  reportComment(comment, input, notes);
  const commentUrl = comment.kind === 'created' || comment.kind === 'updated' ? comment.url : '';
  appendStepSummary(
    input.env,
    renderRunFailureSummary(
      input.failure,
      { ...reportContext, ...(commentUrl ? { commentUrl } : {}) },
      input.plan.mode,
    ),
  );
  setOutput(input.env, 'comment-url', commentUrl);
  return comment;
}
