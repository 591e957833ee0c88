// One cluster's collapsible section of the PR comment (and of the rollout comment).

import type { ChangeSetMode, ClusterChanges, InstanceChanges, ObjectChange } from '../changeset.js';
import type { Detail } from './budget-fit.js';
import { countActions, describeCounts } from './cluster-counts.js';
import { sectionOpen, statusLabel } from './cluster-status.js';
import { renderDiffBlock, type DiffOutcome } from './diff-block.js';
import { renderErrorBlock } from './error-block.js';
import { actionLabel, failedObjectBlock, failedObjectInline, removedInstanceNote } from './instance-notes.js';
import { code, escapeHtml } from './markdown.js';
import { objectListId, objectListRoom, type ObjectListRoom } from './object-list.js';
import { objectRef, shortDigest } from './object-ref.js';
import { changeId, type Sharing } from './shared-changes.js';
import type { Measure } from '../github/limits.js';

export interface SectionInput {
  cluster: ClusterChanges;
  clusterIndex: number;
  /** The ChangeSet's mode: a removed instance's objects `would be deleted` (diff) or were (apply). */
  mode: ChangeSetMode;
  detail: Detail;
  allocation: ReadonlyMap<string, number>;
  sharing: ReadonlyMap<string, Sharing>;
  /** Ids of changes that touch secret data. */
  secretChanges: ReadonlySet<string>;
  measure: Measure;
  /** Markdown: where the whole diff can be seen. */
  moreHint: string;
  /** Records what became of each diff rendered. */
  onDiff: (outcome: DiffOutcome) => void;
  /** Records object lines left out for lack of room. */
  onObjectsOmitted: (count: number) => void;
}

/** Error messages are capped in comments whatever the budget; the job summary has them whole. */
const ERROR_CAP = 4_000;
/** A failed object's own error, under its name (the cluster's error lists them all). */
const OBJECT_ERROR_CAP = 1_000;

/** True for the objects a comment lists: all but the unchanged. */
export function listedInComment(change: ObjectChange): boolean {
  return change.action !== 'unchanged';
}

/** The one-line form of an object, used when diffs are left out. */
export function compactObjectLine(change: ObjectChange, secret: boolean, measure: Measure): string {
  const failure = change.action === 'failed' ? `: ${failedObjectInline(change, measure)}` : '';
  return `- ${code(objectRef(change))} ${actionLabel(change)}${failure}${secret ? ' · 🔒 a secret value changed (hidden)' : ''}\n`;
}

export function renderClusterSection(input: SectionInput): string {
  const { cluster } = input;
  const counts = countActions(cluster);
  const open = sectionOpen(cluster) ? ' open' : '';
  const counted = cluster.status === 'skipped' ? '' : ` · ${describeCounts(counts)}`;
  const headline = `<b>${escapeHtml(cluster.name)}</b> · ${escapeHtml(cluster.group)} · ${statusLabel(cluster)}${counted}`;
  const room = objectListRoom(input.detail === 'objects' ? (input.allocation.get(objectListId(input.clusterIndex)) ?? 0) : undefined);
  let body = '';
  if (cluster.error) body += renderErrorBlock(cluster.error, { cap: ERROR_CAP, measure: input.measure, cutNote: () => '✂️ _Error message cut; the job summary holds it whole._' });
  if (cluster.status === 'skipped') body += 'Not reached: the rollout stopped at an earlier failure.\n\n';
  for (const [instanceIndex, instance] of cluster.instances.entries()) body += renderInstance(input, instance, instanceIndex, room);
  if (cluster.instances.length === 0 && cluster.status !== 'skipped' && !cluster.error) body += 'No instances.\n\n';
  if (room.omitted() > 0) input.onObjectsOmitted(room.omitted());
  return `<details${open}>\n<summary>${headline}</summary>\n\n${body}</details>\n\n`;
}


function renderInstance(input: SectionInput, instance: InstanceChanges, instanceIndex: number, room: ObjectListRoom): string {
  const { module } = instance;
  const unchanged = instance.changes.filter((change) => change.action === 'unchanged').length;
  const header =
    `**Instance ${code(instance.name)}** in ${code(instance.namespace)} · module ${code(module.url)} ${code(module.version)}` +
    (module.digest ? ` ${code(shortDigest(module.digest))}` : '') +
    (unchanged > 0 ? ` · ${unchanged} unchanged` : '') +
    (instance.removed ? ` · 🗑️ ${removedInstanceNote(instance, input.mode)}` : '') +
    '\n\n';
  let objects = '';
  if (input.detail === 'objects') {
    const omittedBefore = room.omitted();
    instance.changes.forEach((change, objectIndex) => {
      if (!listedInComment(change)) return;
      const line = compactObjectLine(change, input.secretChanges.has(changeId(input.clusterIndex, instanceIndex, objectIndex)), input.measure);
      if (room.take(input.measure(line))) objects += line;
    });
    const omitted = room.omitted() - omittedBefore;
    if (objects) objects += '\n';
    if (omitted > 0) objects += `_${omitted} more changed ${omitted === 1 ? 'object' : 'objects'} not listed for lack of room._\n\n`;
    return header + objects;
  }
  instance.changes.forEach((change, objectIndex) => {
    if (!listedInComment(change)) return;
    objects += renderObject(input, change, changeId(input.clusterIndex, instanceIndex, objectIndex));
  });
  return header + objects;
}

function renderObject(input: SectionInput, change: ObjectChange, id: string): string {
  const secret = input.secretChanges.has(id) ? ' · 🔒 a secret value changed (hidden)' : '';
  const title = `${code(objectRef(change))} ${actionLabel(change)}`;
  // A failed object's error is shown open, under its name; its field changes (if any) follow.
  const failure = failedObjectBlock(change, input.measure, OBJECT_ERROR_CAP);
  const sharing = input.sharing.get(id);
  if (!sharing) return `- ${title}${secret}\n\n${failure}`;
  if (sharing.kind === 'repeat') return `- ${title}${secret} · same change as on ${code(sharing.shownOn)} (shown there)\n\n${failure}`;
  const also = sharing.alsoOn.length > 0 ? ` · also on ${sharing.alsoOn.map(code).join(', ')}` : '';
  const block = renderDiffBlock(change.diff, input.allocation.get(id), input.measure, input.moreHint);
  input.onDiff(block.outcome);
  if (block.outcome === 'hidden') return `- ${title}${also}${secret} · ${block.markdown}\n\n${failure}`;
  if (failure) return `- ${title}${also}${secret}\n\n${failure}<details>\n<summary>field changes</summary>\n\n${block.markdown}\n</details>\n\n`;
  return `<details>\n<summary>${title}${also}${secret}</summary>\n\n${block.markdown}\n</details>\n\n`;
}
