// The PR comment, and the same comment updated on merge with the rollout result. Read top
// down, this file is how one comment is made:
//
//   <!-- timoni-fleet:bundle=apps -->              the marker (found again on the next run)
//   ### timoni-fleet diff · bundle apps             the headline: what changes where, commit, run
//   🔒 A secret value changed (hidden).             when a change touches secret data
//   | Cluster | Group | Created | ... | Status |   the status table, always complete; in a fleet
//                                                   of 10 clusters or more, one row (and one
//                                                   section) per group of clusters with the
//                                                   same change (at the end of this file)
//   **Not reached** after ... failed: ...          after a failed rollout
//   > [!WARNING] Shortened to fit ...              when the budget had to cut something
//   <details open><summary>cluster ...</summary>   one section per cluster: its error, each
//     **Instance** ... then each object, its diff   instance with its module, each changed
//   </details>                                      object with its diff (or a one-line form)
//   <!-- timoni-fleet:reviewed {...} -->           the review record, hidden (reviewed-block.ts):
//                                                   a diff's, or carried on by the rollout
//
// The whole is fitted into GitHub's comment limit by budget.ts (diffs cut fairly, then
// object lists, then the table alone), masked by redaction.ts; the parts of a section that
// the job summary shares (status, counts, error and diff blocks) are in sections.ts.

import {
  hasChanges,
  isLeaving,
  type ChangeSet,
  type ClusterChanges,
  type InstanceChanges,
  type ObjectChange,
} from '../changeset.js';
import { COMMENT_LIMIT, commentLength, type Measure } from '../github/limits.js';
import { secretMasker } from '../secrets.js';
import {
  changeId,
  cutNote,
  diffGroups,
  fitToBudget,
  indexSharedChanges,
  objectListGroups,
  objectListId,
  objectListRoom,
  type ObjectListRoom,
  type Plan,
} from './budget.js';
import { capitalise, code, commitLink, escapeHtml, escapeInline, runLink, type ReportContext } from './markdown.js';
import { renderRecord, reviewedBlock, type ReviewedRecord } from './reviewed-block.js';
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
  failedObjectInline,
  groupSentence,
  instanceFailureLabel,
  instanceId,
  objectRef,
  removedInstanceNote,
  renderCountedSections,
  renderDiffBlock,
  renderErrorBlock,
  renderRollbackBlock,
  renderInstanceError,
  renderStatusTable,
  rolloutOutcome,
  sectionOpen,
  shortDigest,
  statusLabel,
  unreachedNote,
  type SectionInput,
} from './sections.js';
import { membershipParagraph, membershipWarning } from './membership.js';
import { deadlineCallout } from './deadline.js';

/**
 * Another frame for the PR comment's table and sections (the drift issue): its own marker,
 * headline and a footer, all inside the size limit and masked as the rest.
 */
export interface CommentFrame {
  marker: string;
  /** Markdown, ending with a blank line. */
  headline: string;
  /** Markdown after the sections. */
  footer: string;
}

/** The Markdown body of the PR comment for a `diff` ChangeSet (or of a `frame` around it); never over COMMENT_LIMIT. */
export function renderPullRequestComment(changeSet: ChangeSet, context: ReportContext, frame?: CommentFrame): string {
  return renderComment(changeSet, context, 'plan', frame);
}

/**
 * The Markdown body that replaces the PR comment after an `apply`: the same marker, the
 * result per cluster (applied / failed with step and error / not reached), the clusters not
 * reached listed; never over COMMENT_LIMIT.
 */
export function renderRolloutComment(
  changeSet: ChangeSet,
  context: ReportContext,
  extra: RolloutCommentExtra = {},
): string {
  return renderComment(changeSet, context, 'rollout', undefined, extra);
}

/** What a rollout comment adds: the review record it carries forward (for a re-run), warnings under its headline. */
export interface RolloutCommentExtra {
  reviewed?: ReviewedRecord;
  /** Plain text, one warning each (what was applied although it differs from what was reviewed). */
  warnings?: readonly string[];
}

type CommentVariant = 'plan' | 'rollout';

function renderComment(
  original: ChangeSet,
  context: ReportContext,
  variant: CommentVariant,
  frame?: CommentFrame,
  extra: RolloutCommentExtra = {},
): string {
  // Secrets masked, and text that reads otherwise than it is shown escaped (redaction.ts).
  const masked = showHiddenTextIn(maskChangeSet(original, context.secrets));
  // A large fleet shows one row and one section per group of clusters with the same change
  // (cluster-groups.ts): the ChangeSet rendered holds the first cluster of each group.
  const groups = groupClusters(masked, secretChangeIds(original, context.secrets));
  const changeSet = groups ? groupRepresentatives(masked, groups) : masked;
  const members = groups ? groupMembers(masked, groups) : undefined;
  const sharing = indexSharedChanges(changeSet);
  const secretChanges = secretChangeIds(groups ? groupRepresentatives(original, groups) : original, context.secrets);
  const hiddenText = hiddenTextChangeNotes(groups ? groupRepresentatives(original, groups) : original);
  // The review record (reviewed-block.ts) goes last, hidden; the visible part fits in the rest.
  // It names the commit the headline links (a pull request's head, not GitHub's temporary merge commit).
  const record = frame
    ? ''
    : variant === 'plan'
      ? reviewedBlock(context.commitSha ? { ...original, commit: context.commitSha } : original)
      : extra.reviewed
        ? renderRecord(extra.reviewed)
        : '';
  const limit = Math.min(context.maxSize ?? COMMENT_LIMIT, COMMENT_LIMIT) - (record ? commentLength(record) + 1 : 0);
  const warnings = (extra.warnings ?? []).map((warning) => `> ${escapeInline(showHiddenText(warning))}`).join('\n>\n');
  const moreHint = `the ${runLink(context, 'job summary of the workflow run')} holds more`;
  const objectLists = objectListGroups(changeSet, (clusterIndex, instanceIndex, objectIndex) => {
    const change = changeSet.clusters[clusterIndex]?.instances[instanceIndex]?.changes[objectIndex];
    if (!change || !listedInComment(change)) return 0;
    return commentLength(
      compactObjectLine(change, secretChanges.has(changeId(clusterIndex, instanceIndex, objectIndex)), commentLength),
    );
  });

  const render = (plan: Plan): string => {
    const renderSection = (input: SectionInput) =>
      renderClusterSection(input, groups?.[input.clusterIndex], members?.[input.clusterIndex]);
    const { sections, counts } = renderCountedSections(changeSet, plan, renderSection, {
      sharing,
      secretChanges,
      hiddenText,
      measure: commentLength,
      moreHint,
    });
    const where = `The ${runLink(context, 'job summary of the workflow run')} holds more.`;
    return (
      `${frame?.marker ?? commentMarker(changeSet.bundle, context.bundleFiles)}\n` +
      (frame ? '' : filesLine(changeSet.bundle, context.bundleFiles)) +
      (frame?.headline ?? renderHeadline(masked, context, variant)) +
      deadlineCallout(masked, context) +
      (warnings ? `> [!WARNING]\n${warnings}\n\n` : '') +
      membershipWarning(masked) +
      (secretChanges.size > 0 ? '🔒 A secret value changed (hidden).\n\n' : '') +
      renderStatusTable(changeSet.clusters, members ? { members } : {}) +
      '\n' +
      unreachedNote(masked.clusters) +
      cutNote(plan.detail, counts, "GitHub's comment limit (65,536 characters)", where) +
      sections +
      (frame?.footer ?? '')
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
  return secretMasker(context.secrets)(record ? `${body}\n${record}` : body);
}

function renderHeadline(changeSet: ChangeSet, context: ReportContext, variant: CommentVariant): string {
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  const total = changeSet.clusters.length;
  if (variant === 'plan') {
    const changed = changeSet.clusters.filter(clusterHasChanges).length;
    const failed = changeSet.clusters.filter((cluster) => cluster.status === 'failed').length;
    const parts = [
      hasChanges(changeSet) ? `changes on **${changed} of ${total}** clusters` : `no changes on ${total} clusters`,
    ];
    if (failed > 0) parts.push(`**${failed} failed**`);
    return `### timoni-fleet diff · bundle ${code(changeSet.bundle)}\n\n${capitalise(parts.join(', '))} for commit ${commitLink(context)}${run}.\n\n`;
  }
  return `### timoni-fleet rollout · bundle ${code(changeSet.bundle)}\n\n${rolloutOutcome(changeSet.clusters)} at commit ${commitLink(context)}${run}.\n\n`;
}

// ---------------------------------------------------------------------------------------
// One cluster's collapsible section.

/** Error messages are capped in comments whatever the budget; the job summary has them whole. */
const ERROR_CAP = 4_000;
const ERROR_CUT_NOTE = () => '✂️ _Error message cut; the job summary holds it whole._';
/** A failed object's own error, under its name (the cluster's error lists them all). */
const OBJECT_ERROR_CAP = 1_000;
const SECRET_NOTE = ' · 🔒 a secret value changed (hidden)';

/** True for the objects a comment lists: all but the unchanged. */
function listedInComment(change: ObjectChange): boolean {
  return change.action !== 'unchanged';
}

/** The one-line form of an object, used when diffs are left out. */
function compactObjectLine(change: ObjectChange, secret: boolean, measure: Measure): string {
  const failure = change.action === 'failed' ? `: ${failedObjectInline(change, measure)}` : '';
  return `- ${code(objectRef(change))} ${actionLabel(change)}${failure}${secret ? SECRET_NOTE : ''}\n`;
}

/** One cluster's section, or that of a group of clusters with the same change (shown for its first). */
function renderClusterSection(input: SectionInput, group?: ClusterGroup, members?: readonly ClusterChanges[]): string {
  const { cluster } = input;
  const counts = countActions(cluster);
  const open = sectionOpen(cluster) ? ' open' : '';
  const described = describeCounts(counts);
  // Not said twice: the status of an unchanged cluster (or one applied without changes) already says "no changes".
  const saysNoChanges = described === 'no changes' && (cluster.status === 'unchanged' || cluster.status === 'applied');
  const counted = cluster.status === 'skipped' || saysNoChanges ? '' : ` · ${described}`;
  const grouped = group && members && members.length > 1;
  const title = grouped ? `${members.length} clusters` : escapeHtml(cluster.name);
  const headline = `<b>${title}</b> · ${escapeHtml(cluster.group)} · ${statusLabel(cluster)}${counted}`;
  const room = objectListRoom(
    input.detail === 'objects' ? (input.allocation.get(objectListId(input.clusterIndex)) ?? 0) : undefined,
  );
  let body =
    (grouped ? groupSentence(members, group.byName) : '') + membershipParagraph(cluster, input.mode, input.membership);
  // An instance's error is shown under its name, once (not again here as the cluster's).
  if (cluster.error && !clusterErrorShownByInstance(cluster))
    body += renderErrorBlock(cluster.error, { cap: ERROR_CAP, measure: input.measure, cutNote: ERROR_CUT_NOTE });
  body += renderRollbackBlock(cluster, { cap: ERROR_CAP, measure: input.measure, cutNote: ERROR_CUT_NOTE });
  if (cluster.status === 'skipped') body += 'Not reached: the rollout stopped at an earlier failure.\n\n';
  for (const [instanceIndex, instance] of cluster.instances.entries())
    body += renderInstance(input, instance, instanceIndex, room);
  if (cluster.instances.length === 0 && cluster.status !== 'skipped' && !cluster.error) body += 'No instances.\n\n';
  if (room.omitted() > 0) input.onObjectsOmitted(room.omitted());
  return `<details${open}>\n<summary>${headline}</summary>\n\n${body}</details>\n\n`;
}

/** An instance's line (module, version, digest, unchanged count), then its changed objects. */
function renderInstance(
  input: SectionInput,
  instance: InstanceChanges,
  instanceIndex: number,
  room: ObjectListRoom,
): string {
  const { module } = instance;
  const unchanged = instance.changes.filter((change) => change.action === 'unchanged').length;
  const header =
    `**Instance ${code(instance.name)}** in ${code(instance.namespace)} · module ${code(module.url)} ${code(module.version)}` +
    (module.digest ? ` ${code(shortDigest(module.digest))}` : '') +
    (unchanged > 0 ? ` · ${unchanged} unchanged` : '') +
    (instance.removed ? ` · 🗑️ ${removedInstanceNote(instance, input.mode, isLeaving(input.cluster))}` : '') +
    (instance.error ? ` · ${instanceFailureLabel(instance.error)}` : '') +
    '\n\n' +
    (instance.error
      ? renderInstanceError(
          instance.error,
          input.instanceErrorShownOn.get(instanceId(input.clusterIndex, instanceIndex)),
          { cap: ERROR_CAP, measure: input.measure, cutNote: ERROR_CUT_NOTE },
        )
      : '');
  let objects = '';
  if (input.detail === 'objects') {
    const omittedBefore = room.omitted();
    instance.changes.forEach((change, objectIndex) => {
      if (!listedInComment(change)) return;
      const line = compactObjectLine(
        change,
        input.secretChanges.has(changeId(input.clusterIndex, instanceIndex, objectIndex)),
        input.measure,
      );
      if (room.take(input.measure(line))) objects += line;
    });
    const omitted = room.omitted() - omittedBefore;
    if (objects) objects += '\n';
    if (omitted > 0)
      objects += `_${omitted} more changed ${omitted === 1 ? 'object' : 'objects'} not listed for lack of room._\n\n`;
    return header + objects;
  }
  instance.changes.forEach((change, objectIndex) => {
    if (!listedInComment(change)) return;
    objects += renderObject(input, change, changeId(input.clusterIndex, instanceIndex, objectIndex));
  });
  return header + objects;
}

/**
 * One changed object: its diff in a collapsible block, or a line that says where its diff
 * is (under an earlier cluster), why it is not shown (no room, too large to compute), or
 * that it has none.
 */
function renderObject(input: SectionInput, change: ObjectChange, id: string): string {
  const secret = input.secretChanges.has(id) ? SECRET_NOTE : '';
  const title = `${code(objectRef(change))} ${actionLabel(change)}`;
  // A failed object's error is shown open, under its name; its field changes (if any) follow.
  const failure = failedObjectBlock(change, input.measure, OBJECT_ERROR_CAP);
  const sharing = input.sharing.get(id);
  if (!sharing) {
    const tooLarge = diffTooLargeNote(change);
    return `- ${title}${secret}${tooLarge ? ` · ${tooLarge}` : ''}\n\n${failure}`;
  }
  if (sharing.kind === 'repeat')
    return `- ${title}${secret} · same change as on ${code(sharing.shownOn)} (shown there)\n\n${failure}`;
  const also = sharing.alsoOn.length > 0 ? ` · also on ${sharing.alsoOn.map(code).join(', ')}` : '';
  const block = renderDiffBlock(change.diff, input.allocation.get(id), input.measure, input.moreHint);
  input.onDiff(block.outcome);
  if (block.outcome === 'hidden') return `- ${title}${also}${secret} · ${block.markdown}\n\n${failure}`;
  const hidden = input.hiddenText.get(id) ?? '';
  if (failure)
    return `- ${title}${also}${secret}\n\n${failure}<details>\n<summary>field changes</summary>\n\n${block.markdown}\n${hidden}</details>\n\n`;
  return `<details>\n<summary>${title}${also}${secret}</summary>\n\n${block.markdown}\n${hidden}</details>\n\n`;
}

// ---------------------------------------------------------------------------------------
// The hidden marker that identifies the comment of one bundle, so that the action finds
// its comment again and updates it in place instead of adding another.
//
// Form: `<!-- timoni-fleet:bundle=<name> -->`, the name URI-encoded so that no name can
// end the HTML comment early or hold spaces. It is the first line of every comment body,
// and a comment is only taken as the bundle's when its body starts with it (a comment
// that quotes the marker, or a diff that contains another bundle's, is never taken).
// When the run failed before the bundle's name was known, the marker names the bundle
// files instead (`files=<paths>`), so that two such bundles never share one comment.

const MARKER_PREFIX = '<!-- timoni-fleet:';
const MARKER_SUFFIX = ' -->';
const MARKER = /^<!-- timoni-fleet:bundle=([^\s]+) -->/;

export interface CommentMarker {
  bundle: string;
}

/** The hidden marker for the comment of a bundle (or of its files, when its name is unknown). */
export function commentMarker(bundleName: string, bundleFiles: readonly string[] = []): string {
  if (bundleName === '' && bundleFiles.length > 0)
    return `${MARKER_PREFIX}files=${encodeURIComponent(bundleFiles.join(','))}${MARKER_SUFFIX}`;
  return `${MARKER_PREFIX}bundle=${encodeURIComponent(bundleName)}${MARKER_SUFFIX}`;
}

/**
 * The second line of a bundle's comment: its bundle files, as the marker names them when the
 * name is unknown (and then the marker itself is that line). A later run that cannot learn
 * the bundle's name (its evaluation stopped by the deadline) finds this comment by it
 * (../github/comments.ts, upsertMarkedComment's `sameAs`) and replaces its diff.
 */
function filesLine(bundleName: string, bundleFiles: readonly string[] = []): string {
  if (bundleName === '' || bundleFiles.length === 0) return '';
  return `${commentMarker('', bundleFiles)}\n`;
}

/** The marker found in a comment body, or null when the body holds none (or a malformed one). */
export function findMarker(body: string): CommentMarker | null {
  const match = MARKER.exec(body);
  if (!match?.[1]) return null;
  try {
    return { bundle: decodeURIComponent(match[1]) };
  } catch {
    return null;
  }
}

/** True when the comment body is the comment of this bundle. */
export function isCommentOf(body: string, bundleName: string): boolean {
  return findMarker(body)?.bundle === bundleName;
}

// ---------------------------------------------------------------------------------------
// Clusters with the same change, grouped: in a large fleet the PR comment shows one table
// row and one section for all the clusters of a group whose changes are identical ("same
// change on 44 production clusters: production-01, ..."), so that the cluster that is out
// of line stands alone and the comment stays within GitHub's limit.
//
// When: only for fleets of GROUPING_MIN_CLUSTERS clusters or more; smaller fleets are
// rendered cluster by cluster, as they always were. A group has at least two clusters.
//
// Identical means: the same runtime group, the same status, the same error, the same
// instances (name, namespace, module, removed, error) with the same object changes in the same
// order (kind, name, action, diff, failure, readiness status and message), and the same changes touching
// secret data, as the comment shows them (secret values masked). A cluster's own name is
// set aside: a bundle that reads TIMONI_CLUSTER_NAME (a namespace, a label, a message per
// cluster) makes changes that differ only where each cluster's name stands, and those are
// the same change. The group's section then shows its first cluster's change and says that
// on the others their own name stands in its place. Durations and kube contexts do not
// count (the comment shows neither).

/** Fleets of this many clusters or more have their identical clusters grouped. */
export const GROUPING_MIN_CLUSTERS = 10;

/** One row of a grouped table: a cluster alone, or clusters with the same change. */
export interface ClusterGroup {
  /** Indexes in the ChangeSet, in runtime order; the first is the one shown. */
  members: number[];
  /** True when the members' changes are the same only with each one's own name set aside. */
  byName: boolean;
}

const NAME_PLACEHOLDER = '\u0000cluster\u0000';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text with every whole occurrence of the name (not inside a longer word) replaced by a placeholder. */
function withoutName(text: string, name: string): string {
  if (name === '') return text;
  return text.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(name)}(?![A-Za-z0-9])`, 'g'), NAME_PLACEHOLDER);
}

/** What must be equal for two clusters to share a row, as text (before the name is set aside). */
function comparable(cluster: ClusterChanges, clusterIndex: number, secretChanges: ReadonlySet<string>): string {
  return JSON.stringify([
    cluster.group,
    cluster.status,
    cluster.membership ?? null,
    cluster.bundleKept ?? null,
    cluster.error,
    cluster.instances.map((instance, instanceIndex) => [
      instance.name,
      instance.namespace,
      instance.module,
      instance.removed ?? false,
      instance.error ?? null,
      instance.changes.map((change, objectIndex) => [
        // Readiness counts by its status and message; how long it took does not (the comment does not show it).
        { ...change, readiness: change.readiness ? [change.readiness.status, change.readiness.message] : null },
        secretChanges.has(changeId(clusterIndex, instanceIndex, objectIndex)),
      ]),
    ]),
  ]);
}

/**
 * The rows of the comment's table for this ChangeSet, in runtime order of their first
 * cluster; undefined when the fleet is below GROUPING_MIN_CLUSTERS or no two clusters have
 * the same change (then every cluster is its own row, as in a small fleet).
 */
export function groupClusters(changeSet: ChangeSet, secretChanges: ReadonlySet<string>): ClusterGroup[] | undefined {
  if (changeSet.clusters.length < GROUPING_MIN_CLUSTERS) return undefined;
  const byKey = new Map<string, ClusterGroup & { exact: string }>();
  const groups: Array<ClusterGroup & { exact: string }> = [];
  changeSet.clusters.forEach((cluster, clusterIndex) => {
    const exact = comparable(cluster, clusterIndex, secretChanges);
    const key = withoutName(exact, cluster.name);
    const found = byKey.get(key);
    if (found) {
      found.members.push(clusterIndex);
      if (exact !== found.exact) found.byName = true;
      return;
    }
    const group = { members: [clusterIndex], byName: false, exact };
    byKey.set(key, group);
    groups.push(group);
  });
  if (groups.length === changeSet.clusters.length) return undefined;
  return groups.map(({ members, byName }) => ({ members, byName }));
}

/**
 * The ChangeSet the comment renders when grouped: the first cluster of each group, in
 * order. (The headline and the note on clusters not reached still count every cluster.)
 */
export function groupRepresentatives<T extends ChangeSet>(changeSet: T, groups: readonly ClusterGroup[]): T {
  return { ...changeSet, clusters: groups.map((group) => changeSet.clusters[group.members[0] ?? 0] as ClusterChanges) };
}

/** The clusters of each row, by the row's index in the grouped ChangeSet. */
export function groupMembers(changeSet: ChangeSet, groups: readonly ClusterGroup[]): ClusterChanges[][] {
  return groups.map((group) => group.members.map((index) => changeSet.clusters[index] as ClusterChanges));
}
