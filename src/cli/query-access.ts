// Runtime value queries for the commands that otherwise stay off clusters (vet, build): as
// Timoni's `bundle vet` and `bundle build --runtime-cluster X` do, they connect to each
// selected cluster through the kubeconfig (--kubeconfig, else KUBECONFIG, else
// ~/.kube/config) to read the objects the runtime's queries name. Nothing is opened when
// the runtime has no queries. Every value read from a Secret, and every credential of the
// kubeconfig, is registered so that the printed output can be redacted.
import { existsSync } from 'node:fs';
import type { QueryObjectReader, RuntimeCluster } from '../bundle/index.js';
import { openSession, type ClusterSession } from '../fleet/cluster-session.js';
import { loadKubeconfig, SecretRegistry } from '../kube/index.js';
import { UsageError, type ParsedArguments } from './arguments.js';
import type { BundleInputs } from './bundle-options.js';
import type { CommandIO } from './command-io.js';
import { kubeconfigPaths, kubeconfigTexts } from './fleet-options.js';

export interface QueryAccess {
  /** Reads query objects from the cluster named by the runtime; undefined without queries. */
  readObject?: QueryObjectReader;
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
  const sessionFor = (cluster: RuntimeCluster): Promise<ClusterSession> => {
    let session = sessions.get(cluster.name);
    if (!session) {
      session = openSession(kubeconfig, cluster, { secrets });
      sessions.set(cluster.name, session);
    }
    return session;
  };
  access.readObject = async (cluster, query) => (await sessionFor(cluster)).readObject(cluster, query);
  return access;
}
