// The PR comment and its rollout update: marker, headline, cluster table, notes, and a
// section per cluster, fitted into GitHub's comment limit.

import { hasChanges, type ChangeSet } from '../fleet/changeset.js';
import { fitToBudget, type Plan } from './budget-fit.js';
import { clusterHasChanges } from './cluster-counts.js';
import { firstFailure, unreachedClusters } from './cluster-status.js';
import { renderClusterSection } from './comment-section.js';
import type { DiffOutcome } from './diff-block.js';
import type { ItemGroup } from './fair-share.js';
import { commentMarker } from './marker.js';
import { code } from './markdown.js';
import { maskChangeSet } from './masked-change-set.js';
import { secretMasker } from './masking.js';
import { commitLink, runLink, type ReportContext } from './report-context.js';
import { changeId, indexSharedChanges } from './shared-changes.js';
import { objectChangesSecret } from './secret-change.js';
import { renderStatusTable } from './status-table.js';
import { COMMENT_LIMIT, commentLength } from './text-size.js';

export type CommentVariant = 'plan' | 'rollout';

export function renderComment(original: ChangeSet, context: ReportContext, variant: CommentVariant): string {
  const changeSet = maskChangeSet(original, context.secrets);
  const sharing = indexSharedChanges(changeSet);
  const secretChanges = new Set<string>();
  original.clusters.forEach((cluster, clusterIndex) =>
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((change, objectIndex) => {
        if (objectChangesSecret(change, context.secrets)) secretChanges.add(changeId(clusterIndex, instanceIndex, objectIndex));
      }),
    ),
  );
  const groups: ItemGroup[] = changeSet.clusters.map((cluster, clusterIndex) => ({
    items: cluster.instances.flatMap((instance, instanceIndex) =>
      instance.changes.flatMap((change, objectIndex) => {
        const id = changeId(clusterIndex, instanceIndex, objectIndex);
        return sharing.get(id)?.kind === 'shown' ? [{ id, size: commentLength(change.diff) }] : [];
      }),
    ),
  }));
  const limit = Math.min(context.maxSize ?? COMMENT_LIMIT, COMMENT_LIMIT);
  const moreHint = context.runUrl ? `the ${runLink(context, 'job summary of the workflow run')} holds more` : 'the job summary of the workflow run holds more';

  const render = (plan: Plan): string => {
    const outcomes: DiffOutcome[] = [];
    let sections = '';
    if (plan.detail !== 'table') {
      changeSet.clusters.forEach((cluster, clusterIndex) => {
        sections += renderClusterSection({
          cluster,
          clusterIndex,
          detail: plan.detail,
          allocation: plan.allocation,
          sharing,
          secretChanges,
          measure: commentLength,
          moreHint,
          onDiff: (outcome) => outcomes.push(outcome),
        });
      });
    }
    return (
      `${commentMarker(changeSet.bundle)}\n` +
      renderHeadline(changeSet, context, variant) +
      (secretChanges.size > 0 ? '🔒 A secret value changed (hidden).\n\n' : '') +
      renderStatusTable(changeSet.clusters) +
      '\n' +
      renderUnreached(changeSet) +
      renderCutNote(plan, outcomes, context) +
      sections
    );
  };

  const body = fitToBudget({
    groups,
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

function renderCutNote(plan: Plan, outcomes: readonly DiffOutcome[], context: ReportContext): string {
  const cut = outcomes.filter((outcome) => outcome === 'cut').length;
  const hidden = outcomes.filter((outcome) => outcome === 'hidden').length;
  const what: string[] = [];
  if (plan.detail === 'instances') what.push('object lists and diffs left out');
  if (plan.detail === 'table') what.push('cluster sections left out');
  if (cut > 0) what.push(`${cut} ${cut === 1 ? 'diff' : 'diffs'} cut`);
  if (hidden > 0) what.push(`${hidden} ${hidden === 1 ? 'diff' : 'diffs'} not shown`);
  if (what.length === 0) return '';
  const where = context.runUrl ? `The ${runLink(context, 'job summary of the workflow run')} holds more.` : 'The job summary of the workflow run holds more.';
  return `> [!WARNING]\n> Shortened to fit GitHub's comment limit (65,536 characters): ${what.join(', ')}. ${where}\n\n`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
