// Runtime value queries for the commands that otherwise stay off clusters (vet, build): as
// Timoni's `bundle vet` and `bundle build --runtime-cluster X` do, they connect to each
// selected cluster through the kubeconfig (--kubeconfig, else KUBECONFIG, else
// ~/.kube/config) to read the objects the runtime's queries name. Nothing is opened when
// the runtime has no queries. Every value read from a Secret, and every credential of the
// kubeconfig, is registered so that the printed output can be redacted (every string of
// it, before it is printed, so that line folding cannot split a value).
//
// Before any query is read, each selected cluster's identity is checked as diff checks it
// (../kube/connect/cluster-identity.ts, nothing written): a context that reaches a cluster recorded
// under another runtime name is refused, so that one cluster's Secrets and ConfigMaps never
// become another's values. `--cluster-identity off` skips it; `--repin-cluster` takes a
// renamed cluster as its new name without rewriting the record.
import { existsSync } from 'node:fs';
import {
  evaluateForClusters,
  selectClusters,
  type ClusterBundle,
  type QueryObjectReader,
  type RuntimeCluster,
} from '../bundle/index.js';
import type { CueEngine } from '../cue/index.js';
import { openSession, type ClusterSession } from '../fleet/session.js';
import { establishIdentity, loadKubeconfig, repinsCluster } from '../kube/connect/index.js';
import { SecretRegistry } from '../secrets.js';
import { UsageError, type ParsedArguments } from './arguments.js';
import type { CommandIO } from './io.js';
import { identityOptions, kubeconfigPaths, kubeconfigTexts, type BundleInputs } from './options.js';

export interface QueryAccess {
  /** Reads query objects from the cluster named by the runtime; undefined without queries. */
  readObject?: QueryObjectReader;
  /** Connects to the cluster and checks its identity (once per cluster); undefined without queries. */
  connect?: (cluster: RuntimeCluster) => Promise<ClusterSession>;
  secrets: SecretRegistry;
  /** Registers the values that came from Secrets so that `redact` hides them. */
  registerSecretValues(values: readonly string[]): void;
  redact(text: string): string;
  close(): void;
}

export function openQueryAccess(inputs: BundleInputs, args: ParsedArguments, io: CommandIO): QueryAccess {
  const secrets = new SecretRegistry();
  const sessions = new Map<string, Promise<ClusterSession>>();
  const access: QueryAccess = {
    secrets,
    registerSecretValues: (values) => {
      for (const value of values) secrets.register(value);
    },
    redact: (text) => secrets.redact(text),
    close: () => {
      for (const session of sessions.values()) session.then((opened) => opened.kube.close()).catch(() => undefined);
    },
  };
  if (inputs.runtime.queries.length === 0) return access;

  const paths = kubeconfigPaths(args, io);
  if (!args.strings.get('kubeconfig') && !paths.some((path) => existsSync(path))) {
    throw new UsageError(
      `runtime "${inputs.runtime.name}" has value queries (${inputs.runtime.queries.map((q) => q.query).join(', ')}), which are read from the clusters: no kubeconfig found (${paths.join(', ')}); pass --kubeconfig or set KUBECONFIG`,
    );
  }
  const kubeconfig = loadKubeconfig(kubeconfigTexts(args, io), secrets);
  // --cluster-identity takes check or off here (vetFlags, buildFlags): a read never records.
  const identity = identityOptions(args);
  const connectChecked = async (cluster: RuntimeCluster): Promise<ClusterSession> => {
    const session = await openSession(kubeconfig, cluster, { secrets });
    try {
      const established = await establishIdentity(
        session.kube,
        { runtimeCluster: cluster.name, kubeContext: cluster.kubeContext },
        {
          mode: identity.mode,
          recordName: identity.recordName,
          repin: repinsCluster(identity.repin, cluster.name),
          repinAdvice: `run timoni-fleet apply --repin-cluster ${cluster.name}`,
          apply: false,
        },
      );
      if (established?.note) io.stderr(`${established.note}\n`);
      return session;
    } catch (error) {
      session.kube.close();
      throw error;
    }
  };
  const sessionFor = (cluster: RuntimeCluster): Promise<ClusterSession> => {
    let session = sessions.get(cluster.name);
    if (!session) {
      session = connectChecked(cluster);
      sessions.set(cluster.name, session);
    }
    return session;
  };
  access.connect = sessionFor;
  access.readObject = async (cluster, query) => (await sessionFor(cluster)).readObject(cluster, query);
  return access;
}

/**
 * The bundle evaluated for each selected cluster, its queries read through the kubeconfig
 * (the sessions closed once evaluated); the values read from Secrets registered with the
 * returned access, for `redact`.
 */
export async function evaluateWithQueries(
  engine: CueEngine,
  inputs: BundleInputs,
  args: ParsedArguments,
  io: CommandIO,
): Promise<{ results: ClusterBundle[]; access: QueryAccess }> {
  const access = openQueryAccess(inputs, args, io);
  let results: ClusterBundle[];
  try {
    // Every selected cluster is checked, in runtime order, before the first query is read:
    // a refused cluster fails the command with its own message (both runtime names).
    if (access.connect)
      for (const cluster of selectClusters(inputs.runtime, inputs.selector)) await access.connect(cluster);
    results = await evaluateForClusters(engine, {
      ...inputs,
      ...(access.readObject ? { readObject: access.readObject } : {}),
    });
  } finally {
    access.close();
  }
  for (const result of results) access.registerSecretValues(result.clusterSecretValues);
  return { results, access };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of a JSON value with `redact` applied to every string and key. */
export function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactStrings(item, redact)]));
  return value;
}
