// The PR comment and its rollout update: marker, headline, cluster table, notes, and a
// section per cluster, fitted into GitHub's comment limit.

import { hasChanges, type ChangeSet } from '../changeset.js';
import { fitToBudget, type Plan } from './budget-fit.js';
import { clusterHasChanges } from './cluster-counts.js';
import { firstFailure, unreachedClusters } from './cluster-status.js';
import { compactObjectLine, listedInComment, renderClusterSection } from './comment-section.js';
import { cutNote, renderCountedSections } from './cut-note.js';
import { commentMarker } from './marker.js';
import { code } from './markdown.js';
import { maskChangeSet } from './masked-change-set.js';
import { secretMasker } from '../secrets.js';
import { commitLink, runLink, type ReportContext } from './report-context.js';
import { diffGroups, objectListGroups, secretChangeIds } from './report-parts.js';
import { changeId, indexSharedChanges } from './shared-changes.js';
import { renderStatusTable } from './status-table.js';
import { COMMENT_LIMIT, commentLength } from '../github/limits.js';

export type CommentVariant = 'plan' | 'rollout';

export function renderComment(original: ChangeSet, context: ReportContext, variant: CommentVariant): string {
  const changeSet = maskChangeSet(original, context.secrets);
  const sharing = indexSharedChanges(changeSet);
  const secretChanges = secretChangeIds(original, context.secrets);
  const limit = Math.min(context.maxSize ?? COMMENT_LIMIT, COMMENT_LIMIT);
  const moreHint = `the ${runLink(context, 'job summary of the workflow run')} holds more`;
  const objectLists = objectListGroups(changeSet, (clusterIndex, instanceIndex, objectIndex) => {
    const change = changeSet.clusters[clusterIndex]?.instances[instanceIndex]?.changes[objectIndex];
    if (!change || !listedInComment(change)) return 0;
    return commentLength(compactObjectLine(change, secretChanges.has(changeId(clusterIndex, instanceIndex, objectIndex)), commentLength));
  });

  const render = (plan: Plan): string => {
    const { sections, counts } = renderCountedSections(changeSet, plan, renderClusterSection, { sharing, secretChanges, measure: commentLength, moreHint });
    const where = `The ${runLink(context, 'job summary of the workflow run')} holds more.`;
    return (
      `${commentMarker(changeSet.bundle, context.bundleFiles)}\n` +
      renderHeadline(changeSet, context, variant) +
      (secretChanges.size > 0 ? '🔒 A secret value changed (hidden).\n\n' : '') +
      renderStatusTable(changeSet.clusters) +
      '\n' +
      renderUnreached(changeSet) +
      cutNote(plan.detail, counts, "GitHub's comment limit (65,536 characters)", where) +
      sections
    );
  };

  const body = fitToBudget({
    diffs: diffGroups(changeSet, sharing, commentLength),
    objectLists,
    limit,
    measure: commentLength,
    render,
    cutNotice: `\n✂️ _The cluster table was cut to fit GitHub's comment limit; ${moreHint}._\n`,
  });
  // Defence in depth: a secret could only appear here by concatenation of masked parts.
  // Masking never lengthens the text (secrets are at least as long as the mask).
  return secretMasker(context.secrets)(body);
}

function renderHeadline(changeSet: ChangeSet, context: ReportContext, variant: CommentVariant): string {
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  const total = changeSet.clusters.length;
  if (variant === 'plan') {
    const changed = changeSet.clusters.filter(clusterHasChanges).length;
    const failed = changeSet.clusters.filter((cluster) => cluster.status === 'failed').length;
    const parts = [hasChanges(changeSet) ? `changes on **${changed} of ${total}** clusters` : `no changes on ${total} clusters`];
    if (failed > 0) parts.push(`**${failed} failed**`);
    return `### timoni-fleet diff · bundle ${code(changeSet.bundle)}\n\n${capitalise(parts.join(', '))} for commit ${commitLink(context)}${run}.\n\n`;
  }
  const failure = firstFailure(changeSet.clusters);
  const applied = changeSet.clusters.filter((cluster) => cluster.status === 'applied').length;
  const outcome = failure
    ? `❌ Rollout stopped at ${code(failure.name)}${failure.error ? ` (failed at ${code(failure.error.step)})` : ''}; applied to ${applied} of ${total} clusters`
    : `✅ Applied to ${applied} of ${total} clusters`;
  return `### timoni-fleet rollout · bundle ${code(changeSet.bundle)}\n\n${outcome} at commit ${commitLink(context)}${run}.\n\n`;
}

function renderUnreached(changeSet: ChangeSet): string {
  const unreached = unreachedClusters(changeSet.clusters);
  if (unreached.length === 0) return '';
  const failure = firstFailure(changeSet.clusters);
  const after = failure ? ` after ${code(failure.name)} failed` : '';
  return `**Not reached**${after}: ${unreached.map((cluster) => code(cluster.name)).join(', ')}.\n\n`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
