// Kubeconfig: parsed from strings (YAML, or base64 of it), several documents merged as
// kubectl merges files (the first definition of a name wins), contexts looked up by name.
// Credentials are registered as secrets the moment they are read.
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isRecord } from '../object.js';
import type { SecretRegistry } from '../../secrets.js';

export interface KubeconfigCluster {
  server: string;
  certificateAuthority?: string;
  certificateAuthorityData?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  /** Folder that relative file paths of this entry resolve against. */
  baseDir: string;
}

export interface ExecEnvVar {
  name: string;
  value: string;
}

export interface ExecConfig {
  command: string;
  args: string[];
  env: ExecEnvVar[];
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  /** Where the plugin runs: the kubeconfig file's folder, or the temporary folder for inline kubeconfigs. */
  workingDirectory: string;
}

export interface KubeconfigUser {
  clientCertificate?: string;
  clientCertificateData?: string;
  clientKey?: string;
  clientKeyData?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  /** Set when the user uses the removed `auth-provider` mechanism (not supported). */
  authProvider?: string;
  impersonate?: string;
  impersonateGroups: string[];
  impersonateUid?: string;
  baseDir: string;
}

export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
}

export interface Kubeconfig {
  currentContext?: string;
  clusters: Map<string, KubeconfigCluster>;
  users: Map<string, KubeconfigUser>;
  contexts: Map<string, KubeconfigContext>;
}

/** One kubeconfig text and where it came from (for messages and relative paths). */
export interface KubeconfigSource {
  text: string;
  /** File path, when the text was read from a file. */
  path?: string;
}

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

/** Asked-for context absent; the message lists the contexts that exist (names only). */
export class KubeContextNotFoundError extends KubeconfigError {
  override name = 'KubeContextNotFoundError';
  constructor(
    readonly context: string,
    readonly available: string[],
  ) {
    super(
      `kube context ${JSON.stringify(context)} not found in kubeconfig; ` +
        (available.length ? `contexts: ${available.join(', ')}` : 'the kubeconfig has no contexts'),
    );
  }
}

/** Kubeconfig text or base64 of it: base64 has no `:` and only base64 characters. */
export function decodeKubeconfigText(text: string): string {
  const compact = text.replace(/\s+/g, '');
  if (compact && !text.includes(':') && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) {
    return Buffer.from(compact, 'base64').toString('utf8');
  }
  return text;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function bool(value: unknown): boolean {
  return value === true || value === 'true';
}

function namedEntries(list: unknown, field: string, where: string): Array<[string, Record<string, unknown>]> {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeconfigError(`${where}: ${field}s is not a list`);
  return list.flatMap((item, i): Array<[string, Record<string, unknown>]> => {
    if (!isRecord(item) || typeof item.name !== 'string') {
      throw new KubeconfigError(`${where}: ${field}s[${i}] has no name`);
    }
    const body = item[field];
    return [[item.name, isRecord(body) ? body : {}]];
  });
}

/**
 * The plugin's command as kubectl resolves it: a bare name is looked up on PATH; a relative
 * path with a separator is resolved against the kubeconfig file's folder, never against the
 * working directory (on a pull request the workspace holds the author's scripts). A
 * kubeconfig given inline (an action input) has no folder, so such a path is refused.
 */
function execCommand(command: string, fileDir: string | undefined, where: string): string {
  if (isAbsolute(command) || !/[\\/]/.test(command)) return command;
  if (fileDir !== undefined) return resolve(fileDir, command);
  throw new KubeconfigError(
    `${where}: exec command ${JSON.stringify(command)} is a relative path, which kubectl resolves against the kubeconfig file's folder; this kubeconfig was given inline, so give an absolute path or a command on PATH`,
  );
}

function parseExec(
  exec: Record<string, unknown>,
  where: string,
  fileDir: string | undefined,
  secrets: SecretRegistry,
): ExecConfig {
  const rawCommand = str(exec.command);
  if (!rawCommand) throw new KubeconfigError(`${where}: exec has no command`);
  const command = execCommand(rawCommand, fileDir, where);
  const env = Array.isArray(exec.env)
    ? exec.env.filter(isRecord).map((entry) => ({ name: String(entry.name ?? ''), value: String(entry.value ?? '') }))
    : [];
  for (const entry of env) secrets.register(entry.value);
  return {
    command,
    args: Array.isArray(exec.args) ? exec.args.map(String) : [],
    env,
    apiVersion: str(exec.apiVersion) ?? 'client.authentication.k8s.io/v1',
    installHint: str(exec.installHint),
    provideClusterInfo: bool(exec.provideClusterInfo),
    workingDirectory: fileDir ?? tmpdir(),
  };
}

function parseUser(
  name: string,
  user: Record<string, unknown>,
  baseDir: string,
  fileDir: string | undefined,
  where: string,
  secrets: SecretRegistry,
): KubeconfigUser {
  const parsed: KubeconfigUser = {
    clientCertificate: str(user['client-certificate']),
    clientCertificateData: str(user['client-certificate-data']),
    clientKey: str(user['client-key']),
    clientKeyData: str(user['client-key-data']),
    token: str(user.token),
    tokenFile: str(user.tokenFile),
    username: str(user.username),
    password: str(user.password),
    impersonate: str(user.as),
    impersonateGroups: Array.isArray(user['as-groups']) ? user['as-groups'].map(String) : [],
    impersonateUid: str(user['as-uid']),
    baseDir,
  };
  secrets.register(parsed.token);
  secrets.register(parsed.password);
  if (parsed.clientKeyData) {
    secrets.register(parsed.clientKeyData);
    secrets.register(Buffer.from(parsed.clientKeyData, 'base64').toString('utf8'));
  }
  if (isRecord(user.exec))
    parsed.exec = parseExec(user.exec, `${where}: user ${JSON.stringify(name)}`, fileDir, secrets);
  if (isRecord(user['auth-provider'])) parsed.authProvider = str(user['auth-provider'].name) ?? 'unnamed';
  return parsed;
}

function parseCluster(cluster: Record<string, unknown>, baseDir: string): KubeconfigCluster {
  return {
    server: str(cluster.server) ?? '',
    certificateAuthority: str(cluster['certificate-authority']),
    certificateAuthorityData: str(cluster['certificate-authority-data']),
    insecureSkipTlsVerify: bool(cluster['insecure-skip-tls-verify']),
    tlsServerName: str(cluster['tls-server-name']),
    proxyUrl: str(cluster['proxy-url']),
    baseDir,
  };
}

/**
 * The parser's reason for a YAML error, with its line and column: the first line of its
 * message without the trailing colon that introduces the excerpt of the file (which is left
 * out: a kubeconfig line may hold a credential).
 */
export function yamlReason(error: {
  message: string;
  code?: string;
  linePos?: Array<{ line: number; col: number }> | undefined;
}): string {
  const reason = (error.message.split('\n')[0] ?? '').replace(/:\s*$/, '').trim();
  if (reason) return reason;
  const at = error.linePos?.[0];
  return `${error.code ?? 'syntax error'}${at ? ` at line ${at.line}, column ${at.col}` : ''}`;
}

/**
 * Parses and merges kubeconfig texts. Within the sources, and within the YAML documents
 * of one source, the first definition of a cluster, user or context name wins, and the
 * first non-empty `current-context` wins (kubectl's merge of KUBECONFIG files).
 */
export function loadKubeconfig(sources: Array<string | KubeconfigSource>, secrets: SecretRegistry): Kubeconfig {
  const config: Kubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  sources.forEach((source, index) => {
    const { text, path } = typeof source === 'string' ? { text: source, path: undefined } : source;
    const where = path ?? `kubeconfig #${index + 1}`;
    const fileDir = path ? dirname(resolve(path)) : undefined;
    const baseDir = fileDir ?? process.cwd();
    // The whole text is a secret too, as one document (its lines, `apiVersion: v1`, are not):
    // no value that holds it is offered to runtime attributes (SecretRegistry.secretIn).
    const decoded = decodeKubeconfigText(text);
    secrets.registerDocument(text);
    if (decoded !== text) secrets.registerDocument(decoded);
    const documents = parseAllDocuments(decoded);
    const list = Array.isArray(documents) ? documents : [documents];
    for (const document of list) {
      if (document.errors.length > 0) {
        throw new KubeconfigError(`${where} is not valid YAML: ${yamlReason(document.errors[0]!)}`);
      }
      const raw: unknown = document.toJS();
      if (raw === null || raw === undefined) continue;
      if (!isRecord(raw)) throw new KubeconfigError(`${where} is not a kubeconfig (expected a mapping)`);
      if (!config.currentContext && str(raw['current-context'])) config.currentContext = str(raw['current-context']);
      for (const [name, body] of namedEntries(raw.clusters, 'cluster', where)) {
        if (!config.clusters.has(name)) config.clusters.set(name, parseCluster(body, baseDir));
      }
      for (const [name, body] of namedEntries(raw.users, 'user', where)) {
        if (!config.users.has(name)) config.users.set(name, parseUser(name, body, baseDir, fileDir, where, secrets));
      }
      for (const [name, body] of namedEntries(raw.contexts, 'context', where)) {
        if (!config.contexts.has(name)) {
          config.contexts.set(name, {
            cluster: String(body.cluster ?? ''),
            user: String(body.user ?? ''),
            namespace: str(body.namespace),
          });
        }
      }
    }
  });
  return config;
}

export interface ResolvedContext {
  contextName: string;
  clusterName: string;
  userName: string;
  cluster: KubeconfigCluster;
  user: KubeconfigUser;
  namespace?: string;
}

/** The context by name, or the current context when no name is given. */
export function resolveContext(config: Kubeconfig, name?: string): ResolvedContext {
  const contextName = name || config.currentContext;
  if (!contextName) {
    throw new KubeconfigError(
      `kubeconfig has no current-context and no context was asked for; contexts: ${[...config.contexts.keys()].join(', ') || 'none'}`,
    );
  }
  const context = config.contexts.get(contextName);
  if (!context) throw new KubeContextNotFoundError(contextName, [...config.contexts.keys()]);
  const cluster = config.clusters.get(context.cluster);
  if (!cluster)
    throw new KubeconfigError(
      `kube context ${JSON.stringify(contextName)} refers to cluster ${JSON.stringify(context.cluster)}, which is not in the kubeconfig`,
    );
  if (!cluster.server)
    throw new KubeconfigError(
      `cluster ${JSON.stringify(context.cluster)} of kube context ${JSON.stringify(contextName)} has no server`,
    );
  // A context without a user connects anonymously, as kubectl does.
  const user = context.user ? config.users.get(context.user) : { impersonateGroups: [], baseDir: cluster.baseDir };
  if (!user)
    throw new KubeconfigError(
      `kube context ${JSON.stringify(contextName)} refers to user ${JSON.stringify(context.user)}, which is not in the kubeconfig`,
    );
  return {
    contextName,
    clusterName: context.cluster,
    userName: context.user,
    cluster,
    user,
    namespace: context.namespace,
  };
}

/** A file path of a kubeconfig entry, resolved against the file that declared it. */
export function resolveEntryPath(baseDir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}
