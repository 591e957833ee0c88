// `timoni-fleet diff|apply|status|delete`: the fleet commands. diff exits 0 in sync, 1 on
// drift, 2 on failure (as `timoni bundle apply --dry-run --diff`); apply exits 1 when a
// cluster failed; `-o json` prints the ChangeSet (diff, apply) or the per-cluster results.
// Progress goes to stderr through CliLog: diff's clusters in runtime order, each error once;
// delete's lines carry Timoni's `b:<bundle> > c:<cluster>` prefix.
import { selectClusters } from '../bundle/index.js';
import type { CueEngine } from '../cue/index.js';
import { hasChanges, type ChangeSet } from '../changeset.js';
import { fleetDelete, fleetStatus } from '../fleet/fleet-status.js';
import { planFleet } from '../fleet/plan.js';
import { rollOutFleet } from '../fleet/rollout.js';
import { formatRef } from '../kube/object.js';
import type { FleetRun } from '../fleet/fleet-run.js';
import type { ParsedArguments } from './arguments.js';
import { CliLog } from './cli-log.js';
import type { CommandIO } from './command-io.js';
import { fleetRunFromArgs } from './fleet-options.js';

/** A fleet run whose log prints clusters' groups in runtime order. */
function orderedRun(engine: CueEngine, args: ParsedArguments, io: CommandIO): { run: FleetRun; log: CliLog } {
  const log = new CliLog(io);
  const run = fleetRunFromArgs(engine, args, io, log);
  log.order(selectClusters(run.evaluation.runtime, run.selector).map((cluster) => cluster.name));
  return { run, log };
}

/** A failed cluster's error, unless the fleet layer has logged it already. */
function reportClusterError(cluster: ChangeSet['clusters'][number], io: CommandIO, log: CliLog): void {
  if (cluster.error && !log.hasPrinted(cluster.error.message)) io.stderr(`✗ cluster ${cluster.name}: ${cluster.error.step}: ${cluster.error.message}\n`);
}

function printChanges(changeSet: ChangeSet, io: CommandIO, log: CliLog): void {
  for (const cluster of changeSet.clusters) {
    for (const instance of cluster.instances) {
      for (const change of instance.changes) {
        if (change.action === 'unchanged' || !change.diff) continue;
        io.stdout(`# ${cluster.name} · ${instance.name} · ${change.kind}/${change.namespace ? `${change.namespace}/` : ''}${change.name} ${change.action}\n${change.diff}\n`);
      }
    }
    reportClusterError(cluster, io, log);
  }
}

export async function runDiff(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const { run, log } = orderedRun(engine, args, io);
  const changeSet = await planFleet(run);
  log.flush();
  if (args.strings.get('output') === 'json') io.stdout(`${JSON.stringify(changeSet, null, 2)}\n`);
  else printChanges(changeSet, io, log);
  if (changeSet.clusters.some((c) => c.status === 'failed')) return 2;
  return hasChanges(changeSet) ? 1 : 0;
}

export async function runApply(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const { run, log } = orderedRun(engine, args, io);
  const changeSet = await rollOutFleet(run);
  log.flush();
  if (args.strings.get('output') === 'json') io.stdout(`${JSON.stringify(changeSet, null, 2)}\n`);
  for (const cluster of changeSet.clusters) reportClusterError(cluster, io, log);
  const skipped = changeSet.clusters.filter((c) => c.status === 'skipped').map((c) => c.name);
  if (skipped.length > 0 && !log.hasPrinted(`not reached: ${skipped.join(', ')}`)) io.stderr(`not reached: ${skipped.join(', ')}\n`);
  return changeSet.clusters.some((c) => c.status === 'failed') ? 1 : 0;
}

export async function runStatus(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const results = await fleetStatus(fleetRunFromArgs(engine, args, io, new CliLog(io)));
  if (args.strings.get('output') === 'json') {
    io.stdout(`${JSON.stringify({ clusters: results.map((r) => ({ name: r.cluster.name, group: r.cluster.group, bundle: r.bundle, instances: r.result ?? [], error: r.error ?? null })) }, null, 2)}\n`);
  } else {
    for (const { cluster, bundle, result, error } of results) {
      if (error) {
        io.stdout(`b:${bundle} > c:${cluster.name} > ✗ ${error}\n`);
        continue;
      }
      if (!result || result.length === 0) io.stdout(`b:${bundle} > c:${cluster.name} > ✗ no instances found in bundle\n`);
      for (const instance of result ?? []) {
        const prefix = `b:${bundle} > c:${cluster.name} > i:${instance.name}`;
        io.stdout(`${prefix} > last applied ${instance.lastApplied}\n${prefix} > module ${instance.module.url}:${instance.module.version}\n${prefix} > digest ${instance.module.digest}\n`);
        for (const image of instance.images) io.stdout(`${prefix} > container image ${image}\n`);
        for (const object of instance.objects) io.stdout(`${prefix} > ${formatRef(object.object)} ${object.status} ${object.message}\n`);
      }
    }
  }
  // As Timoni's bundle status: a cluster without the bundle's instances is an error.
  return results.some((r) => r.error || !r.result || r.result.length === 0) ? 1 : 0;
}

export async function runDelete(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const results = await fleetDelete(fleetRunFromArgs(engine, args, io, new CliLog(io)));
  if (args.strings.get('output') === 'json') io.stdout(`${JSON.stringify({ clusters: results.map((r) => ({ name: r.cluster.name, bundle: r.bundle, instances: r.result ?? [], error: r.error ?? null })) }, null, 2)}\n`);
  for (const { cluster, error } of results) if (error) io.stderr(`✗ cluster ${cluster.name}: ${error}\n`);
  return results.some((r) => r.error) ? 1 : 0;
}
