// What it takes to talk to the API server of one kube context: server URL, TLS material,
// proxy, and the credentials put on each request (client certificate, bearer token,
// token file, basic auth or an exec plugin).
import { readFileSync } from 'node:fs';
import { ExecCredentialPlugin } from './exec-credential.js';
import {
  KubeconfigError,
  resolveContext,
  resolveEntryPath,
  type Kubeconfig,
  type KubeconfigCluster,
  type KubeconfigUser,
} from './kubeconfig.js';
import { proxyFromEnvironment } from '../../net/proxy-environment.js';
import { isSupportedProxy } from '../../net/proxy-transport.js';
import type { SecretRegistry } from '../../secrets.js';

/** What a request carries to authenticate. */
export interface RequestAuth {
  /** A list is sent as one header line per value (Impersonate-Group). */
  headers: Record<string, string | string[]>;
  /** PEM client certificate and key for the TLS handshake. */
  cert?: Buffer;
  key?: Buffer;
}

export interface ClusterConnection {
  /** Name used in messages: the fleet's cluster name, or the context name. */
  name: string;
  contextName: string;
  server: URL;
  namespace?: string;
  ca?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
  proxyUrl?: URL;
  /** Credentials of the next request (may run an exec plugin). */
  auth(): Promise<RequestAuth>;
  /** Drops cached credentials after a 401; true when asking again may help. */
  invalidate(): boolean;
}

export interface ConnectionOptions {
  secrets: SecretRegistry;
  /** Name used in messages instead of the context name (e.g. the runtime's cluster name). */
  name?: string;
  /** Time limit of an exec credential plugin run; default 60 s. */
  execTimeoutMs?: number;
  /** Environment read for HTTPS_PROXY / NO_PROXY when the cluster has no proxy-url; default process.env. */
  env?: NodeJS.ProcessEnv;
}

function readMaterial(
  data: string | undefined,
  file: string | undefined,
  baseDir: string,
  what: string,
  subject: string,
): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  if (!file) return undefined;
  const path = resolveEntryPath(baseDir, file);
  try {
    return readFileSync(path);
  } catch (error) {
    throw new KubeconfigError(
      `${subject}: cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

const tokenFileTtlMs = 60_000;

function authFor(
  user: KubeconfigUser,
  subject: string,
  options: ConnectionOptions,
  cluster: KubeconfigCluster,
): {
  auth: () => Promise<RequestAuth>;
  invalidate: () => boolean;
} {
  const { secrets } = options;
  const headers: Record<string, string | string[]> = {};
  if (user.impersonate) headers['Impersonate-User'] = user.impersonate;
  if (user.impersonateUid) headers['Impersonate-Uid'] = user.impersonateUid;
  // One header line per group: the API server takes each line as one group name and does
  // not split a comma-joined value (`dev, ops` would be a single group).
  if (user.impersonateGroups.length) headers['Impersonate-Group'] = [...user.impersonateGroups];

  if (user.authProvider) {
    throw new KubeconfigError(
      `${subject}: auth-provider ${JSON.stringify(user.authProvider)} is not supported; use an exec credential plugin`,
    );
  }
  const cert = readMaterial(
    user.clientCertificateData,
    user.clientCertificate,
    user.baseDir,
    'client certificate',
    subject,
  );
  const key = readMaterial(user.clientKeyData, user.clientKey, user.baseDir, 'client key', subject);
  secrets.register(key);
  if (!!cert !== !!key)
    throw new KubeconfigError(`${subject}: a client certificate needs both a certificate and a key`);
  const tls = cert && key ? { cert, key } : {};

  if (user.token) {
    const value = { headers: { ...headers, Authorization: `Bearer ${user.token}` }, ...tls };
    return { auth: async () => value, invalidate: () => false };
  }
  if (user.tokenFile) {
    const path = resolveEntryPath(user.baseDir, user.tokenFile);
    let cached: { token: string; readAt: number } | undefined;
    const read = (): string => {
      if (cached && Date.now() - cached.readAt < tokenFileTtlMs) return cached.token;
      let token: string;
      try {
        token = readFileSync(path, 'utf8').trim();
      } catch (error) {
        throw new KubeconfigError(
          `${subject}: cannot read tokenFile ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        );
      }
      secrets.register(token);
      cached = { token, readAt: Date.now() };
      return token;
    };
    return {
      auth: async () => ({ headers: { ...headers, Authorization: `Bearer ${read()}` }, ...tls }),
      invalidate: () => {
        cached = undefined;
        return true;
      },
    };
  }
  if (user.username || user.password) {
    const basic = Buffer.from(`${user.username ?? ''}:${user.password ?? ''}`).toString('base64');
    secrets.register(basic);
    const value = { headers: { ...headers, Authorization: `Basic ${basic}` }, ...tls };
    return { auth: async () => value, invalidate: () => false };
  }
  if (user.exec) {
    // A relative command with a path in it is relative to the kubeconfig (as client-go has it).
    const command = user.exec.command.includes('/')
      ? resolveEntryPath(user.baseDir, user.exec.command)
      : user.exec.command;
    const plugin = new ExecCredentialPlugin(
      { ...user.exec, command },
      { subject, timeoutMs: options.execTimeoutMs ?? 60_000, cluster, secrets },
    );
    return {
      auth: async () => {
        const credential = await plugin.credential();
        if (credential.token) return { headers: { ...headers, Authorization: `Bearer ${credential.token}` }, ...tls };
        return {
          headers,
          cert: Buffer.from(credential.clientCertificateData ?? ''),
          key: Buffer.from(credential.clientKeyData ?? ''),
        };
      },
      invalidate: () => {
        plugin.invalidate();
        return true;
      },
    };
  }
  const value = { headers, ...tls };
  return { auth: async () => value, invalidate: () => false };
}

/** The connection of a kube context (default: the current context). */
export function connectionFor(
  config: Kubeconfig,
  contextName: string | undefined,
  options: ConnectionOptions,
): ClusterConnection {
  const resolved = resolveContext(config, contextName);
  const { cluster, user } = resolved;
  const subject = `user ${JSON.stringify(resolved.userName)} of kube context ${JSON.stringify(resolved.contextName)}`;
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)} has an invalid server URL`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new KubeconfigError(
      `cluster ${JSON.stringify(resolved.clusterName)}: server URL scheme ${server.protocol} is not supported`,
    );
  }
  const ca = readMaterial(
    cluster.certificateAuthorityData,
    cluster.certificateAuthority,
    cluster.baseDir,
    'certificate authority',
    `cluster ${JSON.stringify(resolved.clusterName)}`,
  );
  if (ca && cluster.insecureSkipTlsVerify) {
    throw new KubeconfigError(
      `cluster ${JSON.stringify(resolved.clusterName)}: a certificate authority together with insecure-skip-tls-verify is not allowed`,
    );
  }
  let proxyUrl: URL | undefined = cluster.proxyUrl
    ? undefined
    : proxyFromEnvironment(server, options.env ?? process.env);
  if (cluster.proxyUrl) {
    try {
      proxyUrl = new URL(cluster.proxyUrl);
    } catch {
      throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)} has an invalid proxy-url`);
    }
  }
  if (proxyUrl) {
    if (!isSupportedProxy(proxyUrl)) {
      const source = cluster.proxyUrl ? 'proxy-url' : 'HTTPS_PROXY';
      throw new KubeconfigError(
        `cluster ${JSON.stringify(resolved.clusterName)}: ${source} scheme ${proxyUrl.protocol} is not supported (only http:// and https:// CONNECT proxies)`,
      );
    }
    options.secrets.register(decodeURIComponent(proxyUrl.password));
  }
  const { auth, invalidate } = authFor(user, subject, options, cluster);
  return {
    name: options.name ?? resolved.contextName,
    contextName: resolved.contextName,
    server,
    namespace: resolved.namespace,
    ca,
    rejectUnauthorized: !cluster.insecureSkipTlsVerify,
    servername: cluster.tlsServerName,
    proxyUrl,
    auth,
    invalidate,
  };
}
