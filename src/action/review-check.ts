// Apply what was reviewed (the `reviewed` input). The diff of a pull request records, in a
// hidden block of its comment (`report/reviewed-block.ts`), each cluster's desired state as
// digests; on merge, the rollout builds again, and right before it applies a cluster it
// compares that cluster's state with the record (`fleet/desired-state.ts`):
//
// - `require`: a cluster that differs (a module tag re-pushed, a runtime value changed,
//   another pull request merged first), or that the record does not hold, is not applied:
//   the cluster fails at step `review` with what changed (module digests, objects), and the
//   rollout stops there, as after any failed cluster;
// - `warn` (the default): it is applied, and the job summary, the log and the comment say
//   what differed;
// - `off`: no comparison.
//
// The pull request is the event's (a merged pull_request) or, for a push, the one GitHub
// associates with the pushed commit (`commits/{sha}/pulls`: a merge commit, a squash or
// rebase merge, a merge queue's commit; publish.ts: pullRequestOfRollout). A run with no
// pull request (workflow_dispatch, a push that no pull request brought) has nothing
// reviewed to compare with: under `require` each cluster is refused at step `review`
// saying so; under `warn` the job summary says so and the rollout goes on.
//
// Where the record is read, as a guard must: only from the comment that this token's
// account wrote and whose marker (its first line) names the bundle being applied, only from
// that comment's last line (reviewed-block.ts), and only when the record names the same
// bundle. Text from the user's files can never hold a record's opening (redaction.ts shows
// it escaped), so neither another bundle's comment nor a diff can carry one that is read.
// A comment whose record is missing or cannot be read counts as no record.
//
// A cluster whose desired state matched the record (under `require` and `warn` alike) has
// each revision it gets marked as reviewed in the instance's history (HistoryEntry.reviewed,
// beforeApply's answer). A rollback to a revision (`mode: rollback`) has no pull request of
// its own: what it puts back was reviewed, or not, when it was first applied. So under
// `require` it puts back only revisions marked reviewed (a rollback to one inherits the mark),
// and fails a cluster before anything is applied there otherwise; under `warn` it puts them
// back with a warning; under `off` nothing is looked at (revisionReviewRule).
import type { RuntimeCluster } from '../bundle/index.js';
import type { DesiredState } from '../changeset.js';
import { compareDesired, describeDifference } from '../fleet/desired-state.js';
import type { RevisionTarget } from '../fleet/fleet-run.js';
import type { GitHubApi } from '../github/api.js';
import type { HistoryReviewed } from '../kube/instance/index.js';
import { tokenIdentity } from '../github/comments.js';
import type { RunContext } from '../github/event.js';
import { findMarker, parseReviewedRecord, ReviewedRecordError, type ReviewedRecord } from '../report/index.js';
import type { RunPlan } from './event-plan.js';
import { pullRequestOfRollout, runGitHubClient } from './publish.js';
import type { Annotation } from '../workflow-commands.js';

export const REVIEWED_POLICIES = ['require', 'warn', 'off'] as const;
export type ReviewedPolicy = (typeof REVIEWED_POLICIES)[number];

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
    /** Per bundle, why its comment holds no record that can be read. */
    private readonly unreadable: ReadonlyMap<string, string> = new Map(),
  ) {
    if (unavailable) {
      const text = `What is applied was not compared with a review: ${unavailable}.`;
      this.notes.push(text);
      log.annotate({ level: policy === 'require' ? 'error' : 'warning', title: 'review not checked', message: text });
    }
  }

  /** The record of this bundle, carried forward into the rollout comment (a re-run compares with it again). */
  record(bundle: string): ReviewedRecord | undefined {
    return this.records.get(bundle);
  }

  /**
   * FleetRun.beforeApply: throws (refusing the cluster) under `require` when the cluster
   * differs from the record; answers the reviewed mark (the diff's commit, the pull request)
   * when it is the one reviewed, under `require` and `warn` alike, which the instance history
   * keeps so that a rollback under `require` may put that revision back.
   */
  readonly beforeApply = (
    cluster: RuntimeCluster,
    bundle: string,
    desired: DesiredState,
  ): HistoryReviewed | undefined => {
    if (this.pullRequest === undefined) {
      // Nothing was reviewed: `warn` applies (the summary says so), `require` refuses.
      if (this.policy !== 'require') return undefined;
      throw new Error(
        `cluster ${cluster.name}: nothing was reviewed to compare with: ${this.unavailable ?? 'no pull request'}; nothing was applied to it (reviewed: require). Apply through a pull request's merge, or on purpose with reviewed: warn (e.g. for workflow_dispatch)`,
      );
    }
    const pr = `pull request #${this.pullRequest}`;
    const record = this.records.get(bundle);
    let problem: string | undefined;
    if (this.unavailable) problem = `cluster ${cluster.name}: ${this.unavailable}`;
    else if (!record) {
      const why = this.unreadable.get(bundle) ?? 'was its diff commented by a timoni-fleet that records it?';
      problem = `cluster ${cluster.name}: ${pr} has no review record of bundle ${bundle} (${why})`;
    } else {
      const reviewed = record.clusters[cluster.name];
      if (!reviewed) {
        problem = `cluster ${cluster.name} is not in the review record of ${pr} (${record.scope === 'none' ? 'the record was too large for the comment' : 'its diff failed, did not reach it, or did not select it'})`;
      } else {
        const difference = compareDesired(reviewed, desired);
        if (difference)
          problem = `cluster ${cluster.name}: the desired state differs from the one reviewed in ${pr}${record.commit ? ` (diff of commit ${record.commit.slice(0, 7)})` : ''}: ${describeDifference(difference)}`;
      }
    }
    if (problem === undefined && record) {
      this.matched.push(cluster.name);
      this.log.line(`cluster ${cluster.name}: the desired state is the one reviewed in ${pr}`);
      return { ...(record.commit ? { commit: record.commit } : {}), pullRequest: this.pullRequest };
    }
    if (this.policy === 'require') {
      throw new Error(
        `${problem}; nothing was applied to it (reviewed: require). Show the change in a pull request's diff again, or apply it on purpose with reviewed: warn`,
      );
    }
    const warning = `${problem}; applied anyway (reviewed: warn)`;
    this.warnings.push(warning);
    this.notes.push(warning);
    this.log.annotate({
      level: 'warning',
      title: `cluster ${cluster.name} differs from what was reviewed`,
      message: warning,
    });
    return undefined;
  };

  /**
   * FleetRun.beforeLeave: a cluster leaving the fleet is a change like any other. Under
   * `require` the bundle is removed from it only when the record holds the leave; under
   * `warn` it is removed and the reports say it was not reviewed.
   */
  readonly beforeLeave = (cluster: RuntimeCluster, bundle: string): void => {
    const problem = this.membershipProblem(
      bundle,
      (record) => record.leaves?.includes(cluster.name) === true,
      `cluster ${cluster.name} leaving the fleet`,
    );
    if (problem === undefined) {
      this.log.line(`cluster ${cluster.name}: leaving the fleet was reviewed in pull request #${this.pullRequest}`);
      return;
    }
    if (this.policy === 'require')
      throw new Error(
        `${problem}; the bundle was not removed from it (reviewed: require). Show the leave in a pull request's diff again, or remove it on purpose with reviewed: warn`,
      );
    const warning = `${problem}; the bundle was removed from it anyway (reviewed: warn)`;
    this.warnings.push(warning);
    this.notes.push(warning);
    this.log.annotate({
      level: 'warning',
      title: `cluster ${cluster.name} left the fleet unreviewed`,
      message: warning,
    });
  };

  /**
   * FleetRun.beforeRename: a rename re-pins the cluster's identity record only when the
   * record holds it (under `require` and `warn` alike: a re-pin is what the identity guard
   * stands for, and is never made on a warning). Throws otherwise: the cluster is then
   * refused by its identity check, its record naming the base name.
   */
  readonly beforeRename = (to: RuntimeCluster, from: RuntimeCluster): void => {
    const problem = this.membershipProblem(
      '',
      (record) => record.renames?.[to.name] === from.name,
      `the rename of cluster ${from.name} to ${to.name}`,
    );
    if (problem !== undefined) throw new Error(`${problem}: its identity record is not re-pinned`);
  };

  /** Why a membership change is not in the review record, or undefined when it is (a bundle of '' takes the only record). */
  private membershipProblem(
    bundle: string,
    holds: (record: ReviewedRecord) => boolean,
    what: string,
  ): string | undefined {
    if (this.pullRequest === undefined) return `${what} was not reviewed: ${this.unavailable ?? 'no pull request'}`;
    const pr = `pull request #${this.pullRequest}`;
    if (this.unavailable) return `${what} was not reviewed: ${this.unavailable}`;
    const records = bundle
      ? [this.records.get(bundle)].filter((record): record is ReviewedRecord => record !== undefined)
      : [...this.records.values()];
    if (records.length === 0)
      return `${what} was not reviewed: ${pr} has no review record${bundle ? ` of bundle ${bundle}` : ''}`;
    return records.some(holds) ? undefined : `${what} is not in the review record of ${pr}`;
  }

  /** A closing note for the job summary: which clusters matched the review. */
  summary(): string[] {
    if (this.pullRequest === undefined || this.matched.length === 0) return this.notes;
    return [...this.notes, `Applied as reviewed in pull request #${this.pullRequest}: ${this.matched.join(', ')}.`];
  }
}

/**
 * What `reviewed` asks of a rollback to a revision of the history (`mode: rollback`,
 * ../fleet/revision-rollback.ts): under `require` only a revision applied by a reviewed run,
 * or a rollback to one, is put back; under `warn` any, with a warning for one that was not
 * reviewed; under `off` any, nothing said.
 */
export function revisionReviewRule(policy: ReviewedPolicy): Pick<RevisionTarget, 'unreviewed' | 'unreviewedAdvice'> {
  if (policy === 'off') return {};
  if (policy === 'warn') return { unreviewed: 'warn' };
  return {
    unreviewed: 'refuse',
    unreviewedAdvice:
      "Under reviewed: require a rollback puts back only a revision applied by a reviewed run (a pull request's merge whose desired state matched its diff) or a rollback to one. Roll forward through a reviewed pull request, or run this rollback on purpose with reviewed: warn (e.g. in a workflow only maintainers can dispatch)",
  };
}

/** The check for a rollout: the pull request found and its comments' review records read. Undefined for `off` or a diff. */
export async function loadReviewCheck(input: ReviewInput): Promise<ReviewCheck | undefined> {
  if (input.policy === 'off' || input.plan.mode !== 'apply') return undefined;
  const { context, plan, log, policy } = input;
  if (plan.pullRequest === undefined && context.eventName !== 'push') {
    return new ReviewCheck(
      policy,
      log,
      undefined,
      undefined,
      `the run was started by ${context.eventName || 'an event'} with no merged pull request`,
    );
  }
  if (!input.githubToken && !input.client)
    return new ReviewCheck(policy, log, undefined, undefined, 'no github-token to read the pull request comment with');
  const client =
    input.client ??
    runGitHubClient({
      context,
      githubToken: input.githubToken,
      log,
      ...(input.signal ? { signal: input.signal } : {}),
    });
  let pullRequest: number | undefined;
  try {
    pullRequest = await pullRequestOfRollout(client, context, plan);
  } catch (error) {
    return new ReviewCheck(
      policy,
      log,
      undefined,
      undefined,
      `the pull request of commit ${plan.sha.slice(0, 7)} could not be looked up (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (pullRequest === undefined)
    return new ReviewCheck(policy, log, undefined, undefined, `no pull request brought commit ${plan.sha.slice(0, 7)}`);
  let comments: Array<{ body?: string; user?: { login?: string } | null }>;
  let author: string;
  try {
    author = await tokenIdentity(client, input.commentAuthor);
    comments = await client.paginate<{ body?: string; user?: { login?: string } | null }>(
      `/repos/${context.owner}/${context.repo}/issues/${pullRequest}/comments`,
    );
  } catch (error) {
    return new ReviewCheck(
      policy,
      log,
      pullRequest,
      undefined,
      `the comments of pull request #${pullRequest} could not be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const { records, unreadable } = readRecords(comments, author);
  const found = [...records.keys()].map((bundle) => `bundle ${bundle}`);
  const unread = [...unreadable.keys()].map((bundle) => `bundle ${bundle} (unreadable)`);
  log.line(`review records of pull request #${pullRequest}: ${[...found, ...unread].join(', ') || 'none'}`);
  return new ReviewCheck(policy, log, pullRequest, records, undefined, unreadable);
}

/**
 * The review record of each bundle from the comments: per bundle, the first comment of
 * `author` whose marker names it, its record read from its last line and kept only when it
 * names the same bundle; a record missing, unreadable or of another bundle is "no record",
 * with the reason in `unreadable`.
 */
export function readRecords(
  comments: ReadonlyArray<{ body?: string; user?: { login?: string } | null }>,
  author: string,
): { records: Map<string, ReviewedRecord>; unreadable: Map<string, string> } {
  const records = new Map<string, ReviewedRecord>();
  const unreadable = new Map<string, string>();
  for (const comment of comments) {
    if (comment.user?.login !== author || !comment.body) continue;
    const bundle = findMarker(comment.body)?.bundle;
    if (bundle === undefined || records.has(bundle) || unreadable.has(bundle)) continue;
    try {
      const record = parseReviewedRecord(comment.body);
      if (!record) unreadable.set(bundle, 'its comment ends with no review record: did its diff fail?');
      else if (record.bundle !== bundle)
        unreadable.set(bundle, `the record in its comment names bundle ${JSON.stringify(record.bundle)}, not this one`);
      else records.set(bundle, record);
    } catch (error) {
      if (!(error instanceof ReviewedRecordError)) throw error;
      unreadable.set(bundle, error.message);
    }
  }
  return { records, unreadable };
}
