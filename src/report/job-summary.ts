// The job summary: the run's record per cluster, under the runner's 1 MiB step-summary
// limit. A headline, notes, the status table with durations, the clusters not reached;
// then one section per cluster: status and duration, instances with module version and
// digest (and those removed from the bundle), a table of objects and actions (with
// readiness when present), the error, failed instances and failed objects with their
// errors, and the diffs.
// Fitted by budget.ts and masked by redaction.ts as the PR comment is (comment.ts).

import { deadlineCallout } from './deadline.js';
import {
  hasChanges,
  isLeaving,
  type ChangeSet,
  type ClusterChanges,
  type InstanceChanges,
  type ObjectChange,
} from '../changeset.js';
import { formatDuration } from '../duration.js';
import { STEP_SUMMARY_BUDGET, STEP_SUMMARY_LIMIT, utf8Length } from '../github/limits.js';
import { maskSecrets, secretMasker } from '../secrets.js';
import {
  changeId,
  cutNote,
  diffGroups,
  fitToBudget,
  indexSharedChanges,
  objectListGroups,
  objectListId,
  objectListRoom,
  type Plan,
} from './budget.js';
import {
  capitalise,
  code,
  commitLink,
  escapeHtml,
  escapeInline,
  linkTarget,
  runLink,
  tableHeader,
  tableRow,
  type ReportContext,
} from './markdown.js';
import {
  hiddenTextChangeNotes,
  maskChangeSet,
  secretChangeIds,
  showHiddenText,
  showHiddenTextIn,
} from './redaction.js';
import {
  actionLabel,
  clusterErrorShownByInstance,
  clusterHasChanges,
  countActions,
  describeCounts,
  diffTooLargeNote,
  failedObjectBlock,
  firstFailure,
  instanceFailureLabel,
  instanceId,
  objectRef,
  readinessLabel,
  readinessOf,
  removedInstanceNote,
  renderCountedSections,
  renderDiffBlock,
  renderErrorBlock,
  renderRollbackBlock,
  renderInstanceError,
  renderStatusTable,
  rolloutOutcome,
  shortDigest,
  statusLabel,
  unreachedNote,
  type SectionInput,
} from './sections.js';
import { membershipParagraph, membershipWarning } from './membership.js';
import { revisionLabel, rollbackTargetSentence, runName } from './rollback.js';

/** Error messages are capped at this size in the job summary. */
const ERROR_CAP = 65_536;
/** Each failed object's error is capped at this size. */
const OBJECT_ERROR_CAP = 8_192;
const errorCutNote = (kept: number, total: number) => `✂️ _Error cut: ${kept} of ${total} lines shown._`;

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
  const changeSet = showHiddenTextIn(maskChangeSet(original, context.secrets));
  const sharing = indexSharedChanges(changeSet);
  const secretChanges = secretChangeIds(original, context.secrets);
  const hiddenText = hiddenTextChangeNotes(original);
  const limit = Math.min(context.maxSize ?? STEP_SUMMARY_BUDGET, STEP_SUMMARY_LIMIT);
  const moreHint = moreHintFor(changeSet);
  const objectLists = objectListGroups(changeSet, (clusterIndex, instanceIndex, objectIndex) => {
    const cluster = changeSet.clusters[clusterIndex];
    const instance = cluster?.instances[instanceIndex];
    const change = instance?.changes[objectIndex];
    if (!cluster || !instance || !change) return 0;
    return utf8Length(
      objectRow(
        instance,
        change,
        secretChanges.has(changeId(clusterIndex, instanceIndex, objectIndex)),
        hasReadiness(cluster),
      ),
    );
  });

  const render = (plan: Plan): string => {
    const { sections, counts } = renderCountedSections(changeSet, plan, renderSummarySection, {
      sharing,
      secretChanges,
      hiddenText,
      measure: utf8Length,
      moreHint,
    });
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
  const changeSet = showHiddenTextIn(maskChangeSet(original, context.secrets));
  const secret = secretChangeIds(original, context.secrets).size > 0;
  const comment = context.commentUrl
    ? `The diffs are in the [pull request comment](${linkTarget(context.commentUrl)}).\n\n`
    : '';
  return secretMasker(context.secrets)(renderHead(changeSet, context, secret) + comment);
}

function renderHead(changeSet: ChangeSet, context: ReportContext, secretChanged: boolean): string {
  const total = changeSet.clusters.length;
  let outcome: string;
  if (changeSet.mode === 'apply') {
    outcome = rolloutOutcome(changeSet.clusters);
  } else {
    const changed = changeSet.clusters.filter(clusterHasChanges).length;
    outcome = hasChanges(changeSet)
      ? `🟡 Changes on ${changed} of ${total} clusters`
      : `✅ No changes on ${total} clusters`;
    if (firstFailure(changeSet.clusters))
      outcome += `; ❌ ${changeSet.clusters.filter((cluster) => cluster.status === 'failed').length} failed`;
  }
  const pr = context.pullRequest === undefined ? '' : ` (pull request #${context.pullRequest})`;
  const comment =
    context.commentUrl && changeSet.mode === 'diff' ? ` · [PR comment](${linkTarget(context.commentUrl)})` : '';
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  let head = `## timoni-fleet ${runName(changeSet)} · bundle ${code(changeSet.bundle)}\n\n`;
  head += `${outcome} at commit ${commitLink(context)}${pr}${comment}${run}.\n\n`;
  head += rollbackTargetSentence(changeSet);
  head += deadlineCallout(changeSet, context);
  const notes = (context.notes ?? []).filter((note) => note.trim() !== '');
  if (notes.length > 0)
    head += `> [!NOTE]\n${notes.map((note) => `> ${escapeInline(showHiddenText(maskSecrets(note, context.secrets)))}`).join('\n>\n')}\n\n`;
  if (secretChanged) head += '🔒 A secret value changed (hidden).\n\n';
  head += membershipWarning(changeSet);
  head += `${renderStatusTable(changeSet.clusters, { withDuration: true })}\n`;
  return head + unreachedNote(changeSet.clusters);
}

// ---------------------------------------------------------------------------------------
// One cluster's section.

function renderSummarySection(input: SectionInput): string {
  const { cluster } = input;
  const duration = cluster.durationMs === undefined ? '' : ` · ${formatDuration(cluster.durationMs)}`;
  let text = `### ${code(cluster.name)} · ${escapeInline(cluster.group)} · ${statusLabel(cluster)}${duration}\n\n`;
  if (cluster.status === 'skipped') return `${text}Not reached: the rollout stopped at an earlier failure.\n\n`;
  text += membershipParagraph(cluster, input.mode, input.membership);
  text += `Context ${code(cluster.kubeContext)} · ${describeCounts(countActions(cluster))}\n\n`;
  if (cluster.identity) text += `${identityLine(cluster.identity)}\n\n`;
  // An instance's error is shown under **Failed instances**, once (not again here as the cluster's).
  if (cluster.error && !clusterErrorShownByInstance(cluster))
    text += renderErrorBlock(cluster.error, { cap: ERROR_CAP, measure: input.measure, cutNote: errorCutNote });
  text += renderRollbackBlock(cluster, { cap: ERROR_CAP, measure: input.measure, cutNote: errorCutNote });
  if (cluster.instances.length > 0) text += renderInstances(cluster.instances, input);
  text += renderObjects(input);
  text += renderFailedInstances(input);
  text += renderFailedObjects(input);
  text += renderReadinessProblems(cluster);
  if (input.detail === 'diffs') text += renderDiffs(input);
  else if (cluster.instances.some((instance) => instance.changes.some((change) => change.diff !== '')))
    text += '_Diffs left out to fit the job summary limit._\n\n';
  return text;
}

/**
 * The cluster's identity: `Identity: kube-system uid 1a2b3c4d…, recorded 2026-11-24 as
 * `staging-1`` (and what this run wrote), or `not recorded`.
 */
export function identityLine(identity: NonNullable<ClusterChanges['identity']>): string {
  const uid = identity.uid.length > 8 ? `${identity.uid.slice(0, 8)}…` : identity.uid;
  const day = identity.recordedAt ? identity.recordedAt.slice(0, 10) : '';
  const recorded = identity.recordedAs
    ? `recorded${day ? ` ${day}` : ''} as ${code(identity.recordedAs)}`
    : 'not recorded';
  const notes = {
    recorded: ' (first apply: recorded now)',
    repinned: ' (re-pinned by this run)',
    rewritten: " (record rewritten: its UID was not this cluster's)",
  };
  const change = identity.change ? notes[identity.change] : '';
  return `Identity: kube-system uid ${code(uid)}, ${recorded}${change}`;
}

/** True when the cluster's object table has a readiness column. */
function hasReadiness(cluster: ClusterChanges): boolean {
  return cluster.instances.some((instance) => instance.changes.some((change) => readinessOf(change)));
}

/** One row of a cluster's object table. */
function objectRow(instance: InstanceChanges, change: ObjectChange, secret: boolean, withReadiness: boolean): string {
  const cells = [
    code(instance.name),
    code(objectRef(change)),
    code(change.apiVersion),
    `${actionLabel(change)}${secret ? ' 🔒 secret changed (hidden)' : ''}`,
  ];
  if (withReadiness) {
    const readiness = readinessOf(change);
    cells.push(readiness ? escapeInline(readinessLabel(readiness)) : '–');
  }
  return tableRow(cells);
}

function renderInstances(instances: readonly InstanceChanges[], input: SectionInput): string {
  let table = tableHeader(['Instance', 'Namespace', 'Module', 'Version', 'Digest'], ['l', 'l', 'l', 'l', 'l']);
  for (const instance of instances) {
    table += tableRow([
      code(instance.name) +
        (instance.removed ? ` 🗑️ ${removedInstanceNote(instance, input.mode, isLeaving(input.cluster))}` : '') +
        (instance.error ? ` ${instanceFailureLabel(instance.error)}` : '') +
        revisionLabel(instance),
      code(instance.namespace),
      code(instance.module.url),
      code(instance.module.version),
      instance.module.digest ? code(shortDigest(instance.module.digest)) : '–',
    ]);
  }
  return `${table}\n`;
}

function renderObjects(input: SectionInput): string {
  const { cluster } = input;
  const withReadiness = hasReadiness(cluster);
  const headings = ['Instance', 'Object', 'API version', 'Action'];
  if (withReadiness) headings.push('Readiness');
  const room = objectListRoom(
    input.detail === 'objects' ? (input.allocation.get(objectListId(input.clusterIndex)) ?? 0) : undefined,
  );
  let rows = '';
  cluster.instances.forEach((instance, instanceIndex) => {
    instance.changes.forEach((change, objectIndex) => {
      const secret = input.secretChanges.has(changeId(input.clusterIndex, instanceIndex, objectIndex));
      const row = objectRow(instance, change, secret, withReadiness);
      if (room.take(input.measure(row))) rows += row;
    });
  });
  if (room.omitted() > 0) input.onObjectsOmitted(room.omitted());
  const omitted =
    room.omitted() > 0 ? `_${room.omitted()} more objects not listed to fit the job summary limit._\n\n` : '';
  return (
    (rows
      ? `${tableHeader(
          headings,
          headings.map(() => 'l'),
        )}${rows}\n`
      : '') + omitted
  );
}

/** Each instance that failed as a whole, with its error (or the earlier cluster that shows the same one). */
function renderFailedInstances(input: SectionInput): string {
  let text = '';
  input.cluster.instances.forEach((instance, instanceIndex) => {
    if (!instance.error) return;
    const shownOn = input.instanceErrorShownOn.get(instanceId(input.clusterIndex, instanceIndex));
    text += `- ${code(instance.name)}\n\n${renderInstanceError(instance.error, shownOn, { cap: ERROR_CAP, measure: input.measure, cutNote: errorCutNote })}`;
  });
  return text ? `**Failed instances**\n\n${text}` : '';
}

function renderFailedObjects(input: SectionInput): string {
  let text = '';
  for (const instance of input.cluster.instances) {
    for (const change of instance.changes) {
      if (change.action === 'failed')
        text += `- ${code(instance.name)} ${code(objectRef(change))}\n\n${failedObjectBlock(change, input.measure, OBJECT_ERROR_CAP)}`;
    }
  }
  return text ? `**Failed objects**\n\n${text}` : '';
}

function renderReadinessProblems(cluster: ClusterChanges): string {
  const problems: string[] = [];
  for (const instance of cluster.instances) {
    for (const change of instance.changes) {
      const readiness = readinessOf(change);
      if (!readiness || readiness.status === 'Current') continue;
      const message = readiness.message ? `: ${escapeInline(readiness.message)}` : '';
      problems.push(`- ${code(objectRef(change))} ${escapeInline(readinessLabel(readiness))}${message}\n`);
    }
  }
  return problems.length > 0 ? `**Not ready**\n\n${problems.join('')}\n` : '';
}

/** Each diff once (later clusters refer to it), cut to its room; a line for each diff too large to compute. */
function renderDiffs(input: SectionInput): string {
  const { cluster } = input;
  let text = '';
  cluster.instances.forEach((instance, instanceIndex) => {
    instance.changes.forEach((change, objectIndex) => {
      const id = changeId(input.clusterIndex, instanceIndex, objectIndex);
      const sharing = input.sharing.get(id);
      const title = `<code>${escapeHtml(instance.name)}</code> <code>${escapeHtml(objectRef(change))}</code> ${change.action}`;
      if (!sharing) {
        const tooLarge = diffTooLargeNote(change);
        if (tooLarge) text += `- ${title} · ${tooLarge}\n\n`;
        return;
      }
      if (sharing.kind === 'repeat') {
        text += `- ${title} · same diff as on ${code(sharing.shownOn)}\n\n`;
        return;
      }
      const also = sharing.alsoOn.length > 0 ? ` · also on ${sharing.alsoOn.map(code).join(', ')}` : '';
      const block = renderDiffBlock(change.diff, input.allocation.get(id), input.measure, input.moreHint);
      input.onDiff(block.outcome);
      if (block.outcome === 'hidden') {
        text += `- ${title}${also} · ${block.markdown}\n\n`;
        return;
      }
      text += `<details>\n<summary>${title}${also}</summary>\n\n${block.markdown}\n${input.hiddenText.get(id) ?? ''}</details>\n\n`;
    });
  });
  return text ? `**Diffs**\n\n${text}` : '';
}
