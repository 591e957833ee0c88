// One cluster's section of the job summary: status and duration, instances with module
// version and digest (and those removed from the bundle), a table of objects and actions
// (with readiness when present), the error, failed objects with their errors, and the diffs.

import type { SectionInput } from './comment-section.js';
import type { ClusterChanges, InstanceChanges, ObjectChange } from '../changeset.js';
import { countActions, describeCounts } from './cluster-counts.js';
import { statusLabel } from './cluster-status.js';
import { renderDiffBlock } from './diff-block.js';
import { renderErrorBlock } from './error-block.js';
import { actionLabel, failedObjectBlock, removedInstanceNote } from './instance-notes.js';
import { formatDuration } from '../duration.js';
import { code, escapeHtml, escapeInline, tableHeader, tableRow } from './markdown.js';
import { objectListId, objectListRoom } from './object-list.js';
import { objectRef, shortDigest } from './object-ref.js';
import { readinessLabel, readinessOf } from './readiness.js';
import { changeId } from './shared-changes.js';

export type SummarySectionInput = SectionInput;

/** Error messages are capped at this size in the job summary. */
const ERROR_CAP = 65_536;
/** Each failed object's error is capped at this size. */
const OBJECT_ERROR_CAP = 8_192;

export function renderSummarySection(input: SummarySectionInput): string {
  const { cluster } = input;
  const duration = cluster.durationMs === undefined ? '' : ` · ${formatDuration(cluster.durationMs)}`;
  let text = `### ${code(cluster.name)} · ${escapeInline(cluster.group)} · ${statusLabel(cluster)}${duration}\n\n`;
  if (cluster.status === 'skipped') return `${text}Not reached: the rollout stopped at an earlier failure.\n\n`;
  text += `Context ${code(cluster.kubeContext)} · ${describeCounts(countActions(cluster))}\n\n`;
  if (cluster.error) text += renderErrorBlock(cluster.error, { cap: ERROR_CAP, measure: input.measure, cutNote: (kept, total) => `✂️ _Error cut: ${kept} of ${total} lines shown._` });
  if (cluster.instances.length > 0) text += renderInstances(cluster.instances, input);
  text += renderObjects(input);
  text += renderFailedObjects(input);
  text += renderReadinessProblems(cluster);
  if (input.detail === 'diffs') text += renderDiffs(input);
  else if (cluster.instances.some((instance) => instance.changes.some((change) => change.diff !== ''))) text += '_Diffs left out to fit the job summary limit._\n\n';
  return text;
}

/** True when the cluster's object table has a readiness column. */
export function hasReadiness(cluster: ClusterChanges): boolean {
  return cluster.instances.some((instance) => instance.changes.some((change) => readinessOf(change)));
}

/** One row of a cluster's object table. */
export function objectRow(instance: InstanceChanges, change: ObjectChange, secret: boolean, withReadiness: boolean): string {
  const cells = [code(instance.name), code(objectRef(change)), code(change.apiVersion), `${actionLabel(change)}${secret ? ' 🔒 secret changed (hidden)' : ''}`];
  if (withReadiness) {
    const readiness = readinessOf(change);
    cells.push(readiness ? escapeInline(readinessLabel(readiness)) : '–');
  }
  return tableRow(cells);
}


function renderInstances(instances: readonly InstanceChanges[], input: SummarySectionInput): string {
  let table = tableHeader(['Instance', 'Namespace', 'Module', 'Version', 'Digest'], ['l', 'l', 'l', 'l', 'l']);
  for (const instance of instances) {
    table += tableRow([
      code(instance.name) + (instance.removed ? ` 🗑️ ${removedInstanceNote(instance, input.mode)}` : ''),
      code(instance.namespace),
      code(instance.module.url),
      code(instance.module.version),
      instance.module.digest ? code(shortDigest(instance.module.digest)) : '–',
    ]);
  }
  return `${table}\n`;
}

function renderObjects(input: SummarySectionInput): string {
  const { cluster } = input;
  const withReadiness = hasReadiness(cluster);
  const headings = ['Instance', 'Object', 'API version', 'Action'];
  if (withReadiness) headings.push('Readiness');
  const room = objectListRoom(input.detail === 'objects' ? (input.allocation.get(objectListId(input.clusterIndex)) ?? 0) : undefined);
  let rows = '';
  cluster.instances.forEach((instance, instanceIndex) => {
    instance.changes.forEach((change, objectIndex) => {
      const secret = input.secretChanges.has(changeId(input.clusterIndex, instanceIndex, objectIndex));
      const row = objectRow(instance, change, secret, withReadiness);
      if (room.take(input.measure(row))) rows += row;
    });
  });
  if (room.omitted() > 0) input.onObjectsOmitted(room.omitted());
  const omitted = room.omitted() > 0 ? `_${room.omitted()} more objects not listed to fit the job summary limit._\n\n` : '';
  return (rows ? `${tableHeader(headings, headings.map(() => 'l'))}${rows}\n` : '') + omitted;
}

function renderFailedObjects(input: SummarySectionInput): string {
  let text = '';
  for (const instance of input.cluster.instances) {
    for (const change of instance.changes) {
      if (change.action === 'failed') text += `- ${code(instance.name)} ${code(objectRef(change))}\n\n${failedObjectBlock(change, input.measure, OBJECT_ERROR_CAP)}`;
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

function renderDiffs(input: SummarySectionInput): string {
  const { cluster } = input;
  let text = '';
  cluster.instances.forEach((instance, instanceIndex) => {
    instance.changes.forEach((change, objectIndex) => {
      const id = changeId(input.clusterIndex, instanceIndex, objectIndex);
      const sharing = input.sharing.get(id);
      if (!sharing) return;
      const title = `<code>${escapeHtml(instance.name)}</code> <code>${escapeHtml(objectRef(change))}</code> ${change.action}`;
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
      text += `<details>\n<summary>${title}${also}</summary>\n\n${block.markdown}\n</details>\n\n`;
    });
  });
  return text ? `**Diffs**\n\n${text}` : '';
}
