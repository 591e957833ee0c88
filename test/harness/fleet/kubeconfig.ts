// The fleet's kubeconfig: one cluster, user and context per cluster, credentials embedded
// (base64 `*-data` fields) so that the file can be copied anywhere; optionally more
// contexts per cluster (aliases: another name for a cluster's admin user, so that many
// runtime clusters can run on a few API servers). Also reads a kubeconfig back into the
// connection details the test client needs.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

export interface KubeconfigEntry {
  /** Context name, also used as the cluster name in the file; e.g. `fleet-1`. */
  contextName: string;
  /** User name in the file, e.g. `fleet-1-admin`. */
  userName: string;
  server: string;
  caCertPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

/** One more context for a cluster already in the file: same server, same user. */
export interface ContextAlias {
  contextName: string;
  /** The context (of an entry) it is another name for. */
  of: string;
}

/**
 * Aliases so that each context has `perContext` names in all: its own, then
 * `<context>-2` ... `<context>-<perContext>`. Ordered round-robin over the contexts
 * (`fleet-1-2, fleet-2-2, fleet-3-2, fleet-1-3, ...`), so that the first N of
 * `spreadContextNames` spread N runtime clusters evenly over the API servers.
 */
export function contextAliases(contexts: readonly string[], perContext: number): ContextAlias[] {
  if (!Number.isInteger(perContext) || perContext < 1)
    throw new Error(`contexts per cluster must be a whole number from 1, got ${perContext}`);
  const aliases: ContextAlias[] = [];
  for (let k = 2; k <= perContext; k += 1) for (const of of contexts) aliases.push({ contextName: `${of}-${k}`, of });
  return aliases;
}

/** Every context name of a fleet with these aliases: the clusters' own first, then the aliases, round-robin. */
export function spreadContextNames(contexts: readonly string[], aliases: readonly ContextAlias[]): string[] {
  return [...contexts, ...aliases.map((alias) => alias.contextName)];
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

export function renderKubeconfig(
  entries: KubeconfigEntry[],
  currentContext = entries[0]?.contextName,
  aliases: readonly ContextAlias[] = [],
): string {
  const byContext = new Map(entries.map((entry) => [entry.contextName, entry]));
  const aliasContexts = aliases.map((alias) => {
    const entry = byContext.get(alias.of);
    if (!entry) throw new Error(`context alias ${alias.contextName} names no context of the fleet: ${alias.of}`);
    if (byContext.has(alias.contextName))
      throw new Error(`context alias ${alias.contextName} is already a context of the fleet`);
    return { name: alias.contextName, context: { cluster: entry.contextName, user: entry.userName } };
  });
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    'current-context': currentContext ?? '',
    clusters: entries.map((entry) => ({
      name: entry.contextName,
      cluster: { server: entry.server, 'certificate-authority-data': base64(entry.caCertPem) },
    })),
    users: entries.map((entry) => ({
      name: entry.userName,
      user: { 'client-certificate-data': base64(entry.clientCertPem), 'client-key-data': base64(entry.clientKeyPem) },
    })),
    contexts: [
      ...entries.map((entry) => ({
        name: entry.contextName,
        context: { cluster: entry.contextName, user: entry.userName },
      })),
      ...aliasContexts,
    ],
  });
}

/** What is needed to open a TLS connection to one context's API server. */
export interface Connection {
  contextName: string;
  server: string;
  ca: Buffer;
  /** Client certificate and key; absent for an anonymous connection. */
  cert?: Buffer;
  key?: Buffer;
}

type Fields = Record<string, unknown>;

function named(list: unknown, kind: string, name: string, field: string): Fields {
  if (!Array.isArray(list)) throw new Error(`kubeconfig has no ${kind}s list`);
  const item = (list as Fields[]).find((entry) => entry.name === name);
  if (!item) throw new Error(`kubeconfig has no ${kind} named ${JSON.stringify(name)}`);
  const value = item[field];
  if (!value || typeof value !== 'object')
    throw new Error(`kubeconfig ${kind} ${JSON.stringify(name)} has no ${field}`);
  return value as Fields;
}

function material(fields: Fields, dataKey: string, fileKey: string, baseDir: string): Buffer | undefined {
  const data = fields[dataKey];
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  const file = fields[fileKey];
  if (typeof file === 'string') return readFileSync(isAbsolute(file) ? file : resolve(baseDir, file));
  return undefined;
}

/**
 * Reads the server and the credentials of `contextName` (default: the current context)
 * from kubeconfig text. Only client-certificate users are supported: the fleet has no other.
 * `path` resolves relative file references.
 */
export function connectionFromKubeconfig(text: string, contextName?: string, path = 'kubeconfig'): Connection {
  const config = parse(text) as Fields | null;
  if (!config || typeof config !== 'object') throw new Error(`${path} is not a kubeconfig`);
  const name = contextName ?? (config['current-context'] as string | undefined);
  if (!name) throw new Error(`${path} has no current context and none was asked for`);
  const context = named(config.contexts, 'context', name, 'context');
  const cluster = named(config.clusters, 'cluster', String(context.cluster), 'cluster');
  const user = named(config.users, 'user', String(context.user), 'user');
  const baseDir = dirname(path);
  const server = cluster.server;
  if (typeof server !== 'string') throw new Error(`${path}: cluster ${String(context.cluster)} has no server`);
  const ca = material(cluster, 'certificate-authority-data', 'certificate-authority', baseDir);
  if (!ca) throw new Error(`${path}: cluster ${String(context.cluster)} has no certificate authority`);
  const cert = material(user, 'client-certificate-data', 'client-certificate', baseDir);
  const key = material(user, 'client-key-data', 'client-key', baseDir);
  if (!cert || !key) throw new Error(`${path}: user ${String(context.user)} has no client certificate and key`);
  return { contextName: name, server, ca, cert, key };
}
