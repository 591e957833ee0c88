// The table of clusters, in runtime order, that opens every report. It is always complete.

import type { ClusterChanges } from '../changeset.js';
import { countActions } from './cluster-counts.js';
import { statusLabel } from './cluster-status.js';
import { formatDuration } from '../duration.js';
import { code, escapeInline, tableHeader, tableRow } from './markdown.js';

export interface StatusTableOptions {
  /** Add the time spent per cluster and the unchanged count (job summary). */
  withDuration?: boolean;
}

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
  for (const cluster of clusters) {
    const counts = countActions(cluster);
    const cells = [
      code(cluster.name),
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
