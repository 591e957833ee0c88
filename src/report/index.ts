// The report layer: Markdown for the PR comment, its rollout update and the job summary,
// within GitHub's size limits, secrets masked; and Timoni-style log lines.

export { renderPullRequestComment } from './pull-request-comment.js';
export { renderRolloutComment } from './rollout-comment.js';
export { renderJobSummary, renderShortJobSummary } from './job-summary.js';
export { commentMarker, findMarker, isCommentOf, type CommentMarker } from './marker.js';
export { maskSecrets, secretMasker, containsSecret, maskableValues, MASK, MIN_SECRET_LENGTH } from '../secrets.js';
export { maskChangeSet } from './masked-change-set.js';
export { changeSetChangesSecret, objectChangesSecret, diffChangesSecret } from './secret-change.js';
export { COMMENT_LIMIT, STEP_SUMMARY_LIMIT, STEP_SUMMARY_BUDGET, commentLength, utf8Length } from '../github/limits.js';
export type { ReportContext } from './report-context.js';
export type { ObjectReadiness, ReadinessStatus } from '../changeset.js';
