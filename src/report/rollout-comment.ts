// The PR comment updated on merge with the rollout result per cluster.

import type { ChangeSet } from '../changeset.js';
import { renderComment } from './comment-body.js';
import type { ReportContext } from './report-context.js';

/**
 * The Markdown body that replaces the PR comment after an `apply`: the same marker, the
 * result per cluster (applied / failed with step and error / not reached), the clusters not
 * reached listed; never over COMMENT_LIMIT.
 */
export function renderRolloutComment(changeSet: ChangeSet, context: ReportContext): string {
  return renderComment(changeSet, context, 'rollout');
}
