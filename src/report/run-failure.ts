// The reports of a run that failed before it reached any cluster (the runtime could not be
// read or evaluated, its evaluation was stopped by the deadline, the bundle files could not
// be read): the PR comment that replaces the bundle's last diff, and the job summary. Both
// say that this commit could not be diffed (or applied), at which step and why, in the
// words of deadline.ts. The bundle's name is unknown then: the comment's marker names the
// bundle files (comment.ts `commentMarker`), by which it replaces the comment of the last diff.
import { COMMENT_LIMIT, commentLength } from '../github/limits.js';
import { secretMasker } from '../secrets.js';
import type { ChangeSetMode } from '../changeset.js';
import { commentMarker } from './comment.js';
import { runFailureCallout, type RunFailure } from './deadline.js';
import { escapeInline, linkTarget, runLink, type ReportContext } from './markdown.js';
import { showHiddenText } from './redaction.js';

export type { RunFailure } from './deadline.js';

/** A comment shows this much of the error; the job summary more. */
const COMMENT_ERROR_CHARS = 4_000;
const SUMMARY_ERROR_CHARS = 60_000;

function headline(context: ReportContext, mode: ChangeSetMode): string {
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  return `### timoni-fleet ${mode === 'apply' ? 'rollout' : 'diff'}${run}\n\n`;
}

/** The PR comment of a diff that failed before any cluster: marker (by bundle files), headline, the callout. */
export function renderRunFailureComment(failure: RunFailure, context: ReportContext): string {
  const body =
    `${commentMarker('', context.bundleFiles)}\n` +
    headline(context, 'diff') +
    runFailureCallout(failure, context, 'diff', {
      chars: COMMENT_ERROR_CHARS,
      cutNote: 'cut; the job summary holds more',
    });
  const masked = secretMasker(context.secrets)(body);
  // The error is capped well under the limit; this only guards the bound.
  return commentLength(masked) <= COMMENT_LIMIT ? masked : masked.slice(0, COMMENT_LIMIT - 1);
}

/** The job summary of a run that failed before any cluster: the same callout, with its notes. */
export function renderRunFailureSummary(failure: RunFailure, context: ReportContext, mode: ChangeSetMode): string {
  const notes = (context.notes ?? []).map((note) => `> ${escapeInline(showHiddenText(note))}\n`).join('');
  const comment = context.commentUrl
    ? `The [pull request comment](${linkTarget(context.commentUrl)}) says so too.\n\n`
    : '';
  return secretMasker(context.secrets)(
    headline(context, mode) +
      runFailureCallout(failure, context, mode, { chars: SUMMARY_ERROR_CHARS, cutNote: 'cut' }) +
      (notes ? `${notes}\n` : '') +
      comment,
  );
}
