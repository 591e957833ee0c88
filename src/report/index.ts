// The report layer: Markdown for the PR comment, its rollout update and the job summary,
// within GitHub's size limits, secrets masked.
//
// How the PR comment is made: comment.ts, read top down (marker, headline, status table,
// one section per cluster; in a fleet of 10 clusters or more one row and section per group
// of clusters with the same change), with the parts it shares with the job summary in
// sections.ts. The other files: job-summary.ts (the run's record per cluster), budget.ts
// (fitting a report into its size limit: fair shares, cuts, the cut note),
// reviewed-block.ts (the hidden review record at the end of the PR comment), redaction.ts
// (what a report may show of secrets; the masking rule itself is src/secrets.ts),
// markdown.ts (escaping, code, tables; the report's context and links).

export {
  renderPullRequestComment,
  renderRolloutComment,
  commentMarker,
  findMarker,
  isCommentOf,
  type CommentMarker,
  type CommentFrame,
} from './comment.js';
export { renderJobSummary, renderShortJobSummary } from './job-summary.js';
export { renderRunFailureComment, renderRunFailureSummary, type RunFailure } from './run-failure.js';
export { DEADLINE_STEP } from './deadline.js';
export {
  parseReviewedRecord,
  reviewedBlock,
  ReviewedRecordError,
  RECORD_LIMIT,
  type ReviewedRecord,
} from './reviewed-block.js';
export type { RolloutCommentExtra } from './comment.js';
export { maskSecrets, secretMasker, containsSecret, maskableValues, MASK, MIN_SECRET_LENGTH } from '../secrets.js';
export {
  maskChangeSet,
  changeSetChangesSecret,
  objectChangesSecret,
  diffChangesSecret,
  showHiddenText,
} from './redaction.js';
export { COMMENT_LIMIT, STEP_SUMMARY_LIMIT, STEP_SUMMARY_BUDGET, commentLength, utf8Length } from '../github/limits.js';
export type { ReportContext } from './markdown.js';
export type { ObjectReadiness, ReadinessStatus } from '../changeset.js';
