// Apply what was reviewed (the `reviewed` input). The diff of a pull request records, in a
// hidden block of its comment (`report/reviewed-block.ts`), each cluster's desired state as
// digests; on merge, the rollout builds again, and right before it applies a cluster it
// compares that cluster's state with the record (`fleet/reviewed.ts`):
//
// - `require`: a cluster that differs (a module tag re-pushed, a runtime value changed,
//   another pull request merged first), or that the record does not hold, is not applied:
//   the cluster fails at step `review` with what changed (module digests, objects), and the
//   rollout stops there, as after any failed cluster;
// - `warn` (the default): it is applied, and the job summary, the log and the comment say
//   what differed;
// - `off`: no comparison.
//
// The pull request is the event's (a merged pull_request) or the one GitHub associates with
// the pushed commit (`commits/{sha}/pulls`: a merge commit, a squash or rebase merge, a merge
// queue's commit). A run with no pull request (workflow_dispatch, a push that no pull request
// brought) cannot compare: the job summary says so, and the rollout goes on.
import type { RuntimeCluster } from '../bundle/index.js';
import type { DesiredState } from '../changeset.js';
import { compareDesired, describeDifference } from '../fleet/reviewed.js';
import type { GitHubApi } from '../github/api.js';
import { pullRequestForCommit, tokenIdentity } from '../github/comments.js';
import type { RunContext } from '../github/event.js';
import { parseReviewedRecord, ReviewedRecordError, type ReviewedRecord } from '../report/index.js';
import type { RunPlan } from './plan.js';
import { runGitHubClient } from './publish.js';
import type { Annotation } from './runner.js';

export const REVIEWED_POLICIES = ['require', 'warn', 'off'] as const;
export type ReviewedPolicy = (typeof REVIEWED_POLICIES)[number];

/** Every comment of ours that opens with a timoni-fleet marker (the bundle's comment). */
const MARKER_PREFIX = '<!-- timoni-fleet:';

export interface ReviewInput {
  policy: ReviewedPolicy;
  context: RunContext;
  plan: Extract<RunPlan, { mode: 'diff' | 'apply' }>;
  githubToken: string;
  commentAuthor?: string;
  signal?: AbortSignal;
  log: { line(text: string): void; annotate(annotation: Annotation): void };
  /** A GitHub client (tests); made from the context and token otherwise. */
  client?: GitHubApi;
}

/** The review check of one rollout: the hook the fleet calls per cluster, and what it found. */
export class ReviewCheck {
  /** Plain-text notes for the job summary. */
  readonly notes: string[] = [];
  /** Plain-text warnings for the rollout comment: clusters applied although they differ. */
  readonly warnings: string[] = [];
  private readonly matched: string[] = [];

  constructor(
    readonly policy: ReviewedPolicy,
    private readonly log: ReviewInput['log'],
    /** The pull request whose comment holds the record; absent: none, and `unavailable` says why. */
    readonly pullRequest?: number,
    private readonly records: ReadonlyMap<string, ReviewedRecord> = new Map(),
    private readonly unavailable?: string,
  ) {
    if (unavailable) {
      const text = `What is applied was not compared with a review: ${unavailable}.`;
      this.notes.push(text);
      log.annotate({ level: policy === 'require' && pullRequest !== undefined ? 'error' : 'warning', title: 'review not checked', message: text });
    }
  }

  /** The record of this bundle, carried forward into the rollout comment (a re-run compares with it again). */
  record(bundle: string): ReviewedRecord | undefined {
    return this.records.get(bundle);
  }

  /** FleetRun.beforeApply: throws (refusing the cluster) under `require` when the cluster differs from the record. */
  readonly beforeApply = (cluster: RuntimeCluster, bundle: string, desired: DesiredState): void => {
    if (this.pullRequest === undefined) return;
    const pr = `pull request #${this.pullRequest}`;
    const record = this.records.get(bundle);
    let problem: string | undefined;
    if (this.unavailable) problem = `cluster ${cluster.name}: ${this.unavailable}`;
    else if (!record) problem = `cluster ${cluster.name}: ${pr} has no review record of bundle ${bundle} (was its diff commented by a timoni-fleet that records it?)`;
    else {
      const reviewed = record.clusters[cluster.name];
      if (!reviewed) {
        problem = `cluster ${cluster.name} is not in the review record of ${pr} (${record.scope === 'none' ? 'the record was too large for the comment' : 'its diff failed, did not reach it, or did not select it'})`;
      } else {
        const difference = compareDesired(reviewed, desired);
        if (difference) problem = `cluster ${cluster.name}: the desired state differs from the one reviewed in ${pr}${record.commit ? ` (diff of commit ${record.commit.slice(0, 7)})` : ''}: ${describeDifference(difference)}`;
      }
    }
    if (problem === undefined) {
      this.matched.push(cluster.name);
      this.log.line(`cluster ${cluster.name}: the desired state is the one reviewed in ${pr}`);
      return;
    }
    if (this.policy === 'require') {
      throw new Error(`${problem}; nothing was applied to it (reviewed: require). Show the change in a pull request's diff again, or apply it on purpose with reviewed: warn`);
    }
    const warning = `${problem}; applied anyway (reviewed: warn)`;
    this.warnings.push(warning);
    this.notes.push(warning);
    this.log.annotate({ level: 'warning', title: `cluster ${cluster.name} differs from what was reviewed`, message: warning });
  };

  /** A closing note for the job summary: which clusters matched the review. */
  summary(): string[] {
    if (this.pullRequest === undefined || this.matched.length === 0) return this.notes;
    return [...this.notes, `Applied as reviewed in pull request #${this.pullRequest}: ${this.matched.join(', ')}.`];
  }
}

/** The check for a rollout: the pull request found and its comments' review records read. Undefined for `off` or a diff. */
export async function loadReviewCheck(input: ReviewInput): Promise<ReviewCheck | undefined> {
  if (input.policy === 'off' || input.plan.mode !== 'apply') return undefined;
  const { context, plan, log, policy } = input;
  if (context.eventName === 'workflow_dispatch' && plan.pullRequest === undefined) {
    return new ReviewCheck(policy, log, undefined, undefined, 'the run was started by workflow_dispatch, which has no pull request');
  }
  if (!input.githubToken && !input.client) return new ReviewCheck(policy, log, undefined, undefined, 'no github-token to read the pull request comment with');
  const client =
    input.client ??
    runGitHubClient({ context, githubToken: input.githubToken, log, ...(input.signal ? { signal: input.signal } : {}) });
  let pullRequest = plan.pullRequest;
  try {
    pullRequest ??= await pullRequestForCommit(client, context.owner, context.repo, plan.sha);
  } catch (error) {
    return new ReviewCheck(policy, log, undefined, undefined, `the pull request of commit ${plan.sha.slice(0, 7)} could not be looked up (${error instanceof Error ? error.message : String(error)})`);
  }
  if (pullRequest === undefined) return new ReviewCheck(policy, log, undefined, undefined, `no pull request brought commit ${plan.sha.slice(0, 7)}`);
  try {
    const author = await tokenIdentity(client, input.commentAuthor);
    const comments = await client.paginate<{ body?: string; user?: { login?: string } | null }>(`/repos/${context.owner}/${context.repo}/issues/${pullRequest}/comments`);
    const records = new Map<string, ReviewedRecord>();
    for (const comment of comments) {
      if (comment.user?.login !== author || !comment.body?.startsWith(MARKER_PREFIX)) continue;
      const record = parseReviewedRecord(comment.body);
      if (record) records.set(record.bundle, record);
    }
    log.line(`review records of pull request #${pullRequest}: ${records.size > 0 ? [...records.keys()].map((bundle) => `bundle ${bundle}`).join(', ') : 'none'}`);
    return new ReviewCheck(policy, log, pullRequest, records);
  } catch (error) {
    const why = error instanceof ReviewedRecordError ? error.message : `the comments of pull request #${pullRequest} could not be read (${error instanceof Error ? error.message : String(error)})`;
    return new ReviewCheck(policy, log, pullRequest, undefined, why);
  }
}
