// The PR comment: what the bundle would change on each cluster.

import type { ChangeSet } from '../changeset.js';
import { renderComment } from './comment-body.js';
import type { ReportContext } from './report-context.js';

/** The Markdown body of the PR comment for a `diff` ChangeSet; never over COMMENT_LIMIT. */
export function renderPullRequestComment(changeSet: ChangeSet, context: ReportContext): string {
  return renderComment(changeSet, context, 'plan');
}
