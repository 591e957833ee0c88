// The flags of each command, named as `timoni bundle` names them, and what they read: the
// bundle, runtime and module files every command starts from (bundle flags), the
// kubeconfig, and for the commands that reach clusters (diff, apply, status, delete) the
// fleet run they describe. The options a run shares with the action (their names, defaults,
// choices, checks and error texts) are the contract's (../fleet/run-options.ts): a flag of
// one takes them from it (optionFlag) and is read through it (optionValue); the words of
// --help are the CLI's own.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  loadRuntime,
  readCueModuleFiles,
  readSourceFiles,
  type ClusterSelector,
  type Runtime,
  type SourceFile,
} from '../bundle/index.js';
import { runtimeEnvironment } from '../bundle/runtime-environment.js';
import type { CueEngine } from '../cue/index.js';
import { FileBoundary } from '../file-boundary.js';
import { readFileAtCommit, readFolderAtCommit, resolveCommit } from '../git-revision.js';
import { defaultFleetOptions, type FleetLog, type FleetOptions, type FleetRun } from '../fleet/fleet-run.js';
import {
  runOptions,
  RunOptionError,
  type BooleanOption,
  type ListOption,
  type RunOption,
  type TextOption,
} from '../fleet/run-options.js';
import { loadKubeconfig } from '../kube/connect/index.js';
import { SecretRegistry } from '../secrets.js';
import { ModuleResolver } from '../module/source.js';
import {
  CUE_MODULE_LIMITS,
  cueModuleFilesAtCommit,
  loadRuntimeAtCommit,
  locateCueModule,
  locateRuntimeFiles,
  type RuntimeFileLocation,
} from '../runtime-at-commit.js';
import { UsageError, type FlagSpec, type ParsedArguments } from './arguments.js';
import type { CommandIO } from './io.js';

// ---- The contract's options as flags

/**
 * The flag of a contract option: its name, kind, choices and default are the contract's,
 * its description the CLI's. --help shows a boolean's default only when it is true.
 */
function optionFlag(option: RunOption, description: string, more: Partial<FlagSpec> = {}): FlagSpec {
  const flag: FlagSpec = { name: option.flag, kind: option.kind === 'text' ? 'string' : option.kind, description };
  if (option.kind === 'text') {
    flag.default = option.cli.text;
    if (option.choices) flag.choices = [...option.choices];
  }
  if (option.kind === 'boolean' && option.cli.value) flag.default = 'true';
  return { ...flag, ...more };
}

/** A contract option's wrong value as the CLI says it: `--flag must be ...`, or `--flag: <reason>`. */
function asUsageError<T>(option: RunOption, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof RunOptionError)) throw error;
    throw new UsageError(`--${option.flag}${error.reason.startsWith('must ') ? ' ' : ': '}${error.reason}`);
  }
}

/** A contract option from its flag: absent or empty is the CLI's default. */
export function optionValue(args: ParsedArguments, option: BooleanOption): boolean;
export function optionValue<T, C>(args: ParsedArguments, option: TextOption<T, C>): T | C;
export function optionValue<T>(args: ParsedArguments, option: ListOption<T>): T;
export function optionValue<T, C>(
  args: ParsedArguments,
  option: BooleanOption | TextOption<T, C> | ListOption<T>,
): T | C | boolean {
  if (option.kind === 'boolean') return args.booleans.get(option.flag) ?? option.cli.value;
  if (option.kind === 'list') {
    const items = args.lists.get(option.flag) ?? [];
    return items.length === 0 ? option.cli.value : asUsageError(option, () => option.parse(items));
  }
  const text = args.strings.get(option.flag) ?? '';
  return text === '' ? option.cli.value : asUsageError(option, () => option.parse(text));
}

// ---- Flags

export const bundleFlags: FlagSpec[] = [
  optionFlag(runOptions.bundle, 'Bundle file (.cue, .json, .yaml); repeat or separate with commas', { short: 'f' }),
  optionFlag(runOptions.runtime, 'Runtime file; may be one of the bundle files', { short: 'r' }),
  optionFlag(runOptions.runtimeGroup, 'Only the clusters of this group'),
  optionFlag(runOptions.runtimeCluster, 'Only the cluster of this name'),
  optionFlag(
    runOptions.runtimeFromEnv,
    'Give environment variables to @timoni(runtime:...) attributes (never CI job credentials)',
  ),
  optionFlag(
    runOptions.runtimeEnv,
    'Give only these environment variables to runtime attributes; repeat or separate with commas',
  ),
  {
    name: 'allow-path',
    kind: 'list',
    description:
      'Another folder that bundle, runtime and module files may come from (default: the current directory and the folders of the -f/-r files)',
  },
  {
    name: 'workdir',
    kind: 'string',
    default: '',
    description: 'CUE module root for imports in bundle files (default: current directory)',
  },
  { name: 'kubeconfig', kind: 'string', default: '', description: 'Path to the kubeconfig file' },
  {
    name: 'kube-context',
    kind: 'string',
    default: '',
    description: 'Kube context of the default cluster (runtime without clusters)',
  },
  {
    name: 'output',
    short: 'o',
    kind: 'string',
    default: 'text',
    choices: ['text', 'json'],
    description: 'Output format',
  },
  optionFlag(runOptions.cueMemoryLimit, "Ceiling on the CUE engine's memory in MiB (64-4096)"),
];

const identityRecordFlag: FlagSpec = optionFlag(
  runOptions.clusterIdentityRecord,
  "The identity record's ConfigMap name in kube-system",
);
const credsFlag: FlagSpec = optionFlag(runOptions.registryCreds, 'Registry credentials: user:password, or a token');

/** vet and build reach a cluster only to read the runtime's value queries, its identity checked first (query-access.ts). */
const queryIdentityFlags = (): FlagSpec[] => nonRecordingIdentityFlags("the runtime's value queries are read from it");

export const vetFlags: FlagSpec[] = [
  ...bundleFlags,
  { name: 'print-value', kind: 'boolean', description: 'Print the computed bundle value of each cluster' },
  ...queryIdentityFlags(),
];

export const buildFlags: FlagSpec[] = [
  ...bundleFlags.map((flag) =>
    flag.name === 'output' ? { ...flag, default: 'yaml', choices: ['yaml', 'json'] } : flag,
  ),
  credsFlag,
  {
    name: 'mask-secrets',
    kind: 'boolean',
    description: 'Print the values of Kubernetes Secrets as *** (as timoni build --mask-secrets)',
  },
  ...queryIdentityFlags(),
];

export const fleetFlags: FlagSpec[] = [
  ...bundleFlags,
  optionFlag(runOptions.wait, 'Wait for applied objects to become ready (--wait=false to skip)'),
  optionFlag(runOptions.timeout, "Time limit of each cluster's apply, all its instances' readiness waits together"),
  optionFlag(runOptions.prune, 'Delete objects that the bundle no longer builds'),
  optionFlag(
    runOptions.pruneRemovedInstances,
    "With --prune, delete the bundle's instances that it no longer lists (--prune-removed-instances=false keeps them)",
  ),
  optionFlag(
    runOptions.pruneRemovedClusters,
    'With --prune and a base runtime, delete the bundle from the clusters that leave the runtime (--prune-removed-clusters=false keeps it there)',
  ),
  {
    name: 'base-ref',
    kind: 'string',
    default: '',
    description:
      'The commit before this change (a branch, tag or commit id): the -r runtime file(s) as they were there, read with git, are the base runtime (as --base-runtime); a file REF did not have is left out, and none at all means no cluster leaves',
  },
  {
    name: 'base-runtime',
    kind: 'string',
    default: '',
    description:
      'The runtime file before this change: its clusters missing from -r leave the fleet (diff shows them, apply deletes the bundle there); a renamed cluster is not a leave',
  },
  optionFlag(runOptions.force, 'Recreate objects whose immutable fields change'),
  optionFlag(runOptions.overwriteOwnership, 'Take over instances owned by another bundle'),
  credsFlag,
  optionFlag(runOptions.concurrency, 'Clusters diffed at once'),
  optionFlag(
    runOptions.strategy,
    'Rollout: sequential (one cluster after the other) or waves (the clusters of one group at once, group after group)',
  ),
  optionFlag(runOptions.maxParallel, 'With --strategy waves: clusters of one wave applied at once'),
  optionFlag(
    runOptions.soak,
    'Soak gate, e.g. 10m: after each wave (or cluster) is applied, watch its objects stay ready this long before the next one (none by default)',
  ),
  optionFlag(
    runOptions.onFailure,
    'A failed cluster (apply): stop there, or rollback: put back every instance the run changed on it (and on its wave), then stop',
  ),
  optionFlag(
    runOptions.history,
    'Revisions of each instance kept in the cluster for `timoni-fleet history`, the current one included (0: none written)',
  ),
  optionFlag(runOptions.deadline, 'Time limit of the whole run, e.g. 30m (none by default)'),
  optionFlag(runOptions.changesFile, 'Also write the ChangeSet JSON (as -o json prints it) to this file'),
  optionFlag(
    runOptions.clusterIdentity,
    'check: refuse a cluster recorded under another runtime name; record: also record each cluster on its first apply; off',
  ),
  identityRecordFlag,
  optionFlag(
    runOptions.repinClusters,
    "Overwrite this runtime cluster's identity record on purpose (apply); repeat or separate with commas",
  ),
  {
    name: 'cluster',
    kind: 'string',
    default: '',
    description:
      'delete: remove the bundle from this one cluster, also one no longer in the runtime (found in --base-runtime, else reached through --kube-context)',
  },
];

/**
 * The flags beyond the bundle flags that each fleet command reads; `--help` lists only these.
 * apply applies one cluster at a time (or --max-parallel per wave): --concurrency, the
 * number of clusters diffed at once, is diff's.
 */
const commandFlags: Record<'diff' | 'apply' | 'status' | 'delete' | 'history' | 'rollback', string[]> = {
  apply: fleetFlags
    .filter((flag) => !bundleFlags.includes(flag) && flag.name !== 'concurrency' && flag.name !== 'cluster')
    .map((flag) => flag.name),
  diff: [
    'prune',
    'prune-removed-instances',
    'prune-removed-clusters',
    'base-runtime',
    'base-ref',
    'force',
    'overwrite-ownership',
    'creds',
    'concurrency',
    'deadline',
    'changes-file',
    'cluster-identity',
    'cluster-identity-record',
    'repin-cluster',
  ],
  status: ['deadline', 'cluster-identity', 'cluster-identity-record', 'repin-cluster'],
  history: ['deadline', 'cluster-identity', 'cluster-identity-record', 'repin-cluster'],
  // A rollback prunes objects within the instances it puts back, never whole instances, and changes no membership.
  rollback: fleetFlags
    .filter(
      (flag) =>
        !bundleFlags.includes(flag) &&
        !['prune', 'prune-removed-instances', 'prune-removed-clusters', 'base-ref', 'base-runtime', 'cluster'].includes(
          flag.name,
        ),
    )
    .map((flag) => flag.name),
  delete: [
    'wait',
    'timeout',
    'deadline',
    'cluster',
    'base-runtime',
    'cluster-identity',
    'cluster-identity-record',
    'repin-cluster',
  ],
};

/**
 * The identity flags of the commands that never record (status and vet/build read, delete
 * removes): a record is written only by an apply, whose values are the cluster's (a delete
 * that recorded would pin a cluster at the moment its bundle leaves it, from a command that
 * builds nothing for it). `--repin-cluster` there takes the named runtime cluster as
 * re-pinned for this command only: a cluster whose record names another runtime cluster is
 * read, or deleted from, under the new name, and its record is left as it is.
 */
function nonRecordingIdentityFlags(what: string): FlagSpec[] {
  return [
    optionFlag(
      runOptions.clusterIdentity,
      `check: refuse a cluster recorded under another runtime name before ${what} (never writes the record: only apply records); off`,
      { choices: ['check', 'off'] },
    ),
    identityRecordFlag,
    optionFlag(
      runOptions.repinClusters,
      'Take this runtime cluster as re-pinned: a cluster recorded under another name is reached anyway, its record not rewritten (apply --repin-cluster does that); repeat or separate with commas',
    ),
  ];
}

const readOrDeleteIdentityFlags = new Map(
  nonRecordingIdentityFlags('anything is read or deleted there').map((flag) => [flag.name, flag]),
);

/**
 * `status` without `-o` prints Timoni's `bundle status` lines; `-o text` the state of each
 * cluster x instance (deployed, stale, not installed, failed, unknown), `-o json` the same as JSON.
 */
const statusOutputFlag: FlagSpec = {
  name: 'output',
  short: 'o',
  kind: 'string',
  default: '',
  choices: ['text', 'json'],
  description: "The state of each instance: text (a table) or json; without it, Timoni's bundle status lines",
};

/** delete's --wait and --timeout: they bound the wait for deleted objects to be gone, not an apply's readiness. */
const deleteFlags = new Map<string, FlagSpec>([
  [
    'wait',
    optionFlag(
      runOptions.wait,
      "Wait for the deleted objects to be gone before removing each instance's record (--wait=false to skip)",
    ),
  ],
  ['timeout', optionFlag(runOptions.timeout, "Time limit of each cluster's delete, all its instances' waits together")],
]);

/** `history`'s own flags: one instance only; its -o (no values in either form). */
const historyFlags: FlagSpec[] = [
  optionFlag(
    runOptions.rollbackInstance,
    'Only the history of this instance (default: every instance the bundle lists)',
  ),
];

/** `rollback`'s own flags: which instance, which revision, and a dry-run (a diff of the rollback). */
const rollbackFlags: FlagSpec[] = [
  optionFlag(runOptions.rollbackInstance, 'Only this instance (default: every instance the bundle lists)'),
  optionFlag(
    runOptions.revision,
    "The revision to put back, as `timoni-fleet history` lists it (default: each instance's previous one)",
  ),
  {
    name: 'dry-run',
    kind: 'boolean',
    description: 'Show what the rollback would change on each cluster (a diff; exit 0 nothing, 1 changes, 2 failure)',
  },
];
const historyOutputFlag: FlagSpec = {
  name: 'output',
  short: 'o',
  kind: 'string',
  default: 'text',
  choices: ['text', 'json'],
  description: 'The revisions as a table (text) or as JSON; values are never printed',
};

export function fleetFlagsFor(command: keyof typeof commandFlags): FlagSpec[] {
  const own = commandFlags[command];
  const reads = command === 'status' || command === 'delete' || command === 'history';
  const flags = fleetFlags
    .filter((flag) => bundleFlags.includes(flag) || own.includes(flag.name))
    .map((flag) => (reads ? (readOrDeleteIdentityFlags.get(flag.name) ?? flag) : flag))
    .map((flag) => (command === 'delete' ? (deleteFlags.get(flag.name) ?? flag) : flag));
  if (command === 'history')
    return [...flags.map((flag) => (flag.name === 'output' ? historyOutputFlag : flag)), ...historyFlags];
  if (command === 'rollback') return [...flags, ...rollbackFlags];
  return command === 'status' ? flags.map((flag) => (flag.name === 'output' ? statusOutputFlag : flag)) : flags;
}

/** `--cue-memory-limit` in MiB, checked. */
export function cueMemoryLimit(args: ParsedArguments): number {
  return optionValue(args, runOptions.cueMemoryLimit);
}

/** The identity check of a command that reaches clusters: --cluster-identity, --cluster-identity-record, --repin-cluster. */
export function identityOptions(args: ParsedArguments): NonNullable<FleetOptions['identity']> {
  return {
    mode: optionValue(args, runOptions.clusterIdentity),
    recordName: optionValue(args, runOptions.clusterIdentityRecord),
    repin: optionValue(args, runOptions.repinClusters),
    repinAdvice: (cluster) => `run timoni-fleet apply --repin-cluster ${cluster}`,
  };
}

// ---- Bundle inputs

export interface BundleInputs {
  bundleFiles: SourceFile[];
  runtime: Runtime;
  moduleFiles: Record<string, string>;
  selector: ClusterSelector;
  environment?: Record<string, string | undefined>;
  /** Where bundle, runtime, cue.mod and local module files may come from (after symlinks). */
  boundary: FileBoundary;
  output: 'text' | 'json';
  /** `--base-runtime FILE`: the runtime before this change (fleet membership), loaded as -r is. */
  baseRuntime?: { runtime: Runtime; from: string };
}

/** The root of the git work tree holding `cwd` (a bundle may use modules anywhere in its repository), else `cwd`. */
function repositoryRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

export function readBundleInputs(
  engine: CueEngine,
  args: ParsedArguments,
  cwd: string,
  env: NodeJS.ProcessEnv,
): BundleInputs {
  const files = optionValue(args, runOptions.bundle);
  if (files.length === 0) throw new UsageError('no bundle given: pass one or more files with -f');
  const runtimeFileNames = optionValue(args, runOptions.runtime);
  const workdir = resolve(cwd, args.strings.get('workdir') || '.');
  const named = [...files, ...runtimeFileNames, ...[args.strings.get('base-runtime') ?? ''].filter(Boolean)].map(
    (file) => dirname(resolve(cwd, file)),
  );
  const boundary = new FileBoundary([
    repositoryRoot(cwd),
    workdir,
    ...named,
    ...(args.lists.get('allow-path') ?? []).map((path) => resolve(cwd, path)),
  ]);
  const moduleFiles = readCueModuleFiles(workdir, boundary);
  const bundleFiles = readSourceFiles(files, cwd, boundary);
  const runtimeFiles = readSourceFiles(runtimeFileNames, cwd, boundary);
  const allowed = optionValue(args, runOptions.runtimeEnv);
  const runtime = loadRuntime(engine, runtimeFiles, moduleFiles, args.strings.get('kube-context') ?? '');
  const baseFile = args.strings.get('base-runtime') ?? '';
  // A base runtime given by hand that does not load is the user's error, told as -r's would be.
  const baseRuntime =
    baseRuntimeAtRef(engine, args, cwd, workdir) ??
    (baseFile
      ? {
          runtime: loadRuntime(
            engine,
            readSourceFiles([baseFile], cwd, boundary),
            moduleFiles,
            args.strings.get('kube-context') ?? '',
          ),
          from: `${baseFile} (--base-runtime)`,
        }
      : undefined);
  return {
    ...(baseRuntime ? { baseRuntime } : {}),
    bundleFiles,
    runtime,
    moduleFiles,
    selector: {
      cluster: optionValue(args, runOptions.runtimeCluster),
      group: optionValue(args, runOptions.runtimeGroup),
    },
    environment: runtimeEnvironment(env, { all: optionValue(args, runOptions.runtimeFromEnv), allowed }),
    boundary,
    output: (args.strings.get('output') ?? 'text') as 'text' | 'json',
  };
}

/**
 * `--base-ref REF`: the -r runtime file(s) as they were at REF, read with git (no shell,
 * objects only: ../git-revision.ts) from the work tree that holds them, and loaded as -r is
 * but with the cue.mod of the working directory (--workdir) as REF had it (none if REF had none), never
 * the work tree's (../runtime-at-commit.ts).
 * Undefined without the flag, and when REF had none of the files (nothing leaves). A REF
 * git does not know, a file outside the repository, or a base runtime that does not load
 * is the user's error.
 */
function baseRuntimeAtRef(
  engine: CueEngine,
  args: ParsedArguments,
  cwd: string,
  workdir: string,
): { runtime: Runtime; from: string } | undefined {
  const ref = args.strings.get('base-ref') ?? '';
  if (ref === '') return undefined;
  if (args.strings.get('base-runtime'))
    throw new UsageError('--base-ref and --base-runtime both give the base runtime: pass one of them');
  const runtimeFiles = optionValue(args, runOptions.runtime);
  if (runtimeFiles.length === 0)
    throw new UsageError('--base-ref reads the -r runtime file(s) as they were at REF: give the runtime with -r');
  const top = repositoryRoot(cwd);
  if (!existsSync(join(top, '.git'))) throw new UsageError(`--base-ref ${ref}: ${cwd} is not inside a git work tree`);
  let locations: RuntimeFileLocation[];
  try {
    locations = locateRuntimeFiles(runtimeFiles, cwd, top);
  } catch (error) {
    throw new UsageError(`--base-ref: ${error instanceof Error ? error.message : String(error)}`);
  }
  const commits = new Map<string, string>();
  const commitIn = (tree: string): string => {
    let commit = commits.get(tree);
    if (commit === undefined) {
      commit = resolveCommit(tree, ref);
      if (commit === undefined)
        throw new UsageError(`--base-ref: git does not know ${JSON.stringify(ref)} in ${tree} (fetch it first?)`);
      commits.set(tree, commit);
    }
    return commit;
  };
  const texts = new Map(
    locations.map((location) => [
      location.shownAs,
      readFileAtCommit(location.workTree ?? top, commitIn(location.workTree ?? top), location.repositoryPath),
    ]),
  );
  let moduleFiles: Record<string, string> = {};
  if ([...texts.values()].some((text) => text !== undefined)) {
    let cueModule: ReturnType<typeof locateCueModule>;
    try {
      cueModule = locateCueModule(workdir, top);
    } catch (error) {
      throw new UsageError(`--base-ref: ${error instanceof Error ? error.message : String(error)}`);
    }
    const tree = cueModule.workTree ?? top;
    moduleFiles = cueModuleFilesAtCommit(
      cueModule,
      readFolderAtCommit(tree, commitIn(tree), cueModule.repositoryPath, CUE_MODULE_LIMITS),
    );
  }
  const loaded = loadRuntimeAtCommit(engine, locations, (location) => texts.get(location.shownAs), moduleFiles);
  if (!loaded) return undefined;
  const commit = [...commits.values()][0] ?? ref;
  return { runtime: loaded.runtime, from: `${loaded.files.join(', ')} at ${ref} (${commit.slice(0, 7)}, --base-ref)` };
}

// ---- Kubeconfig and fleet run

/** The kubeconfig files: --kubeconfig, else the KUBECONFIG list, else ~/.kube/config. */
export function kubeconfigPaths(args: ParsedArguments, io: CommandIO): string[] {
  const given = args.strings.get('kubeconfig');
  return given
    ? [resolve(io.cwd, given)]
    : (io.env.KUBECONFIG ?? join(homedir(), '.kube', 'config')).split(':').filter(Boolean);
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

/**
 * The environment offered to runtime attributes, checked, as the action does, against every
 * secret of the run once the kubeconfig is loaded (its text and credentials, the registry
 * credentials): a variable whose value holds one or a credential, encoded or not, is
 * withheld under --runtime-from-env (the log names it, never its value) and refused when
 * --runtime-env lists it (../bundle/runtime-environment.ts).
 */
function environmentWithoutSecrets(
  args: ParsedArguments,
  env: NodeJS.ProcessEnv,
  secrets: SecretRegistry,
  log: FleetLog,
): Record<string, string> | undefined {
  const withheld: string[] = [];
  const environment = runtimeEnvironment(env, {
    all: optionValue(args, runOptions.runtimeFromEnv),
    allowed: optionValue(args, runOptions.runtimeEnv),
    secretIn: (value) => secrets.secretIn(value),
    onWithheld: (name, why) => withheld.push(`${name} (${why})`),
  });
  if (withheld.length > 0) {
    log.line(
      `--runtime-from-env: withheld ${withheld.join(', ')}: a value that holds a secret of the run or a credential, as it stands or encoded, is never given to runtime attributes`,
    );
  }
  return environment;
}

export function fleetRunFromArgs(engine: CueEngine, args: ParsedArguments, io: CommandIO, log: FleetLog): FleetRun {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  // The command's registry when it masks its streams with it (io.ts maskedIO).
  const secrets = io.secrets ?? new SecretRegistry();
  const options: FleetOptions = {
    ...defaultFleetOptions,
    wait: optionValue(args, runOptions.wait),
    timeoutMs: optionValue(args, runOptions.timeout),
    prune: optionValue(args, runOptions.prune),
    pruneRemovedInstances: optionValue(args, runOptions.pruneRemovedInstances),
    pruneRemovedClusters: optionValue(args, runOptions.pruneRemovedClusters),
    force: optionValue(args, runOptions.force),
    overwriteOwnership: optionValue(args, runOptions.overwriteOwnership),
    concurrency: optionValue(args, runOptions.concurrency),
    strategy: optionValue(args, runOptions.strategy),
    maxParallel: optionValue(args, runOptions.maxParallel),
    soakMs: optionValue(args, runOptions.soak),
    onFailure: optionValue(args, runOptions.onFailure),
    history: optionValue(args, runOptions.history),
    identity: identityOptions(args),
  };
  const creds = optionValue(args, runOptions.registryCreds);
  const deadlineMs = optionValue(args, runOptions.deadline);
  const signal = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
  const kubeconfig = loadKubeconfig(kubeconfigTexts(args, io), secrets);
  const environment = environmentWithoutSecrets(args, io.env, secrets, log);
  return {
    engine,
    evaluation: {
      bundleFiles: inputs.bundleFiles,
      moduleFiles: inputs.moduleFiles,
      runtime: inputs.runtime,
      ...(environment ? { environment } : {}),
    },
    selector: inputs.selector,
    kubeconfig,
    secrets,
    resolver: new ModuleResolver(
      engine,
      io.cwd,
      {
        ...(creds ? { credentials: creds } : {}),
        secrets: (value: string) => secrets.register(value),
        ...(signal ? { signal } : {}),
      },
      inputs.boundary,
    ),
    options,
    log,
    ...(inputs.baseRuntime ? { baseRuntime: inputs.baseRuntime } : {}),
    ...(deadlineMs !== undefined ? { deadlineAt: Date.now() + deadlineMs } : {}),
  };
}
