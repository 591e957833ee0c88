// What each command does, once its flags are read (options.ts):
// - `vet` validates the bundle for every selected cluster of the runtime, as `timoni bundle
//   vet` does, and optionally prints the computed value per cluster;
// - `build` builds every instance from its module for each selected cluster and prints the
//   objects as multi-document YAML (with `# Cluster:` and `# Instance:` comments, as
//   `timoni bundle build` prints instances; each object printed by the CUE engine with
//   sigs.k8s.io/yaml as Timoni prints it, CueEngine.objectsYaml) or as JSON;
//   `--mask-secrets` masks Secret data as Timoni v0.33;
// - `diff|apply|status|delete` reach the clusters through the fleet layer, which checks each
//   cluster's identity before anything is read, written or deleted there (a context that
//   reaches a cluster recorded under another runtime name fails that cluster). diff exits 0 in
//   sync, 1 on drift, 2 on failure (as `kubectl diff`; Timoni's `--diff` exits 0 either way); apply and
//   delete exit 2 when a cluster failed, was refused or was not reached, status 1 when an
//   instance is not deployed and 2 when a cluster could not be read (a 1 never hides a
//   failure, so that CI may read it as "drift" or "not deployed"); `-o json` prints the ChangeSet (diff, apply) or the
//   per-cluster results (delete). `status` alone prints Timoni's `bundle status` lines;
//   `status -o text|json` the state of each cluster x instance (../fleet/fleet-state.ts). Progress goes to stderr through CliLog: diff's clusters in runtime
//   order, each error once; delete's lines carry Timoni's `b:<bundle> > c:<cluster>` prefix.
// vet and build stay off clusters except to read runtime value queries (query-access.ts);
// values read from Secrets are redacted in what they print.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Runtime } from '../bundle/index.js';
import { CANCELLED_EXIT_CODE } from '../cancellation.js';
import {
  hasChanges,
  isLeaving,
  renamedFrom,
  type ChangeSet,
  type ClusterChanges,
  type ObjectChange,
} from '../changeset.js';
import type { CueEngine } from '../cue/index.js';
import { logPrefix } from '../fleet/outcome.js';
import { planFleet } from '../fleet/plan.js';
import { selectHeadClusters } from '../fleet/membership.js';
import { rollOutFleet } from '../fleet/rollout.js';
import type { FleetRun, RevisionTarget } from '../fleet/fleet-run.js';
import { runOptions } from '../fleet/run-options.js';
import { fleetDelete, fleetStatus } from '../fleet/status-and-delete.js';
import { fleetState } from '../fleet/fleet-state.js';
import type { FleetState } from '../fleet/instance-state.js';
import { maskSecret, sortForApply } from '../kube/ssa/index.js';
import { formatRef } from '../kube/object.js';
import { kubeVersionWithoutCluster, InstanceBuilds, type ObjectSet } from '../module/build.js';
import { ModuleResolver } from '../module/source.js';
import { UsageError, type ParsedArguments } from './arguments.js';
import { fleetStateTable, stateCounts } from './fleet-state-text.js';
import { CliLog, type CommandIO } from './io.js';
import { fleetRunFromArgs, optionValue, readBundleInputs } from './options.js';
import { evaluateWithQueries, redactStrings } from './query-access.js';

// ---- vet

export async function runVet(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  const { results, access } = await evaluateWithQueries(engine, inputs, args, io);
  const printValue = args.booleans.get('print-value') === true;

  if (inputs.output === 'json') {
    const clusters = results.map((result) => ({
      name: result.cluster.name,
      group: result.cluster.group,
      bundle: redactStrings(result.value, access.redact),
    }));
    io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
    return 0;
  }
  for (const result of results) {
    if (printValue) {
      const prefix = inputs.runtime.isDefault ? '' : `${JSON.stringify(result.cluster.name)}: `;
      io.stdout(`${prefix}bundle: ${access.redact(result.cueText)}\n`);
      continue;
    }
    for (const instance of result.bundle.instances) {
      io.stderr(`${logPrefix(result.bundle.name, result.cluster.name, instance.name)} > instance is valid\n`);
    }
  }
  if (!printValue && results[0]) io.stderr(`${logPrefix(results[0].bundle.name)} > bundle is valid\n`);
  return 0;
}

// ---- build

interface BuiltCluster {
  name: string;
  group: string;
  instances: Array<{
    name: string;
    namespace: string;
    module: { url: string; version: string; digest: string; name: string };
    sets: ObjectSet[];
  }>;
}

function renderYaml(engine: CueEngine, clusters: BuiltCluster[], isDefault: boolean): string {
  const parts: string[] = [];
  for (const cluster of clusters) {
    for (const instance of cluster.instances) {
      const header = [...(isDefault ? [] : [`# Cluster: ${cluster.name}`]), `# Instance: ${instance.name}`].join('\n');
      const objects = sortForApply(instance.sets.flatMap((set) => set.objects));
      let printed: string;
      try {
        printed = engine.objectsYaml(objects);
      } catch (error) {
        throw new Error(`cluster ${cluster.name}, instance ${instance.name}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      parts.push(`---\n${header}\n---\n${printed}`);
    }
  }
  return parts.join('\n');
}

/** Each object as printed: registered secret values redacted, Secret data masked when asked. */
function printedSets(sets: ObjectSet[], redact: (text: string) => string, maskSecrets: boolean): ObjectSet[] {
  return sets.map((set) => ({
    ...set,
    objects: set.objects.map((object) => {
      const redacted = redactStrings(object, redact) as typeof object;
      return maskSecrets ? maskSecret(redacted) : redacted;
    }),
  }));
}

export async function runBuild(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  const output = args.strings.get('output') ?? 'yaml';
  const maskSecrets = args.booleans.get('mask-secrets') === true;
  const { results, access } = await evaluateWithQueries(engine, inputs, args, io);
  const creds = optionValue(args, runOptions.registryCreds);
  const resolver = new ModuleResolver(engine, io.cwd, creds ? { credentials: creds } : {}, inputs.boundary);
  const kubeVersion = kubeVersionWithoutCluster(io.env);
  const builds = new InstanceBuilds(engine);

  const clusters: BuiltCluster[] = [];
  for (const result of results) {
    const instances: BuiltCluster['instances'] = [];
    for (const instance of result.bundle.instances) {
      const module = await resolver.resolve(instance.module);
      const built = await builds.build(module, {
        name: instance.name,
        namespace: instance.namespace,
        values: instance.valuesCue,
        kubeVersion,
        ...(instance.locateValues ? { locateValues: instance.locateValues } : {}),
      });
      instances.push({
        name: instance.name,
        namespace: instance.namespace,
        module: { url: module.url, version: module.version, digest: module.digest, name: module.name },
        sets: printedSets(built.sets, access.redact, maskSecrets),
      });
    }
    clusters.push({ name: result.cluster.name, group: result.cluster.group, instances });
  }

  if (output === 'json') io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
  else io.stdout(renderYaml(engine, clusters, inputs.runtime.isDefault));
  return 0;
}

// ---- diff, apply, status, delete

/** A fleet run whose log prints clusters' groups in runtime order. */
function orderedRun(engine: CueEngine, args: ParsedArguments, io: CommandIO): { run: FleetRun; log: CliLog } {
  const log = new CliLog(io);
  const run = fleetRunFromArgs(engine, args, io, log);
  log.order(selectHeadClusters(run).map((cluster) => cluster.name));
  return { run, log };
}

/** A failed cluster's error, unless the fleet layer has logged it already. */
function reportClusterError(cluster: ClusterChanges, io: CommandIO, log: CliLog): void {
  if (cluster.error && !log.hasPrinted(cluster.error.message))
    io.stderr(`✗ cluster ${cluster.name}: ${cluster.error.step}: ${cluster.error.message}\n`);
}

const lines = (count: number) => (count === 1 ? '1 line' : `${count} lines`);

/**
 * The text `diff` prints for one cluster: each object that changes, under a
 * `# <cluster> · <instance> · <object> <action>` line, with its diff, or with a line saying
 * that its diff was too large to compute.
 */
export function clusterDiffText(cluster: ClusterChanges): string {
  let text = '';
  for (const instance of cluster.instances) {
    for (const change of instance.changes) {
      if (change.action === 'unchanged') continue;
      const ref = objectRef(change);
      if (change.diff) text += `# ${cluster.name} · ${instance.name} · ${ref} ${change.action}\n${change.diff}\n`;
      else if (change.diffTooLarge) {
        const { liveLines, desiredLines } = change.diffTooLarge;
        text += `# ${cluster.name} · ${instance.name} · ${ref} ${change.action}\n${ref} diff too large to compute (${lines(liveLines)} live, ${lines(desiredLines)} desired)\n`;
      }
    }
  }
  return text;
}

function objectRef(change: Pick<ObjectChange, 'kind' | 'namespace' | 'name'>): string {
  return `${change.kind}/${change.namespace ? `${change.namespace}/` : ''}${change.name}`;
}

/**
 * The line(s) `diff` and `apply` print for a cluster whose fleet membership changes: a
 * leaving cluster with what is (or would be) deleted, or why the bundle stays installed
 * there and the commands that remove it by hand; a renamed cluster with its base name.
 */
export function membershipText(cluster: ClusterChanges, changeSet: Pick<ChangeSet, 'mode' | 'membership'>): string {
  const from = changeSet.membership?.from ? ` (listed in ${changeSet.membership.from})` : '';
  const renamed = renamedFrom(cluster);
  if (renamed !== undefined)
    return `# ${cluster.name} · renamed from ${renamed}${from}: the same cluster, nothing deleted\n`;
  if (!isLeaving(cluster)) return '';
  const deleted = cluster.instances.reduce(
    (sum, instance) => sum + instance.changes.filter((change) => change.action === 'deleted').length,
    0,
  );
  const instances = cluster.instances.map((instance) => instance.name).join(', ');
  let text = `# ${cluster.name} · leaves the fleet${from}`;
  if (cluster.bundleKept) {
    text += `: ${cluster.bundleKept.reason}${instances ? ` (instances: ${instances})` : ''}\n`;
    for (const command of cluster.bundleKept.commands) text += `#   to remove it by hand: ${command}\n`;
    return text;
  }
  if (cluster.status === 'failed' || cluster.status === 'skipped')
    return `${text}: ${cluster.status === 'skipped' ? 'not reached, the bundle stays installed there' : 'failed'}\n`;
  const verb = changeSet.mode === 'apply' ? 'deleted' : 'would be deleted';
  if (cluster.instances.length === 0) return `${text}: no instance of the bundle found on it\n`;
  return `${text}: instance(s) ${instances}, ${deleted === 1 ? '1 object' : `${deleted} objects`} ${verb}\n`;
}

function printChanges(changeSet: ChangeSet, io: CommandIO, log: CliLog): void {
  if (changeSet.membership?.warning) io.stderr(`fleet membership not compared: ${changeSet.membership.warning}\n`);
  for (const cluster of changeSet.clusters) {
    const membership = membershipText(cluster, changeSet);
    if (membership) io.stdout(membership);
    const text = clusterDiffText(cluster);
    if (text) io.stdout(text);
    reportClusterError(cluster, io, log);
  }
}

/** `--changes-file PATH`: the ChangeSet JSON, as `-o json` prints it, written to PATH (relative to the current directory). */
function writeChangesFile(changeSet: ChangeSet, args: ParsedArguments, io: CommandIO): void {
  const path = optionValue(args, runOptions.changesFile);
  if (path === '') return;
  const target = resolve(io.cwd, path);
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(changeSet, null, 2)}\n`);
  } catch (error) {
    throw new Error(
      `--changes-file ${path}: cannot write the ChangeSet: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

export async function runDiff(
  engine: CueEngine,
  args: ParsedArguments,
  io: CommandIO,
  rollbackTo?: RevisionTarget,
): Promise<number> {
  const { run, log } = orderedRun(engine, args, io);
  if (rollbackTo) run.rollbackTo = rollbackTo;
  const changeSet = await planFleet(run);
  log.flush();
  writeChangesFile(changeSet, args, io);
  if (args.strings.get('output') === 'json') io.stdout(`${JSON.stringify(changeSet, null, 2)}\n`);
  else printChanges(changeSet, io, log);
  if (changeSet.clusters.some((c) => c.status === 'failed')) return 2;
  return hasChanges(changeSet) ? 1 : 0;
}

export async function runApply(
  engine: CueEngine,
  args: ParsedArguments,
  io: CommandIO,
  rollbackTo?: RevisionTarget,
): Promise<number> {
  const { run, log } = orderedRun(engine, args, io);
  if (rollbackTo) run.rollbackTo = rollbackTo;
  // SIGINT / SIGTERM: the rollout stops cleanly (fleet/fleet-run.ts), is reported, and the command exits 130.
  if (io.cancellation) run.cancel = io.cancellation.signal;
  const changeSet = io.cancellation
    ? await io.cancellation.whileGraceful(() => rollOutFleet(run))
    : await rollOutFleet(run);
  log.flush();
  writeChangesFile(changeSet, args, io);
  if (args.strings.get('output') === 'json') io.stdout(`${JSON.stringify(changeSet, null, 2)}\n`);
  else for (const cluster of changeSet.clusters) io.stdout(membershipText(cluster, changeSet));
  for (const cluster of changeSet.clusters) reportClusterError(cluster, io, log);
  const skipped = changeSet.clusters.filter((c) => c.status === 'skipped').map((c) => c.name);
  if (skipped.length > 0 && !log.hasPrinted(`not reached: ${skipped.join(', ')}`))
    io.stderr(`not reached: ${skipped.join(', ')}\n`);
  if (io.cancellation?.cancelled) return CANCELLED_EXIT_CODE;
  return changeSet.clusters.some((c) => c.status === 'failed' || c.status === 'skipped') ? 2 : 0;
}

/**
 * `rollback`: each instance put back to a revision of its history (../fleet/revision-rollback.ts),
 * cluster by cluster in runtime order as `apply` goes (its exit codes), or with `--dry-run`
 * diffed as `diff` does (its exit codes).
 */
export function runRollback(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const revision = optionValue(args, runOptions.revision);
  const target: RevisionTarget = {
    instance: optionValue(args, runOptions.rollbackInstance),
    ...(revision !== undefined ? { revision } : {}),
  };
  return args.booleans.get('dry-run') === true ? runDiff(engine, args, io, target) : runApply(engine, args, io, target);
}

/**
 * `status -o text|json`: the state of every cluster x instance (fleet-state.ts), as a table
 * or as JSON. Exits 0 when every instance is deployed, 1 when an instance is not (not
 * installed, stale, failed), 2 when it cannot run or a state is unknown (a cluster not
 * reached or refused, an instance that could not be read).
 */
async function runFleetState(engine: CueEngine, args: ParsedArguments, io: CommandIO, output: string): Promise<number> {
  let state: FleetState;
  try {
    const { run, log } = orderedRun(engine, args, io);
    state = await fleetState(run);
    log.flush();
  } catch (error) {
    io.stderr(`✗ ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (output === 'json') io.stdout(`${JSON.stringify(state, null, 2)}\n`);
  else {
    io.stdout(fleetStateTable(state));
    io.stderr(`${stateCounts(state)}\n`);
  }
  if (state.instances.some((row) => row.state === 'unknown')) return 2;
  return state.instances.every((row) => row.state === 'deployed') ? 0 : 1;
}

export async function runStatus(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  // Without -o: Timoni's `bundle status` lines, as Timoni prints them.
  const output = args.strings.get('output') ?? '';
  if (output !== '') return runFleetState(engine, args, io, output);
  const results = await fleetStatus(fleetRunFromArgs(engine, args, io, new CliLog(io)));
  // A refused or unreachable cluster's error is on stderr already (the fleet layer logs it), and here in Timoni's form.
  for (const { cluster, bundle, result, error } of results) {
    // A cluster failed before the bundle's name was known has no `b:` part (not an empty one).
    const head = `${bundle ? `b:${bundle} > ` : ''}c:${cluster.name}`;
    if (error) {
      io.stdout(`${head} > ✗ ${error}\n`);
      continue;
    }
    if (!result || result.length === 0) io.stdout(`${head} > ✗ no instances found in bundle\n`);
    for (const instance of result ?? []) {
      const prefix = `${head} > i:${instance.name}`;
      io.stdout(
        `${prefix} > last applied ${instance.lastApplied}\n${prefix} > module ${instance.module.url}:${instance.module.version}\n${prefix} > digest ${instance.module.digest}\n`,
      );
      for (const image of instance.images) io.stdout(`${prefix} > container image ${image}\n`);
      for (const object of instance.objects)
        io.stdout(`${prefix} > ${formatRef(object.object)} ${object.status} ${object.message}\n`);
    }
  }
  // A cluster not read is a failure (2); one without the bundle's instances (Timoni's error) is not deployed (1).
  if (results.some((r) => r.error)) return 2;
  return results.some((r) => !r.result || r.result.length === 0) ? 1 : 0;
}

/**
 * `delete --cluster NAME`: the bundle removed from that one cluster. A cluster of the
 * runtime (-r) is selected by name; one no longer in it (it left the fleet) is taken from
 * --base-runtime, else reached through --kube-context under that name. Its identity is
 * checked as any delete checks it: a context that reaches a cluster recorded under another
 * runtime name is refused.
 */
function oneClusterRun(run: FleetRun, name: string, kubeContext: string): FleetRun {
  const byName = (runtime: Runtime) =>
    runtime.clusters.find((cluster) => cluster.name.toLowerCase() === name.toLowerCase());
  const selector = { cluster: name, group: '*' };
  if (byName(run.evaluation.runtime)) return { ...run, selector };
  const base = run.baseRuntime ? byName(run.baseRuntime.runtime) : undefined;
  if (base && run.baseRuntime)
    return { ...run, selector, evaluation: { ...run.evaluation, runtime: run.baseRuntime.runtime } };
  if (!kubeContext) {
    const known = run.evaluation.runtime.clusters.map((cluster) => cluster.name).join(', ');
    throw new UsageError(
      `--cluster ${name}: no such cluster in the runtime (${known || 'none'})${run.baseRuntime ? ' nor in --base-runtime' : ''}; for a cluster that left the runtime, give --base-runtime or --kube-context`,
    );
  }
  const runtime: Runtime = {
    ...run.evaluation.runtime,
    isDefault: false,
    clusters: [{ name, group: 'default', kubeContext }],
  };
  return { ...run, selector, evaluation: { ...run.evaluation, runtime } };
}

export async function runDelete(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const log = new CliLog(io);
  const run = fleetRunFromArgs(engine, args, io, log);
  const only = args.strings.get('cluster') ?? '';
  const results = await fleetDelete(only ? oneClusterRun(run, only, args.strings.get('kube-context') ?? '') : run);
  if (args.strings.get('output') === 'json')
    io.stdout(
      `${JSON.stringify({ clusters: results.map((r) => ({ name: r.cluster.name, bundle: r.bundle, instances: r.result ?? [], error: r.error ?? null })) }, null, 2)}\n`,
    );
  // A cluster refused on its identity (or not reached) was logged by the fleet layer, as diff logs it: once.
  for (const { cluster, error } of results)
    if (error && !log.hasPrinted(error)) io.stderr(`✗ cluster ${cluster.name}: ${error}\n`);
  return results.some((r) => r.error) ? 2 : 0;
}
