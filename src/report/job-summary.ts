// The job summary: the run's record per cluster, under the runner's 1 MiB step-summary limit.

import { hasChanges, type ChangeSet } from '../changeset.js';
import { fitToBudget, type Plan } from './budget-fit.js';
import { clusterHasChanges } from './cluster-counts.js';
import { firstFailure, unreachedClusters } from './cluster-status.js';
import { cutNote, renderCountedSections } from './cut-note.js';
import { code, escapeInline } from './markdown.js';
import { maskChangeSet } from './masked-change-set.js';
import { maskSecrets, secretMasker } from '../secrets.js';
import { commitLink, linkTarget, runLink, type ReportContext } from './report-context.js';
import { diffGroups, objectListGroups, secretChangeIds } from './report-parts.js';
import { changeId, indexSharedChanges } from './shared-changes.js';
import { renderStatusTable } from './status-table.js';
import { hasReadiness, objectRow, renderSummarySection } from './summary-section.js';
import { STEP_SUMMARY_BUDGET, STEP_SUMMARY_LIMIT, utf8Length } from '../github/limits.js';

/** Where a diff cut from the job summary can be seen whole. */
function moreHintFor(changeSet: ChangeSet): string {
  return changeSet.mode === 'diff'
    ? 'run `timoni-fleet diff` locally for the whole diff'
    : "the action's `changes` output holds the whole ChangeSet as JSON";
}

/**
 * The job summary of a run, full: a section per cluster with status, duration, instances,
 * objects and actions, readiness, errors and diffs; clusters not reached listed. At most
 * `context.maxSize` UTF-8 bytes (default STEP_SUMMARY_BUDGET), diffs cut fairly when needed.
 */
export function renderJobSummary(original: ChangeSet, context: ReportContext): string {
  const changeSet = maskChangeSet(original, context.secrets);
  const sharing = indexSharedChanges(changeSet);
  const secretChanges = secretChangeIds(original, context.secrets);
  const limit = Math.min(context.maxSize ?? STEP_SUMMARY_BUDGET, STEP_SUMMARY_LIMIT);
  const moreHint = moreHintFor(changeSet);
  const objectLists = objectListGroups(changeSet, (clusterIndex, instanceIndex, objectIndex) => {
    const cluster = changeSet.clusters[clusterIndex];
    const instance = cluster?.instances[instanceIndex];
    const change = instance?.changes[objectIndex];
    if (!cluster || !instance || !change) return 0;
    return utf8Length(objectRow(instance, change, secretChanges.has(changeId(clusterIndex, instanceIndex, objectIndex)), hasReadiness(cluster)));
  });

  const render = (plan: Plan): string => {
    const { sections, counts } = renderCountedSections(changeSet, plan, renderSummarySection, { sharing, secretChanges, measure: utf8Length, moreHint });
    const note = cutNote(plan.detail, counts, "GitHub's 1 MiB job summary limit", `${capitalise(moreHint)}.`);
    return renderHead(changeSet, context, secretChanges.size > 0) + note + sections;
  };
  const summary = fitToBudget({
    diffs: diffGroups(changeSet, sharing, utf8Length),
    objectLists,
    limit,
    measure: utf8Length,
    render,
    cutNotice: '\n✂️ _The cluster table was cut to fit the job summary limit._\n',
  });
  return secretMasker(context.secrets)(summary);
}

/**
 * The short job summary: headline, cluster table, clusters not reached, a link to the PR
 * comment; no sections. For `diff` runs whose PR comment was posted whole.
 */
export function renderShortJobSummary(original: ChangeSet, context: ReportContext): string {
  const changeSet = maskChangeSet(original, context.secrets);
  const secret = secretChangeIds(original, context.secrets).size > 0;
  const comment = context.commentUrl ? `The diffs are in the [pull request comment](${linkTarget(context.commentUrl)}).\n\n` : '';
  return secretMasker(context.secrets)(renderHead(changeSet, context, secret) + comment);
}

function renderHead(changeSet: ChangeSet, context: ReportContext, secretChanged: boolean): string {
  const total = changeSet.clusters.length;
  const failure = firstFailure(changeSet.clusters);
  let outcome: string;
  if (changeSet.mode === 'apply') {
    const applied = changeSet.clusters.filter((cluster) => cluster.status === 'applied').length;
    outcome = failure
      ? `❌ Rollout stopped at ${code(failure.name)}${failure.error ? ` (failed at ${code(failure.error.step)})` : ''}; applied to ${applied} of ${total} clusters`
      : `✅ Applied to ${applied} of ${total} clusters`;
  } else {
    const changed = changeSet.clusters.filter(clusterHasChanges).length;
    outcome = hasChanges(changeSet) ? `🟡 Changes on ${changed} of ${total} clusters` : `✅ No changes on ${total} clusters`;
    if (failure) outcome += `; ❌ ${changeSet.clusters.filter((cluster) => cluster.status === 'failed').length} failed`;
  }
  const pr = context.pullRequest === undefined ? '' : ` (pull request #${context.pullRequest})`;
  const comment = context.commentUrl && changeSet.mode === 'diff' ? ` · [PR comment](${linkTarget(context.commentUrl)})` : '';
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  let head = `## timoni-fleet ${changeSet.mode} · bundle ${code(changeSet.bundle)}\n\n`;
  head += `${outcome} at commit ${commitLink(context)}${pr}${comment}${run}.\n\n`;
  const notes = (context.notes ?? []).filter((note) => note.trim() !== '');
  if (notes.length > 0) head += `> [!NOTE]\n${notes.map((note) => `> ${escapeInline(maskSecrets(note, context.secrets))}`).join('\n>\n')}\n\n`;
  if (secretChanged) head += '🔒 A secret value changed (hidden).\n\n';
  head += `${renderStatusTable(changeSet.clusters, { withDuration: true })}\n`;
  const unreached = unreachedClusters(changeSet.clusters);
  if (unreached.length > 0) {
    const after = failure ? ` after ${code(failure.name)} failed` : '';
    head += `**Not reached**${after}: ${unreached.map((cluster) => code(cluster.name)).join(', ')}.\n\n`;
  }
  return head;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
