// The options of a fleet run, once for both entry points: the action's inputs (action.yml,
// read by ../action/config.ts) and the CLI's flags (--help, read by ../cli/options.ts). Each
// option is written here once: its name (the action input and the CLI flag are spelled alike
// unless `flag` says otherwise), its type, its default (the typed value, and the text that
// action.yml's `default:` and --help's `(default X)` show), how its text is checked and read,
// and the reason given when it is wrong. The entry points only map their own syntax onto it:
//
//   - the action reads `INPUT_<NAME>`: empty is the default; a list is one item per line or
//     separated by commas; a wrong value is `input "<input>": <reason>` (InputError);
//   - the CLI reads `--<flag>`: empty is the default; a list flag is repeated or separated by
//     commas; a wrong value is `--<flag> <reason>` (`--<flag>: <reason>` when the reason is
//     not a "must ..."), a usage error;
//   - a boolean's spelling is each entry point's own (the action takes YAML's true/false, as
//     the Actions toolkit does; the CLI `--flag`, `--flag=true|false`), its default is here;
//     --help shows a boolean's default only when it is true (the flag alone turns it on).
//
// Names that differ: the action's `bundle` is the CLI's `-f/--file`, `repin-clusters` is
// `--repin-cluster` (given once per cluster on a command line), and `registry-creds` is
// `--creds`, in two forms (below). Defaults that differ on purpose (`deadline`,
// `cluster-identity`) are both written here, with the reason (`differs`).
//
// test/fleet/run-options.test.ts holds action.yml's defaults and the CLI's --help to these.
import { DEFAULT_MEMORY_LIMIT_MIB } from '../cue/index.js';
import { parseVariableNames, RuntimeEnvironmentError } from '../bundle/runtime-environment.js';
import { DEFAULT_TIMEOUT, DEFAULT_TIMEOUT_MS } from '../default-timeout.js';
import { quote } from '../display-text.js';
import { parseDuration } from '../duration.js';
import { DEFAULT_IDENTITY_RECORD, IDENTITY_MODES, parseRepinList, type IdentityMode } from '../kube/connect/index.js';

export const ROLLOUT_STRATEGIES = ['sequential', 'waves'] as const;
export type RolloutStrategy = (typeof ROLLOUT_STRATEGIES)[number];

/** What a rollout does with a cluster that fails: stop there (as Timoni), or put it back as it was, then stop. */
export const ON_FAILURE_CHOICES = ['stop', 'rollback'] as const;
export type OnFailure = (typeof ON_FAILURE_CHOICES)[number];

/** A value that an option does not take: `reason` follows the option's name in the entry point's message. */
export class RunOptionError extends Error {
  override name = 'RunOptionError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A default: the value a run gets, and the text action.yml and --help show for it ('' shows none). */
export interface OptionDefault<T> {
  value: T;
  text: string;
}

interface OptionBase<T, C> {
  /** The action input's name. */
  input: string;
  /** The CLI flag's name (without `--`): the input's, unless the CLI spells it otherwise. */
  flag: string;
  /** The action's default (action.yml's `default:`, and what an empty input means). */
  action: OptionDefault<T>;
  /** The CLI's default (--help's `(default X)`, and what an absent or empty flag means). */
  cli: OptionDefault<C>;
  /** Why the action's and the CLI's defaults differ, where they do on purpose. */
  differs?: string;
}

export interface BooleanOption extends OptionBase<boolean, boolean> {
  kind: 'boolean';
}

export interface TextOption<T, C = T> extends OptionBase<T, C> {
  kind: 'text';
  /** The values it may take, where it is a choice (--help lists them). */
  choices?: readonly string[];
  /** Reads a value given (not empty); throws RunOptionError. */
  parse(text: string): T;
}

export interface ListOption<T> extends OptionBase<T, T> {
  kind: 'list';
  /** Reads the items given (at least one: none is the default); throws RunOptionError. */
  parse(items: readonly string[]): T;
}

export type RunOption = BooleanOption | TextOption<unknown, unknown> | ListOption<unknown>;

// ---- Readers and checks

const alike = <T>(value: T, text: string) => ({ action: { value, text }, cli: { value, text } });

function booleanOption(input: string, value: boolean): BooleanOption {
  return { kind: 'boolean', input, flag: input, ...alike(value, String(value)) };
}

function textOption<T>(
  input: string,
  value: T,
  text: string,
  parse: (text: string) => T,
  more: Partial<TextOption<T>> = {},
): TextOption<T> {
  return { kind: 'text', input, flag: input, ...alike(value, text), parse, ...more };
}

function listOption<T>(
  input: string,
  value: T,
  parse: (items: readonly string[]) => T,
  more: Partial<ListOption<T>> = {},
): ListOption<T> {
  return { kind: 'list', input, flag: input, ...alike(value, ''), parse, ...more };
}

const plainText = (text: string): string => text;

function wholeNumber(unit: string, min: number, max?: number): (text: string) => number {
  const range = max === undefined ? `, ${min} or more` : ` from ${min} to ${max}`;
  return (text) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || (max !== undefined && value > max))
      throw new RunOptionError(`must be a whole number of ${unit}${range}, not ${quote(text)}`);
    return value;
  };
}

/** A Go duration in milliseconds (`5m`, `90s`, `1h30m`; a bare number is seconds), `positive` refusing 0. */
function duration(examples: string, positive: boolean): (text: string) => number {
  return (text) => {
    const value = parseDuration(text);
    if (value === undefined || (positive && value <= 0))
      throw new RunOptionError(`must be a duration such as ${examples}, not ${quote(text)}`);
    return value;
  };
}

function choice<T extends string>(choices: readonly T[]): (text: string) => T {
  return (text) => {
    if (!(choices as readonly string[]).includes(text))
      throw new RunOptionError(`must be one of ${choices.join(', ')}, not ${quote(text)}`);
    return text as T;
  };
}

/** A ConfigMap name (a DNS subdomain). */
/** An instance's name as Timoni takes it (a DNS label). */
function instanceName(text: string): string {
  if (text.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text))
    throw new RunOptionError(`must be an instance name (lower-case letters, digits and -), not ${quote(text)}`);
  return text;
}

/** A revision of an instance's history (1, 2, 3...). */
function revisionNumber(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1)
    throw new RunOptionError(`must be a revision number (1 or more, as \`history\` lists them), not ${quote(text)}`);
  return value;
}

function configMapName(text: string): string {
  if (text.length > 253 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text))
    throw new RunOptionError(`must be a ConfigMap name (lower-case letters, digits, - and .), not ${quote(text)}`);
  return text;
}

function variableNames(items: readonly string[]): string[] {
  try {
    return parseVariableNames(items.join(','), 'runtime-env');
  } catch (error) {
    if (error instanceof RuntimeEnvironmentError) throw new RunOptionError(error.message.replace(/^runtime-env: /, ''));
    throw error;
  }
}

const HOST_ENTRY = /^([A-Za-z0-9.-]+(?::\d+)?)=(.*)$/s;

/**
 * The action's form of registry credentials (`registry-creds`): one `host=user:password` (or
 * `host=token`) entry per line, by lower-cased host. Credentials are bound to the registry
 * host they name: a pull request that points a module at another registry never gets them.
 * Every value is given to `mask` before it is checked, and a wrong entry is named by its
 * position, never by its text.
 */
export function hostCredentials(text: string, mask: (secret: string) => void): Record<string, string> {
  const entries: Record<string, string> = {};
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  lines.forEach((line, index) => {
    mask(line);
    const match = HOST_ENTRY.exec(line);
    if (!match || match[2] === '') {
      throw new RunOptionError(
        `entry ${index + 1} is not of the form host=user:password (one entry per line, e.g. ghcr.io=user:token); credentials are bound to the registry host they are for`,
      );
    }
    const [, host = '', credential = ''] = match;
    mask(credential);
    const colon = credential.indexOf(':');
    if (colon >= 0) mask(credential.slice(colon + 1));
    entries[host.toLowerCase()] = credential;
  });
  return entries;
}

// ---- The options

export const runOptions = {
  /**
   * The bundle files (.cue, .json, .yaml): the action resolves them against
   * `working-directory`, the CLI against its current directory. Both require one at least,
   * and say so in their own words: the action names its input, the CLI its `-f`.
   */
  bundle: listOption<string[]>('bundle', [], (items) => [...items], { flag: 'file' }),
  /** The runtime files; none: the bundle goes to one default cluster, the kubeconfig's current context. */
  runtime: listOption<string[]>('runtime', [], (items) => [...items]),
  /** Only the clusters of this group, or of this name (`*`: all; a fan-out's shard lists several names). */
  runtimeGroup: textOption('runtime-group', '*', '*', plainText),
  runtimeCluster: textOption('runtime-cluster', '*', '*', plainText),
  /** The environment offered to runtime attributes: all of it less credentials, or the variables named. */
  runtimeFromEnv: booleanOption('runtime-from-env', false),
  runtimeEnv: listOption<string[]>('runtime-env', [], variableNames),
  /** An apply's readiness waits (a delete's wait for deleted objects to be gone), and their time limit per cluster. */
  wait: booleanOption('wait', true),
  timeout: textOption('timeout', DEFAULT_TIMEOUT_MS, DEFAULT_TIMEOUT, duration('5m or 90s', false)),
  /** What an apply deletes: objects the build lost, instances the bundle no longer lists, the bundle on clusters that leave. */
  prune: booleanOption('prune', true),
  pruneRemovedInstances: booleanOption('prune-removed-instances', true),
  pruneRemovedClusters: booleanOption('prune-removed-clusters', true),
  /** Recreate objects whose immutable fields change; take over instances another bundle owns. */
  force: booleanOption('force', false),
  overwriteOwnership: booleanOption('overwrite-ownership', false),
  /** Clusters diffed (or read, for a state) at once. */
  concurrency: textOption('concurrency', 4, '4', wholeNumber('clusters', 1)),
  /** How a rollout goes through the clusters, and with `waves` the clusters of a wave applied at once. */
  strategy: textOption<RolloutStrategy>('strategy', 'sequential', 'sequential', choice(ROLLOUT_STRATEGIES), {
    choices: ROLLOUT_STRATEGIES,
  }),
  maxParallel: textOption('max-parallel', 4, '4', wholeNumber('clusters', 1)),
  /**
   * The soak gate between waves (or, sequentially, clusters): how long the objects applied
   * are watched for readiness before the next one starts (soak.ts). None by default.
   */
  soak: textOption<number | undefined>('soak', undefined, '', duration('10m or 90s', true)),
  /** A failed cluster: left as the failure left it (`stop`), or put back as it was before the run (`rollback`, ../fleet/rollback.ts). */
  onFailure: textOption<OnFailure>('on-failure', 'stop', 'stop', choice(ON_FAILURE_CHOICES), {
    choices: ON_FAILURE_CHOICES,
  }),
  /**
   * How many revisions of each instance an apply keeps in the cluster (the current one
   * included; ../kube/instance/history-store.ts); 0 writes no history (one kept is left as it is).
   */
  history: textOption('history', 10, '10', wholeNumber('revisions', 0)),
  /**
   * A rollback to a revision (`mode: rollback`, `timoni-fleet rollback`; ../fleet/revision-rollback.ts):
   * the instance put back ('': every instance the bundle lists), and the revision of its
   * history (none: each instance's previous one). The CLI's flag is `--to`, as `helm rollback`'s argument reads.
   */
  rollbackInstance: textOption('instance', '', '', instanceName),
  revision: textOption<number | undefined>('revision', undefined, '', revisionNumber, { flag: 'to' }),
  /** The whole run's time limit. */
  deadline: {
    kind: 'text',
    input: 'deadline',
    flag: 'deadline',
    action: { value: 60 * 60_000, text: '60m' },
    cli: { value: undefined, text: '' },
    differs:
      'the action runs unattended, on a runner that bills by the minute, and must keep time to publish the comment and the job summary before GitHub stops the job: its run ends by 60m unless told otherwise. The CLI is run by a person (or a CI step with its own time limit) who stops it when they choose: it has no deadline unless given one.',
    parse: duration('30m or 90s', true),
  } satisfies TextOption<number, number | undefined>,
  /** The CUE engine's memory ceiling, in MiB. */
  cueMemoryLimit: textOption(
    'cue-memory-limit',
    DEFAULT_MEMORY_LIMIT_MIB,
    String(DEFAULT_MEMORY_LIMIT_MIB),
    wholeNumber('MiB', 64, 4096),
  ),
  /** Where the ChangeSet JSON is written (the action: relative to the workspace, by default under RUNNER_TEMP; the CLI: relative to its directory, by default nowhere). */
  changesFile: textOption('changes-file', '', '', plainText),
  /** The cluster identity check (../kube/connect/cluster-identity.ts), its record's ConfigMap, and the clusters re-pinned on purpose. */
  clusterIdentity: {
    kind: 'text',
    input: 'cluster-identity',
    flag: 'cluster-identity',
    action: { value: 'record', text: 'record' },
    cli: { value: 'check', text: 'check' },
    differs:
      "the action is the fleet's own rollout: its first apply to a cluster records the cluster's identity there, so that a later run never reaches the wrong cluster under that name. The CLI is also run by hand, with whatever kubeconfig is at hand: it checks the records and writes none unless told to (--cluster-identity record).",
    choices: IDENTITY_MODES,
    parse: choice(IDENTITY_MODES),
  } satisfies TextOption<IdentityMode>,
  clusterIdentityRecord: textOption(
    'cluster-identity-record',
    DEFAULT_IDENTITY_RECORD,
    DEFAULT_IDENTITY_RECORD,
    configMapName,
  ),
  repinClusters: listOption<string[]>('repin-clusters', [], (items) => parseRepinList(items), {
    flag: 'repin-cluster',
  }),
  /**
   * Registry credentials for OCI modules, one option in two forms: the action's
   * `registry-creds` is a list of credentials bound to hosts (hostCredentials), the CLI's
   * `--creds` one credential, `user:password` or a token, as Timoni's `--creds`.
   */
  registryCreds: textOption('registry-creds', '', '', plainText, { flag: 'creds' }),
};

/** Every option of the contract, for those that go through them all (the tests, the CLI's --help). */
export const allRunOptions: readonly RunOption[] = Object.values(runOptions) as RunOption[];
