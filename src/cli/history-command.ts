// `timoni-fleet history`: the revisions timoni-fleet applied of each instance the bundle lists,
// per cluster x instance, newest first, as `helm history` lists a release's
// (../fleet/instance-history.ts). Each cluster is connected and identity-checked as `status`
// does it, and only read. Values are never printed, in either form: they may hold secrets.
//
// Exit codes: 0 read, 2 failure (a bad flag, a bundle error, a cluster not reached or refused).
import type { CueEngine } from '../cue/index.js';
import { selectHeadClusters } from '../fleet/membership.js';
import { fleetHistory, type InstanceHistoryView, type RevisionView } from '../fleet/instance-history.js';
import type { ClusterResult } from '../fleet/status-and-delete.js';
import type { ParsedArguments } from './arguments.js';
import { shortDigest } from './fleet-state-text.js';
import { CliLog, type CommandIO } from './io.js';
import { fleetRunFromArgs, optionValue } from './options.js';
import { runOptions } from '../fleet/run-options.js';

const HEADINGS = ['CLUSTER', 'INSTANCE', 'REVISION', 'APPLIED', 'MODULE', 'DIGEST', 'COMMIT', 'STATUS', 'DESCRIPTION'];

/** `current` for the live revision, `superseded` for the others (as `helm history` says). */
function statusText(revision: RevisionView): string {
  return revision.current ? 'current' : 'superseded';
}

/** What the revision was: an apply, or a rollback to an older one (as `helm history`'s description). */
function descriptionText(revision: RevisionView): string {
  return revision.rollbackTo !== undefined ? `rollback to ${revision.rollbackTo}` : 'apply';
}

function rows(results: ReadonlyArray<ClusterResult<InstanceHistoryView[]>>): string[][] {
  const table: string[][] = [];
  for (const { cluster, result } of results) {
    for (const instance of result ?? []) {
      const name = `${instance.namespace}/${instance.name}`;
      if (instance.revisions.length === 0) {
        table.push([
          cluster.name,
          name,
          '-',
          '-',
          '-',
          '-',
          '-',
          instance.installed ? 'no history' : 'not installed',
          '-',
        ]);
        continue;
      }
      for (const revision of instance.revisions)
        table.push([
          cluster.name,
          name,
          String(revision.revision),
          revision.appliedAt,
          `${revision.module.url}:${revision.module.version}`,
          shortDigest(revision.module.digest),
          revision.commit ? revision.commit.slice(0, 7) : '-',
          statusText(revision),
          descriptionText(revision),
        ]);
    }
  }
  return table;
}

/** The table, in kubectl's style (padded columns, the last one not). */
export function historyTable(results: ReadonlyArray<ClusterResult<InstanceHistoryView[]>>): string {
  const all = [HEADINGS, ...rows(results)];
  const widths = HEADINGS.map((_, column) => Math.max(...all.map((r) => (r[column] ?? '').length)));
  return `${all
    .map((r) =>
      r
        .map((cell, column) => (column === r.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** `-o json`: per cluster, its instances and their revisions (no values, no record). */
export function historyJson(results: ReadonlyArray<ClusterResult<InstanceHistoryView[]>>): string {
  const clusters = results.map(({ cluster, bundle, result, error }) => ({
    name: cluster.name,
    group: cluster.group,
    bundle,
    instances: result ?? [],
    error: error ?? null,
  }));
  return `${JSON.stringify({ clusters }, null, 2)}\n`;
}

export async function runHistory(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const log = new CliLog(io);
  const run = fleetRunFromArgs(engine, args, io, log);
  log.order(selectHeadClusters(run).map((cluster) => cluster.name));
  const only = optionValue(args, runOptions.rollbackInstance);
  const results = await fleetHistory(run, only);
  log.flush();
  if (args.strings.get('output') === 'json') io.stdout(historyJson(results));
  else io.stdout(historyTable(results));
  // A cluster refused on its identity (or not reached) was logged by the fleet layer: once.
  for (const { cluster, error } of results)
    if (error && !log.hasPrinted(error)) io.stderr(`✗ cluster ${cluster.name}: ${error}\n`);
  if (only && results.every((r) => r.error || (r.result ?? []).length === 0)) {
    io.stderr(`✗ --instance ${only}: the bundle lists no such instance on the selected clusters\n`);
    return 2;
  }
  return results.some((r) => r.error) ? 2 : 0;
}
