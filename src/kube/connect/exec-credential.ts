// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1): the plugin is run
// with KUBERNETES_EXEC_INFO, its ExecCredential output is cached until it expires. Env
// values and outputs are secrets.
import { spawn } from 'node:child_process';
import type { ExecConfig, KubeconfigCluster } from './kubeconfig.js';
import { isRecord } from '../object.js';
import { withoutJobCredentials, type SecretRegistry } from '../../secrets.js';

export interface ExecCredential {
  token?: string;
  /** PEM client certificate and key, when the plugin returns them. */
  clientCertificateData?: string;
  clientKeyData?: string;
  /** When the credential stops being valid; undefined = valid for the process lifetime. */
  expiresAt?: number;
}

export class ExecCredentialError extends Error {
  override name = 'ExecCredentialError';
}

const supportedVersions = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

export interface ExecPluginOptions {
  /** What the messages name: the user and context. */
  subject: string;
  timeoutMs: number;
  cluster?: KubeconfigCluster;
  secrets: SecretRegistry;
}

function execInfo(config: ExecConfig, cluster: KubeconfigCluster | undefined): string {
  const spec: Record<string, unknown> = { interactive: false };
  if (config.provideClusterInfo && cluster) {
    spec.cluster = {
      server: cluster.server,
      ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
      ...(cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(cluster.certificateAuthorityData ? { 'certificate-authority-data': cluster.certificateAuthorityData } : {}),
      ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
    };
  }
  return JSON.stringify({ apiVersion: config.apiVersion, kind: 'ExecCredential', spec });
}

function run(config: ExecConfig, options: ExecPluginOptions): Promise<string> {
  const { subject, timeoutMs, secrets } = options;
  // The plugin gets what a plugin needs (PATH, HOME, cloud credentials, its own env entries),
  // never the job's own credentials (the action's inputs, the runner's tokens), and runs
  // outside the workspace, which on a pull request holds the author's files.
  const env: NodeJS.ProcessEnv = {
    ...withoutJobCredentials(process.env),
    KUBERNETES_EXEC_INFO: execInfo(config, options.cluster),
  };
  for (const entry of config.env) env[entry.name] = entry.value;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(config.command, config.args, {
      env,
      cwd: config.workingDirectory,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new ExecCredentialError(
          `exec credential plugin ${JSON.stringify(config.command)} of ${subject} did not answer within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT') {
        const hint = config.installHint ? `; ${config.installHint.trim()}` : '';
        reject(
          new ExecCredentialError(
            `exec credential plugin ${JSON.stringify(config.command)} of ${subject} was not found (is it installed and on PATH?)${hint}`,
          ),
        );
      } else {
        reject(
          new ExecCredentialError(
            `exec credential plugin ${JSON.stringify(config.command)} of ${subject} could not start: ${error.message}`,
          ),
        );
      }
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const out = Buffer.concat(stdout).toString('utf8');
      secrets.register(out, true);
      if (code !== 0) {
        const err = secrets.redact(Buffer.concat(stderr).toString('utf8').trim()).slice(0, 500);
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        reject(
          new ExecCredentialError(
            `exec credential plugin ${JSON.stringify(config.command)} of ${subject} ${how}${err ? `: ${err}` : ''}`,
          ),
        );
        return;
      }
      resolvePromise(out);
    });
  });
}

/** Reads an ExecCredential document; every credential in it is registered first. */
export function parseExecCredential(
  output: string,
  config: ExecConfig,
  subject: string,
  secrets: SecretRegistry,
): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    throw new ExecCredentialError(
      `exec credential plugin ${JSON.stringify(config.command)} of ${subject} did not print an ExecCredential JSON document`,
    );
  }
  if (!isRecord(parsed) || parsed.kind !== 'ExecCredential') {
    throw new ExecCredentialError(
      `exec credential plugin ${JSON.stringify(config.command)} of ${subject} printed something that is not an ExecCredential`,
    );
  }
  if (parsed.apiVersion !== config.apiVersion) {
    throw new ExecCredentialError(
      `exec credential plugin ${JSON.stringify(config.command)} of ${subject} answered with apiVersion ${JSON.stringify(parsed.apiVersion)}, expected ${JSON.stringify(config.apiVersion)}`,
    );
  }
  const status = isRecord(parsed.status) ? parsed.status : {};
  const credential: ExecCredential = {
    token: typeof status.token === 'string' && status.token ? status.token : undefined,
    clientCertificateData: typeof status.clientCertificateData === 'string' ? status.clientCertificateData : undefined,
    clientKeyData: typeof status.clientKeyData === 'string' ? status.clientKeyData : undefined,
  };
  secrets.register(credential.token);
  secrets.register(credential.clientKeyData);
  if (typeof status.expirationTimestamp === 'string') {
    const at = Date.parse(status.expirationTimestamp);
    if (!Number.isNaN(at)) credential.expiresAt = at;
  }
  if (!credential.token && !(credential.clientCertificateData && credential.clientKeyData)) {
    throw new ExecCredentialError(
      `exec credential plugin ${JSON.stringify(config.command)} of ${subject} returned neither a token nor a client certificate and key`,
    );
  }
  return credential;
}

/** Runs a plugin when needed and keeps its credential until it expires or is refused. */
export class ExecCredentialPlugin {
  private cached?: ExecCredential;
  private pending?: Promise<ExecCredential>;

  constructor(
    private readonly config: ExecConfig,
    private readonly options: ExecPluginOptions,
  ) {
    if (!supportedVersions.includes(config.apiVersion)) {
      throw new ExecCredentialError(
        `exec credential plugin of ${options.subject} uses apiVersion ${JSON.stringify(config.apiVersion)}; supported: ${supportedVersions.join(', ')}`,
      );
    }
  }

  async credential(): Promise<ExecCredential> {
    // Renew ten seconds before the expiry, so that a request does not carry a dying token.
    if (this.cached && (this.cached.expiresAt === undefined || this.cached.expiresAt - 10_000 > Date.now()))
      return this.cached;
    this.pending ??= run(this.config, this.options)
      .then((output) => parseExecCredential(output, this.config, this.options.subject, this.options.secrets))
      .finally(() => {
        this.pending = undefined;
      });
    this.cached = await this.pending;
    return this.cached;
  }

  /** Forgets the cached credential (the server refused it). */
  invalidate(): void {
    this.cached = undefined;
  }
}
