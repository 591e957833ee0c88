// The flags of the commands that reach clusters (diff, apply, status, delete), named as in
// `timoni bundle apply`, and the fleet run they describe.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CueEngine } from '../cue/index.js';
import { defaultFleetOptions, type FleetRun } from '../fleet/fleet-run.js';
import type { FleetLog } from '../fleet/fleet-log.js';
import { parseDuration } from '../duration.js';
import { loadKubeconfig, SecretRegistry } from '../kube/index.js';
import { ModuleResolver } from '../module/module-resolver.js';
import { UsageError, type FlagSpec, type ParsedArguments } from './arguments.js';
import { bundleFlags, readBundleInputs } from './bundle-options.js';
import type { CommandIO } from './command-io.js';

export const fleetFlags: FlagSpec[] = [
  ...bundleFlags,
  { name: 'wait', kind: 'boolean', default: 'true', description: 'Wait for applied objects to become ready (--wait=false to skip)' },
  { name: 'timeout', kind: 'string', default: '5m', description: "Time limit of each cluster's apply, all its instances' readiness waits together" },
  { name: 'prune', kind: 'boolean', default: 'true', description: 'Delete objects that the bundle no longer builds' },
  { name: 'prune-removed-instances', kind: 'boolean', default: 'true', description: "With --prune, delete the bundle's instances that it no longer lists (--prune-removed-instances=false keeps them)" },
  { name: 'force', kind: 'boolean', description: 'Recreate objects whose immutable fields change' },
  { name: 'overwrite-ownership', kind: 'boolean', description: 'Take over instances owned by another bundle' },
  { name: 'creds', kind: 'string', default: '', description: 'Registry credentials: user:password, or a token' },
  { name: 'concurrency', kind: 'string', default: '4', description: 'Clusters diffed at once' },
  { name: 'deadline', kind: 'string', default: '', description: 'Time limit of the whole run, e.g. 30m (none by default)' },
];

/** The flags beyond the bundle flags that each fleet command reads; `--help` lists only these. */
const commandFlags: Record<'diff' | 'apply' | 'status' | 'delete', string[] | 'all'> = {
  apply: 'all',
  diff: ['prune', 'prune-removed-instances', 'force', 'overwrite-ownership', 'creds', 'concurrency', 'deadline'],
  status: ['deadline'],
  delete: ['wait', 'timeout', 'deadline'],
};

export function fleetFlagsFor(command: keyof typeof commandFlags): FlagSpec[] {
  const own = commandFlags[command];
  if (own === 'all') return fleetFlags;
  return fleetFlags.filter((flag) => bundleFlags.includes(flag) || own.includes(flag.name));
}

/** The kubeconfig files: --kubeconfig, else the KUBECONFIG list, else ~/.kube/config. */
export function kubeconfigPaths(args: ParsedArguments, io: CommandIO): string[] {
  const given = args.strings.get('kubeconfig');
  return given ? [resolve(io.cwd, given)] : (io.env.KUBECONFIG ?? join(homedir(), '.kube', 'config')).split(':').filter(Boolean);
}

export function kubeconfigTexts(args: ParsedArguments, io: CommandIO): Array<{ text: string; path: string }> {
  return kubeconfigPaths(args, io).map((path) => {
    try {
      return { text: readFileSync(path, 'utf8'), path };
    } catch {
      throw new UsageError(`cannot read kubeconfig ${path}`);
    }
  });
}

export function fleetRunFromArgs(engine: CueEngine, args: ParsedArguments, io: CommandIO, log: FleetLog): FleetRun {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  const secrets = new SecretRegistry();
  const timeoutText = args.strings.get('timeout') ?? '5m';
  const timeoutMs = parseDuration(timeoutText);
  if (timeoutMs === undefined) throw new UsageError(`--timeout must be a duration such as 5m or 90s, not "${timeoutText}"`);
  const concurrency = Number(args.strings.get('concurrency') ?? '4');
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError('--concurrency must be a whole number, 1 or more');
  const creds = args.strings.get('creds');
  const deadlineText = args.strings.get('deadline') ?? '';
  const deadlineMs = deadlineText === '' ? undefined : parseDuration(deadlineText);
  if (deadlineMs === undefined && deadlineText !== '') throw new UsageError(`--deadline must be a duration such as 30m or 90s, not "${deadlineText}"`);
  const signal = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
  return {
    engine,
    evaluation: { bundleFiles: inputs.bundleFiles, moduleFiles: inputs.moduleFiles, runtime: inputs.runtime, ...(inputs.environment ? { environment: inputs.environment } : {}) },
    selector: inputs.selector,
    kubeconfig: loadKubeconfig(kubeconfigTexts(args, io), secrets),
    secrets,
    resolver: new ModuleResolver(engine, io.cwd, { ...(creds ? { credentials: creds } : {}), secrets: (value: string) => secrets.register(value), ...(signal ? { signal } : {}) }, inputs.boundary),
    options: {
      ...defaultFleetOptions,
      wait: args.booleans.get('wait') ?? true,
      timeoutMs,
      prune: args.booleans.get('prune') ?? true,
      pruneRemovedInstances: args.booleans.get('prune-removed-instances') ?? true,
      force: args.booleans.get('force') ?? false,
      overwriteOwnership: args.booleans.get('overwrite-ownership') ?? false,
      concurrency,
    },
    log,
    ...(deadlineMs !== undefined ? { deadlineAt: Date.now() + deadlineMs } : {}),
  };
}
