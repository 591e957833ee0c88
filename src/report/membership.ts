// Fleet membership in the reports (../fleet/membership.ts): a cluster that leaves the fleet
// has its own row (its Cluster cell says so) and section (what is, or would be, deleted
// there; or why the bundle stays installed, with the commands that remove it by hand); a
// renamed cluster says its base name; a base runtime that could not be read is a warning
// above the table. Every name and reason is escaped here (runtime files are the user's text).
import { isLeaving, renamedFrom, type ChangeSet, type ChangeSetMode, type ClusterChanges } from '../changeset.js';
import { code, codeBlock, escapeInline } from './markdown.js';

/** What the Cluster cell adds: ` · 🚪 leaves the fleet`, ` · renamed from `old``, or ''. */
export function membershipCellNote(cluster: Pick<ClusterChanges, 'membership'>): string {
  if (isLeaving(cluster)) return ' · 🚪 leaves the fleet';
  const from = renamedFrom(cluster);
  return from === undefined ? '' : ` · renamed from ${code(from)}`;
}

/** The status of a leaving cluster as the reports word it, or undefined for any other cluster. */
export function leavingStatusLabel(cluster: ClusterChanges): string | undefined {
  if (!isLeaving(cluster)) return undefined;
  if (cluster.bundleKept) return '⚠️ leaves; bundle stays installed';
  switch (cluster.status) {
    case 'changed':
      return '🗑️ bundle to be removed';
    case 'unchanged':
      return '🚪 leaves (nothing installed)';
    case 'applied':
      return '✅ bundle removed';
    default:
      return undefined;
  }
}

/** The paragraph that opens a leaving or renamed cluster's section; '' for any other. */
export function membershipParagraph(
  cluster: ClusterChanges,
  mode: ChangeSetMode,
  source: ChangeSet['membership'],
): string {
  const where = source?.from ? ` (listed in ${escapeInline(source.from)}, not in the runtime)` : '';
  const from = renamedFrom(cluster);
  if (from !== undefined) {
    return `↪️ **Renamed** from ${code(from)}${source?.from ? ` in ${escapeInline(source.from)}` : ''}: the same cluster (its identity record), nothing is deleted; ${mode === 'diff' ? 'the merge re-pins its identity record to the new name' : 'its identity record is re-pinned to the new name'}.\n\n`;
  }
  if (!isLeaving(cluster)) return '';
  let text = `🚪 **Leaves the fleet**${where}. Context ${code(cluster.kubeContext)}.`;
  if (cluster.bundleKept) {
    text += ` ${escapeInline(cluster.bundleKept.reason)}.\n\n`;
    if (cluster.bundleKept.commands.length > 0)
      text += `To remove the bundle from it by hand:\n\n${codeBlock(cluster.bundleKept.commands.join('\n'), 'sh')}\n`;
    return text;
  }
  if (cluster.status === 'skipped')
    return `${text} The bundle was not removed: the rollout of the remaining clusters did not succeed.\n\n`;
  if (cluster.status === 'failed') return `${text}\n\n`;
  if (cluster.instances.length === 0) return `${text} No instance of the bundle was found on it.\n\n`;
  const instances =
    cluster.instances.length === 1
      ? 'Its instance of the bundle'
      : `Its ${cluster.instances.length} instances of the bundle`;
  return `${text} ${instances} ${mode === 'diff' ? 'would be deleted after the remaining clusters are rolled out (newest first, objects in reverse apply order, then the inventory Secrets)' : 'were deleted after the remaining clusters were rolled out'}.\n\n`;
}

/** The warning above the table when the base runtime could not be read; '' otherwise. */
export function membershipWarning(changeSet: Pick<ChangeSet, 'membership'>): string {
  const warning = changeSet.membership?.warning;
  if (!warning) return '';
  return `> [!WARNING]\n> Fleet membership not compared (no cluster is shown leaving the fleet): ${escapeInline(warning)}\n\n`;
}
