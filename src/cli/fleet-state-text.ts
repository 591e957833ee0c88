// `timoni-fleet status -o text`: the state of every cluster x instance as a table in
// kubectl's style (columns padded with spaces, upper-case headings), one row per instance,
// and a line counting the states.
import { INSTANCE_STATES, type FleetState, type InstanceStateRow } from '../fleet/instance-state.js';

/** `sha256:0123456789ab`: the algorithm and the first 12 hex digits; other forms as they are. */
export function shortDigest(digest: string): string {
  const match = /^([a-z0-9]+):([0-9a-f]{12})[0-9a-f]*$/.exec(digest);
  return match ? `${match[1]}:${match[2]}` : digest;
}

/** `2/3`, or `-` when nothing is stored. */
export function readinessText(row: InstanceStateRow): string {
  return row.readiness ? `${row.readiness.ready}/${row.readiness.total}` : '-';
}

const HEADINGS = [
  'CLUSTER',
  'GROUP',
  'INSTANCE',
  'NAMESPACE',
  'STATE',
  'MODULE',
  'DIGEST',
  'LAST APPLIED',
  'READY',
  'REASON',
];

function cells(row: InstanceStateRow): string[] {
  const module = row.module ?? row.desired;
  return [
    row.cluster,
    row.group,
    row.instance || '-',
    row.namespace || '-',
    row.state,
    module?.version || '-',
    module?.digest ? shortDigest(module.digest) : '-',
    row.lastApplied ?? '-',
    readinessText(row),
    // One line per row: a reason never breaks the table.
    row.reason.replace(/\s*\n\s*/g, ' ') || '-',
  ];
}

/** The table; the last column (the reason) is not padded. */
export function fleetStateTable(state: FleetState): string {
  const rows = [HEADINGS, ...state.instances.map(cells)];
  const widths = HEADINGS.map((_, column) => Math.max(...rows.map((r) => (r[column] ?? '').length)));
  return (
    rows
      .map((r) =>
        r
          .map((cell, column) => (column === r.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
          .join('   ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** `2 deployed, 1 stale, 1 not installed, 0 failed, 1 unknown` (and `, 1 orphaned` when there are). */
export function stateCounts(state: FleetState): string {
  return INSTANCE_STATES.filter((name) => name !== 'orphaned' || (state.counts[name] ?? 0) > 0)
    .map((name) => `${state.counts[name] ?? 0} ${name}`)
    .join(', ');
}
