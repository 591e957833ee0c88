// The parts of a report about one cluster that the PR comment (comment.ts) and the job
// summary (job-summary.ts) share: how clusters, objects and modules are named and counted,
// the cluster's status as the reports word it, the status table that opens every report,
// the blocks a section is made of (an error, a failed object's error, a diff cut to its
// room or too large to compute), and the rendering of every section of a report for one
// plan of the budget, counting what was cut.

import {
  type ChangeSet,
  type ChangeSetMode,
  type ClusterChanges,
  type ClusterError,
  type InstanceChanges,
  type InstanceError,
  isCancelled,
  isLeaving,
  type ModuleInfo,
  type ObjectAction,
  type ObjectChange,
  type ObjectReadiness,
  READINESS_STATUSES,
  type ReadinessStatus,
} from '../changeset.js';
import { formatDuration } from '../duration.js';
import type { Measure } from '../github/limits.js';
import {
  linesOf,
  truncateCharacters,
  truncateLines,
  type CutCounts,
  type Detail,
  type Plan,
  type Sharing,
} from './budget.js';
import { capitalise, code, codeBlock, escapeInline, tableHeader, tableRow } from './markdown.js';
import { leavingStatusLabel, membershipCellNote } from './membership.js';
import { rollbackLabel, rollbackOutcome } from './rollback.js';

export { renderRollbackBlock } from './rollback.js';

// ---------------------------------------------------------------------------------------
// Names and counts.

/** `Deployment/apps/podinfo`, or `Namespace/apps` for a cluster-scoped object (Timoni's form). */
export function objectRef(change: Pick<ObjectChange, 'kind' | 'namespace' | 'name'>): string {
  return change.namespace ? `${change.kind}/${change.namespace}/${change.name}` : `${change.kind}/${change.name}`;
}

/** `sha256:0123456789ab`: the algorithm and the first 12 hex digits; other forms as they are. */
export function shortDigest(digest: string): string {
  const match = /^([a-z0-9]+):([0-9a-f]{12})[0-9a-f]*$/.exec(digest);
  return match ? `${match[1]}:${match[2]}` : digest;
}

/** `oci://ghcr.io/stefanprodan/modules/podinfo:6.5.4`, the module as `timoni` prints it. */
export function moduleRef(module: ModuleInfo): string {
  return module.version ? `${module.url}:${module.version}` : module.url;
}

/** The action as the reports word it: a failure stands out. */
export function actionLabel(change: ObjectChange): string {
  return change.action === 'failed' ? '❌ failed' : change.action;
}

/** `instance removed from the bundle: 3 objects would be deleted` (diff) or `... deleted` (apply). */
export function removedInstanceNote(instance: InstanceChanges, mode: ChangeSetMode, leaving = false): string {
  const count = instance.changes.filter((change) => change.action === 'deleted').length;
  const objects = count === 1 ? '1 object' : `${count} objects`;
  return `${leaving ? 'leaves with the cluster' : 'instance removed from the bundle'}: ${objects} ${mode === 'diff' ? 'would be deleted' : 'deleted'}`;
}

export type ActionCounts = Record<ObjectAction, number>;

/** How many objects of the cluster have each action. */
export function countActions(cluster: ClusterChanges): ActionCounts {
  const counts: ActionCounts = {
    created: 0,
    configured: 0,
    unchanged: 0,
    deleted: 0,
    recreated: 0,
    skipped: 0,
    failed: 0,
  };
  for (const instance of cluster.instances) for (const change of instance.changes) counts[change.action] += 1;
  return counts;
}

/** True when the cluster has an object that is created, configured, deleted or recreated. */
export function clusterHasChanges(cluster: ClusterChanges): boolean {
  const counts = countActions(cluster);
  return counts.created + counts.configured + counts.deleted + counts.recreated > 0;
}

/** `2 created, 1 configured`, the non-zero changing actions, then failed objects; `no changes` when none. */
export function describeCounts(counts: ActionCounts): string {
  const parts = (['created', 'configured', 'deleted', 'recreated'] as const)
    .filter((action) => counts[action] > 0)
    .map((action) => `${counts[action]} ${action}`);
  const changes = parts.length > 0 ? parts.join(', ') : 'no changes';
  return counts.failed > 0 ? `${changes}, ${counts.failed} failed` : changes;
}

// ---------------------------------------------------------------------------------------
// Status.

/** True when the report should open the cluster's section by default. */
export function sectionOpen(cluster: ClusterChanges): boolean {
  return cluster.status === 'failed' || clusterHasChanges(cluster);
}

/** The status of a cluster as Markdown for a table cell or a heading (already escaped), with its rollback's outcome. */
export function statusLabel(cluster: ClusterChanges): string {
  return baseStatusLabel(cluster) + rollbackLabel(cluster);
}

function baseStatusLabel(cluster: ClusterChanges): string {
  const leaving = leavingStatusLabel(cluster);
  if (leaving) return leaving;
  switch (cluster.status) {
    case 'unchanged':
      return '✅ no changes';
    case 'changed':
      return '🟡 changes';
    case 'applied':
      return clusterHasChanges(cluster) ? '✅ applied' : '✅ applied (no changes)';
    case 'failed':
      if (isCancelled(cluster))
        return cluster.error?.interrupted === 'start'
          ? '⏹️ cancelled before it started'
          : `⏹️ cancelled at ${code(cluster.error?.interrupted ?? 'unknown')}`;
      return cluster.error ? `❌ failed at ${code(cluster.error.step)}` : '❌ failed';
    case 'skipped':
      return '⏭️ not reached';
  }
}

/** The clusters not reached because an earlier one failed, in runtime order. */
export function unreachedClusters(clusters: readonly ClusterChanges[]): ClusterChanges[] {
  return clusters.filter((cluster) => cluster.status === 'skipped');
}

/** The first failed cluster, the one that stopped the rollout. */
export function firstFailure(clusters: readonly ClusterChanges[]): ClusterChanges | undefined {
  return clusters.find((cluster) => cluster.status === 'failed');
}

/** The outcome of a rollout in one sentence (no final period): where it stopped, or that it applied everywhere. */
export function rolloutOutcome(all: readonly ClusterChanges[]): string {
  // Clusters leaving the fleet are told apart: the bundle is removed from them, not applied.
  const clusters = all.filter((cluster) => !isLeaving(cluster));
  const removed = all.filter((cluster) => isLeaving(cluster) && cluster.status === 'applied').length;
  const leaving = all.length - clusters.length;
  const removedNote =
    leaving === 0
      ? ''
      : `; bundle removed from ${removed} of ${leaving} ${leaving === 1 ? 'cluster' : 'clusters'} leaving the fleet`;
  const failure = firstFailure(all);
  const applied = clusters.filter((cluster) => cluster.status === 'applied').length;
  const cancelled = clusters.find(isCancelled);
  if (cancelled) {
    const where =
      cancelled.error?.interrupted === 'start'
        ? `before ${code(cancelled.name)}`
        : `at ${code(cancelled.name)} (during ${code(cancelled.error?.interrupted ?? 'unknown')}${cancelled.error?.instance ? ` of instance ${code(cancelled.error.instance)}` : ''})`;
    return `⏹️ Rollout cancelled ${where}; applied to ${applied} of ${clusters.length} clusters${removedNote}`;
  }
  return failure
    ? `❌ Rollout stopped at ${code(failure.name)}${failure.error ? ` (failed at ${code(failure.error.step)})` : ''}; applied to ${applied} of ${clusters.length} clusters${removedNote}${rollbackOutcome(clusters)}`
    : `✅ Applied to ${applied} of ${clusters.length} clusters${removedNote}`;
}

/** The paragraph naming the clusters not reached and the failure that stopped them; '' when none. */
export function unreachedNote(clusters: readonly ClusterChanges[]): string {
  const unreached = unreachedClusters(clusters);
  if (unreached.length === 0) return '';
  const failure = firstFailure(clusters);
  const after = failure ? ` after ${code(failure.name)} ${isCancelled(failure) ? 'was cancelled' : 'failed'}` : '';
  return `**Not reached**${after}: ${unreached.map((cluster) => code(cluster.name)).join(', ')}.\n\n`;
}

/** The readiness result of a change, when the ChangeSet carries a well-formed one. */
export function readinessOf(change: ObjectChange): ObjectReadiness | undefined {
  const candidate: unknown = change.readiness;
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const { status, message, durationMs } = candidate as Record<string, unknown>;
  if (typeof status !== 'string' || !(READINESS_STATUSES as readonly string[]).includes(status)) return undefined;
  return {
    status: status as ReadinessStatus,
    message: typeof message === 'string' ? message : '',
    ...(typeof durationMs === 'number' ? { durationMs } : {}),
  };
}

/** `✅ Current`, `❌ Failed`, `⏳ InProgress` … for a table cell (plain text, unescaped). */
export function readinessLabel(readiness: ObjectReadiness): string {
  const icon =
    readiness.status === 'Current'
      ? '✅'
      : readiness.status === 'InProgress'
        ? '⏳'
        : readiness.status === 'Unknown'
          ? '❔'
          : '❌';
  return `${icon} ${readiness.status}`;
}

export interface StatusTableOptions {
  /** Add the time spent per cluster and the unchanged count (job summary). */
  withDuration?: boolean;
  /**
   * Per row, the clusters it stands for when clusters with the same change are grouped
   * (cluster-groups.ts); a row of several names them all in its Cluster cell.
   */
  members?: readonly (readonly ClusterChanges[])[];
}

/** The Cluster cell of a table row: the cluster's name, or every member's for a group of clusters. */
export function clusterCell(cluster: ClusterChanges, members?: readonly ClusterChanges[]): string {
  if (!members || members.length < 2) return code(cluster.name) + membershipCellNote(cluster);
  return `${members.length} clusters: ${members.map((member) => code(member.name)).join(', ')}`;
}

/**
 * The sentence that opens the section of a group of clusters with the same change, naming
 * them all, e.g. `Same change on 44 production clusters: production-01, ...`; `byName`
 * adds that the shown cluster's name stands for each one's own.
 */
export function groupSentence(members: readonly ClusterChanges[], byName: boolean): string {
  const first = members[0];
  if (!first) return '';
  const clusters = `${members.length} ${escapeInline(first.group)} clusters`;
  const opening =
    first.status === 'skipped'
      ? `${capitalise(clusters)} not reached`
      : first.status === 'failed'
        ? `Same failure on ${clusters}`
        : clusterHasChanges(first)
          ? `Same change on ${clusters}`
          : `No changes on ${clusters}`;
  const names = members.map((member) => code(member.name)).join(', ');
  const shown = byName
    ? ` Shown for ${code(first.name)}; on the others, each cluster's own name stands where ${code(first.name)} does.`
    : '';
  return `${opening}: ${names}.${shown}\n\n`;
}

/** The table of clusters, in runtime order, that opens every report. It is always complete. */
export function renderStatusTable(clusters: readonly ClusterChanges[], options: StatusTableOptions = {}): string {
  const headings = ['Cluster', 'Group', 'Created', 'Configured', 'Deleted', 'Recreated'];
  const align: ('l' | 'r')[] = ['l', 'l', 'r', 'r', 'r', 'r'];
  if (options.withDuration) {
    headings.push('Unchanged', 'Duration');
    align.push('r', 'r');
  }
  headings.push('Status');
  align.push('l');
  let table = tableHeader(headings, align);
  for (const [index, cluster] of clusters.entries()) {
    const counts = countActions(cluster);
    const cells = [
      clusterCell(cluster, options.members?.[index]),
      escapeInline(cluster.group),
      String(counts.created),
      String(counts.configured),
      String(counts.deleted),
      String(counts.recreated),
    ];
    if (options.withDuration) {
      cells.push(String(counts.unchanged), cluster.durationMs === undefined ? '–' : formatDuration(cluster.durationMs));
    }
    cells.push(statusLabel(cluster));
    table += tableRow(cells);
  }
  return table;
}

// ---------------------------------------------------------------------------------------
// Blocks: errors and diffs.

export interface ErrorBlockOptions {
  /** The most of the message shown, measured with `measure`. */
  cap: number;
  measure: Measure;
  /** Markdown note for a message that was cut. */
  cutNote: (keptLines: number, totalLines: number) => string;
}

/** A cluster's error: the step that failed, the instance and object concerned, and the message in a fenced block (capped). */
export function renderErrorBlock(error: ClusterError, options: ErrorBlockOptions): string {
  const where = [
    error.instance ? `instance ${code(error.instance)}` : '',
    error.object ? `object ${code(error.object)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const message = truncateLines(error.message, options.cap, options.measure);
  const cut = message.cut ? `${options.cutNote(message.keptLines, message.totalLines)}\n` : '';
  if (isCancelled({ status: 'failed', error })) {
    return `⏹️ **Cancelled during ${code(error.interrupted ?? 'unknown')}**${where ? ` (${where})` : ''}:\n\n${codeBlock(message.text, 'text')}${cut}\n`;
  }
  return `❌ **Failed at ${code(error.step)}**${where ? ` (${where})` : ''}:\n\n${codeBlock(message.text, 'text')}${cut}\n`;
}

// An instance that failed as a whole (`InstanceChanges.error`) shows its error under its
// name, once: the cluster's error, when it is that instance's, is not shown again above,
// and an instance that fails with the same error on a later cluster (the same values on
// every production cluster, say) refers to the first cluster that shows it.

/** True when the cluster's error is the one an instance of it shows under its name. */
export function clusterErrorShownByInstance(cluster: ClusterChanges): boolean {
  const { error } = cluster;
  if (!error?.instance) return false;
  return cluster.instances.some(
    (instance) =>
      instance.name === error.instance &&
      instance.error?.step === error.step &&
      instance.error.message === error.message,
  );
}

/** The id of an instance of a cluster, for SectionInput.instanceErrorShownOn. */
export function instanceId(clusterIndex: number, instanceIndex: number): string {
  return `${clusterIndex}/${instanceIndex}`;
}

/**
 * Per instance id, for each failed instance whose error (the same instance, step and
 * message) an earlier cluster of the ChangeSet shows already: that cluster's name.
 */
export function repeatedInstanceErrors(changeSet: ChangeSet): Map<string, string> {
  const firstShownOn = new Map<string, string>();
  const repeats = new Map<string, string>();
  changeSet.clusters.forEach((cluster, clusterIndex) =>
    cluster.instances.forEach((instance, instanceIndex) => {
      if (!instance.error) return;
      const key = JSON.stringify([instance.name, instance.error.step, instance.error.message]);
      const shownOn = firstShownOn.get(key);
      if (shownOn === undefined) firstShownOn.set(key, cluster.name);
      else repeats.set(instanceId(clusterIndex, instanceIndex), shownOn);
    }),
  );
  return repeats;
}

/** `❌ failed at `build``: a failed instance's mark beside its name. */
export function instanceFailureLabel(error: InstanceError): string {
  return `❌ failed at ${code(error.step)}`;
}

/**
 * A failed instance's error under its name: in a fenced block (capped, with the object
 * concerned), or a line that names the earlier cluster showing the same error.
 */
export function renderInstanceError(
  error: InstanceError,
  shownOn: string | undefined,
  options: ErrorBlockOptions,
): string {
  if (shownOn !== undefined)
    return `❌ **Failed at ${code(error.step)}**: the same error as on ${code(shownOn)} (shown there).\n\n`;
  return renderErrorBlock(
    { step: error.step, message: error.message, ...(error.object ? { object: error.object } : {}) },
    options,
  );
}

/** The one-line form of a failed object's error (first line, at most `cap` characters), escaped for inline Markdown. */
export function failedObjectInline(change: ObjectChange, measure: Measure, cap = 300): string {
  const first = (change.error ?? '').split('\n')[0] ?? '';
  const kept = truncateCharacters(first, cap, measure);
  return escapeInline(kept === first ? kept : `${kept}…`);
}

/** A failed object's error (the API server's answer) in a fenced block, capped; '' for other actions. */
export function failedObjectBlock(change: ObjectChange, measure: Measure, cap: number): string {
  if (change.action !== 'failed') return '';
  const message = truncateLines(change.error ?? 'failed (no message)', cap, measure);
  return `${codeBlock(message.text, 'text')}${message.cut ? `✂️ _Error cut: ${message.keptLines} of ${message.totalLines} lines shown._\n` : ''}\n`;
}

/** Below this allocation a diff that does not fit is not shown at all: a few characters help no one. */
export const MIN_DIFF_SHOWN = 160;

export type DiffOutcome = 'whole' | 'cut' | 'hidden';

/** What becomes of a diff of this size under an allocation (none = whole). */
export function diffOutcome(size: number, allocation: number | undefined): DiffOutcome {
  if (allocation === undefined || allocation >= size) return 'whole';
  return allocation < MIN_DIFF_SHOWN ? 'hidden' : 'cut';
}

export interface DiffBlock {
  markdown: string;
  outcome: DiffOutcome;
}

/** The note for a diff left out entirely, to follow the object's name on its line. */
export function hiddenDiffNote(diff: string): string {
  const lines = linesOf(diff).length;
  return `✂️ diff not shown (${lines} ${lines === 1 ? 'line' : 'lines'})`;
}

/**
 * The diff as a fenced block, cut to the allocation when needed, followed by a note that
 * says what was cut and where to see it whole (`moreHint`, Markdown, e.g. a run link).
 * For a `hidden` outcome the markdown is the hidden-diff note alone.
 */
export function renderDiffBlock(
  diff: string,
  allocation: number | undefined,
  measure: Measure,
  moreHint: string,
): DiffBlock {
  const outcome = diffOutcome(measure(diff), allocation);
  const totalLines = linesOf(diff).length;
  if (outcome === 'whole') return { markdown: codeBlock(diff, 'diff'), outcome };
  if (outcome === 'hidden') return { markdown: hiddenDiffNote(diff), outcome };
  const kept = truncateLines(diff, allocation ?? 0, measure);
  const shown =
    kept.keptLines > 0
      ? `${kept.keptLines} of ${totalLines} lines shown`
      : `part of the first of ${totalLines} lines shown`;
  return { markdown: `${codeBlock(kept.text, 'diff')}✂️ _Diff cut: ${shown}; ${moreHint}._\n`, outcome };
}

/**
 * The note for an object whose diff the engine could not compute within its limits
 * (`diffTooLarge`), to follow the object's name on its line where the diff would be;
 * undefined when the diff was computed, or when the object does not change (unchanged,
 * skipped). The sizes are shown when the ChangeSet carries well-formed ones (a ChangeSet
 * read back from JSON may carry anything).
 */
export function diffTooLargeNote(change: ObjectChange): string | undefined {
  const tooLarge: unknown = change.diffTooLarge;
  if (tooLarge === undefined || tooLarge === null || tooLarge === false) return undefined;
  if (change.action === 'unchanged' || change.action === 'skipped') return undefined;
  const { liveLines, desiredLines } = (typeof tooLarge === 'object' ? tooLarge : {}) as Record<string, unknown>;
  const live = lineCount(liveLines);
  const desired = lineCount(desiredLines);
  let sizes = '';
  if (live !== undefined && desired !== undefined) {
    if (live === 0) sizes = ` (${thousands(desired)} lines desired)`;
    else if (desired === 0) sizes = ` (${thousands(live)} lines live)`;
    else sizes = ` (${thousands(live)} lines live, ${thousands(desired)} desired)`;
  }
  return `⚠️ diff too large to compute${sizes}; compare ${code('timoni-fleet build')} with the live object locally`;
}

function lineCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** `12,500`: digits grouped by thousands, the same on every machine (no locale). */
function thousands(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// ---------------------------------------------------------------------------------------
// Every cluster's section of a report, for one plan of the budget.

/** What a renderer of one cluster's section (comment.ts, job-summary.ts) is given. */
export interface SectionInput {
  cluster: ClusterChanges;
  clusterIndex: number;
  /** The ChangeSet's mode: a removed instance's objects `would be deleted` (diff) or were (apply). */
  mode: ChangeSetMode;
  /** Where the base runtime of the membership comparison was read (a leaving cluster's section says so). */
  membership: ChangeSet['membership'];
  detail: Detail;
  allocation: ReadonlyMap<string, number>;
  sharing: ReadonlyMap<string, Sharing>;
  /** Ids of changes that touch secret data. */
  secretChanges: ReadonlySet<string>;
  /** Notes, by change id, for the diffs that hold text shown escaped (redaction.ts: hiddenTextChangeNotes). */
  hiddenText: ReadonlyMap<string, string>;
  measure: Measure;
  /** Markdown: where the whole diff can be seen. */
  moreHint: string;
  /** Records what became of each diff rendered. */
  onDiff: (outcome: DiffOutcome) => void;
  /** Records object lines left out for lack of room. */
  onObjectsOmitted: (count: number) => void;
  /** For failed instances whose error an earlier cluster shows: that cluster, by instanceId (repeatedInstanceErrors). */
  instanceErrorShownOn: ReadonlyMap<string, string>;
}

/** What every section renderer needs beyond its cluster and the plan's detail and allocation. */
export type SharedSectionInput = Omit<
  SectionInput,
  | 'cluster'
  | 'clusterIndex'
  | 'mode'
  | 'membership'
  | 'detail'
  | 'allocation'
  | 'onDiff'
  | 'onObjectsOmitted'
  | 'instanceErrorShownOn'
>;

/**
 * Renders every cluster's section for a plan (none when only the table fits) with
 * `renderSection`, counting what was cut so the cut note can say it.
 */
export function renderCountedSections(
  changeSet: ChangeSet,
  plan: Plan,
  renderSection: (input: SectionInput) => string,
  shared: SharedSectionInput,
): { sections: string; counts: CutCounts } {
  const counts: CutCounts = { diffsCut: 0, diffsHidden: 0, objectsOmitted: 0 };
  if (plan.detail === 'table') return { sections: '', counts };
  const instanceErrorShownOn = repeatedInstanceErrors(changeSet);
  const sections = changeSet.clusters
    .map((cluster, clusterIndex) =>
      renderSection({
        ...shared,
        cluster,
        clusterIndex,
        mode: changeSet.mode,
        membership: changeSet.membership,
        detail: plan.detail,
        allocation: plan.allocation,
        instanceErrorShownOn,
        onDiff: (outcome) => {
          if (outcome === 'cut') counts.diffsCut += 1;
          if (outcome === 'hidden') counts.diffsHidden += 1;
        },
        onObjectsOmitted: (count) => {
          counts.objectsOmitted += count;
        },
      }),
    )
    .join('');
  return { sections, counts };
}
