// What the client may present to a registry, and where it came from: explicit credentials
// (`--creds`, the action's `registry-creds`), docker's `config.json` with its credential
// helpers, `GITHUB_TOKEN` for ghcr.io, or none. The `source` is a description safe to print
// ("--creds", "docker config /home/u/.docker/config.json (auths["ghcr.io"])",
// "GITHUB_TOKEN"); the values never are: every one is registered as a secret.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { OciError } from './errors.js';
import { DOCKER_HUB_NAME } from './reference.js';
import type { SecretRegistry as SecretRedactor } from '../../secrets.js';

export type Credential =
  | { kind: 'anonymous'; source: string }
  /** user:password; sent as Basic to the registry or to its token endpoint. */
  | { kind: 'basic'; username: string; password: string; source: string }
  /** A registry token sent as-is: `Authorization: Bearer <token>` (Timoni's bare `--creds`). */
  | { kind: 'bearer'; token: string; source: string }
  /** An OAuth2 refresh token (docker `identitytoken`), exchanged at the token endpoint. */
  | { kind: 'identity'; username: string; refreshToken: string; source: string };

export interface CredentialOptions extends DockerConfigOptions {
  /** Timoni's `--creds`: `user:password` for basic auth, or a bare token for bearer auth. */
  credentials?: string;
  /**
   * Explicit credentials bound to registry hosts (the action's `registry-creds`); when given,
   * `credentials` is ignored and a registry without an entry gets none of them.
   */
  hostCredentials?: Record<string, string>;
}

/** Where explicit credentials come from, as messages name them. */
const EXPLICIT_SOURCES = ['--creds', 'registry-creds'];

/** True for credentials the user gave explicitly (bound to hosts), not docker config or GITHUB_TOKEN. */
export function isExplicitCredential(credential: Credential): boolean {
  return EXPLICIT_SOURCES.some((source) => credential.source.startsWith(source));
}

/** The explicit credential for a host (`registry-creds` entry, or `--creds`), if any. */
export function explicitCredentialFor(host: string, options: CredentialOptions): Credential | undefined {
  if (options.hostCredentials) {
    const entry = options.hostCredentials[host.toLowerCase()];
    return entry ? parseExplicitCredentials(entry, `registry-creds (${host})`) : undefined;
  }
  return options.credentials ? parseExplicitCredentials(options.credentials) : undefined;
}

/** Reads `--creds` as Timoni does: the first `:` splits user and password; no `:` is a token. */
export function parseExplicitCredentials(value: string, source = '--creds'): Credential {
  const colon = value.indexOf(':');
  if (colon === -1) return { kind: 'bearer', token: value, source };
  return { kind: 'basic', username: value.slice(0, colon), password: value.slice(colon + 1), source };
}

/** Registers the values of a credential with the redactor (and so with the caller's mask). */
export function registerSecrets(credential: Credential, secrets: SecretRedactor): void {
  switch (credential.kind) {
    case 'basic':
      secrets.add(credential.password);
      secrets.add(Buffer.from(`${credential.username}:${credential.password}`).toString('base64'));
      break;
    case 'bearer':
      secrets.add(credential.token);
      break;
    case 'identity':
      secrets.add(credential.refreshToken);
      break;
    case 'anonymous':
      break;
  }
}

/** A short description of a credential for messages: its source and kind, never its value. */
export function describeCredential(credential: Credential): string {
  if (credential.kind === 'anonymous') return `no credentials (${credential.source})`;
  const what =
    credential.kind === 'basic'
      ? `user "${credential.username}"`
      : credential.kind === 'bearer'
        ? 'a bearer token'
        : 'an identity token';
  return `${what} from ${credential.source}`;
}

/**
 * The credential for `registry`, in order: explicit `--creds`; docker `config.json`
 * (credHelpers, credsStore, auths); `GITHUB_TOKEN` for ghcr.io; otherwise anonymous.
 */
export async function resolveCredential(
  registry: string,
  url: string,
  options: CredentialOptions,
  secrets: SecretRedactor,
): Promise<Credential> {
  let credential = explicitCredentialFor(registry, options);
  const checked: string[] = [options.hostCredentials ? `registry-creds (no entry for ${registry})` : '--creds'];
  if (!credential) {
    const found = await lookupDockerConfig(registry, options, secrets).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new OciError('credentials', url, secrets.redact(message));
    });
    checked.push(found.checked);
    credential = found.credential;
  }
  const env = options.env ?? process.env;
  if (!credential && registry === 'ghcr.io' && env.GITHUB_TOKEN) {
    credential = {
      kind: 'basic',
      username: env.GITHUB_ACTOR || 'x-access-token',
      password: env.GITHUB_TOKEN,
      source: 'GITHUB_TOKEN',
    };
  }
  if (registry === 'ghcr.io') checked.push('GITHUB_TOKEN');
  credential ??= { kind: 'anonymous', source: `none configured for ${registry}; checked ${checked.join(', ')}` };
  registerSecrets(credential, secrets);
  return credential;
}

// Finds a registry's credentials in docker's `config.json` ($DOCKER_CONFIG/config.json or
// ~/.docker/config.json) as the docker CLI and go-containerregistry's default keychain
// do: `credHelpers[<registry>]`, else `credsStore`, else `auths[<registry>]` (`auth` as
// base64 user:password, or `username`/`password`, `identitytoken`, `registrytoken`).
// Keys match with or without scheme and path; Docker Hub is `https://index.docker.io/v1/`.

export interface DockerConfigOptions {
  /** Environment for DOCKER_CONFIG, HOME, PATH (of helpers) and GITHUB_TOKEN; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Folder of config.json; default $DOCKER_CONFIG, else ~/.docker. */
  dockerConfigDir?: string;
  /** Time a credential helper may take; default 10 s. */
  helperTimeoutMs?: number;
}

interface AuthEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
  registrytoken?: string;
}

interface DockerConfig {
  auths?: Record<string, AuthEntry>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

const DOCKER_HUB_KEY = 'https://index.docker.io/v1/';
const DOCKER_HUB_HOSTS = new Set([DOCKER_HUB_NAME, 'docker.io', 'registry-1.docker.io']);

export function dockerConfigPath(options: DockerConfigOptions): string {
  const env = options.env ?? process.env;
  const dir = options.dockerConfigDir ?? (env.DOCKER_CONFIG || join(env.HOME || homedir(), '.docker'));
  return join(dir, 'config.json');
}

/** `https://ghcr.io/v2/` -> `ghcr.io`; Docker Hub's names all become `index.docker.io`. */
export function normaliseRegistryKey(key: string): string {
  const host =
    key
      .replace(/^[a-z]+:\/\//i, '')
      .split('/')[0]
      ?.toLowerCase() ?? '';
  return DOCKER_HUB_HOSTS.has(host) ? DOCKER_HUB_NAME : host;
}

function findKey<T>(map: Record<string, T> | undefined, registry: string): string | undefined {
  if (!map) return undefined;
  const wanted = normaliseRegistryKey(registry);
  if (Object.hasOwn(map, registry)) return registry;
  return Object.keys(map).find((key) => normaliseRegistryKey(key) === wanted);
}

function fromEntry(entry: AuthEntry, source: string): Credential | undefined {
  let username = entry.username ?? '';
  let password = entry.password ?? '';
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) throw new Error(`${source}: "auth" is not base64 of user:password`);
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  if (entry.identitytoken) return { kind: 'identity', username, refreshToken: entry.identitytoken, source };
  if (entry.registrytoken) return { kind: 'bearer', token: entry.registrytoken, source };
  if (username !== '' || password !== '') return { kind: 'basic', username, password, source };
  return undefined;
}

async function fromHelper(
  helper: string,
  serverUrl: string,
  origin: string,
  options: DockerConfigOptions,
  secrets: SecretRedactor,
): Promise<Credential | undefined> {
  const found = await runCredentialHelper(helper, serverUrl, origin, {
    env: options.env,
    timeoutMs: options.helperTimeoutMs,
  });
  if (!found || found.secret === '') return undefined;
  const source = `docker-credential-${helper} (${origin})`;
  secrets.add(found.secret);
  if (found.username === '<token>') return { kind: 'identity', username: '', refreshToken: found.secret, source };
  return { kind: 'basic', username: found.username, password: found.secret, source };
}

export interface DockerConfigResult {
  credential: Credential | undefined;
  /** What was looked at, for the "no credentials" message: `docker config <path>`. */
  checked: string;
}

export async function lookupDockerConfig(
  registry: string,
  options: DockerConfigOptions,
  secrets: SecretRedactor,
): Promise<DockerConfigResult> {
  const path = dockerConfigPath(options);
  const checked = `docker config ${path}`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { credential: undefined, checked: `${checked} (absent)` };
    throw new Error(`reading docker config ${path} failed: ${(error as Error).message}`);
  }
  let config: DockerConfig;
  try {
    config = JSON.parse(text) as DockerConfig;
  } catch {
    throw new Error(`docker config ${path} is not valid JSON`);
  }
  if (typeof config !== 'object' || config === null) throw new Error(`docker config ${path} is not a JSON object`);
  const serverUrl = normaliseRegistryKey(registry) === DOCKER_HUB_NAME ? DOCKER_HUB_KEY : registry;

  const helperKey = findKey(config.credHelpers, registry);
  if (helperKey !== undefined && config.credHelpers) {
    const helper = config.credHelpers[helperKey] ?? '';
    const credential = await fromHelper(
      helper,
      serverUrl,
      `credHelpers[${JSON.stringify(helperKey)}] in ${path}`,
      options,
      secrets,
    );
    return { credential, checked };
  }
  if (config.credsStore) {
    const credential = await fromHelper(config.credsStore, serverUrl, `credsStore in ${path}`, options, secrets);
    if (credential) return { credential, checked };
  }
  const authKey = findKey(config.auths, registry);
  if (authKey !== undefined && config.auths) {
    const entry = config.auths[authKey] ?? {};
    secrets.add(entry.auth);
    secrets.add(entry.password);
    secrets.add(entry.identitytoken);
    secrets.add(entry.registrytoken);
    return { credential: fromEntry(entry, `docker config ${path} (auths[${JSON.stringify(authKey)}])`), checked };
  }
  return { credential: undefined, checked };
}

// Runs a docker credential helper (`docker-credential-<name> get`) as the docker CLI does:
// the server URL on stdin, `{"ServerURL","Username","Secret"}` on stdout. A missing binary,
// a timeout and a failure each give a clear error; "credentials not found" gives undefined.

export interface HelperCredentials {
  username: string;
  secret: string;
}

export interface HelperOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const MAX_OUTPUT = 1024 * 1024;

export async function runCredentialHelper(
  name: string,
  serverUrl: string,
  origin: string,
  options: HelperOptions = {},
): Promise<HelperCredentials | undefined> {
  const binary = `docker-credential-${name}`;
  if (!/^[A-Za-z0-9._-]+$/.test(name))
    throw new Error(`credential helper name ${JSON.stringify(name)} (${origin}) is not a plain name`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['get'], { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new Error(`credential helper ${binary} (${origin}) did not answer within ${timeoutMs} ms`)));
    }, timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) {
        child.kill('SIGKILL');
        finish(() => reject(new Error(`credential helper ${binary} (${origin}) wrote more than ${MAX_OUTPUT} bytes`)));
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    child.stdin.on('error', () => undefined); // a helper that exits without reading stdin
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(() =>
        reject(
          error.code === 'ENOENT'
            ? new Error(`credential helper ${binary} (${origin}) is not installed: no ${binary} in PATH`)
            : new Error(`credential helper ${binary} (${origin}) could not be started: ${error.message}`),
        ),
      );
    });
    child.on('close', (code, signal) => {
      const out = Buffer.concat(stdout).toString('utf8').trim();
      if (code !== 0) {
        if (/credentials not found/i.test(out)) {
          finish(() => resolve(undefined));
          return;
        }
        // The helper's own words are shown (first line only); the caller redacts known secrets.
        const said = (Buffer.concat(stderr).toString('utf8').trim() || out).split('\n')[0]?.slice(0, 200) ?? '';
        finish(() =>
          reject(
            new Error(
              `credential helper ${binary} (${origin}) failed (${signal ?? `exit ${code}`})${said ? `: ${said}` : ''}`,
            ),
          ),
        );
        return;
      }
      try {
        const parsed = JSON.parse(out) as { Username?: unknown; Secret?: unknown };
        if (typeof parsed.Secret !== 'string') throw new Error('no Secret');
        finish(() =>
          resolve({
            username: typeof parsed.Username === 'string' ? parsed.Username : '',
            secret: parsed.Secret as string,
          }),
        );
      } catch {
        finish(() =>
          reject(
            new Error(
              `credential helper ${binary} (${origin}) printed something that is not {"Username","Secret"} JSON`,
            ),
          ),
        );
      }
    });
    child.stdin.end(serverUrl);
  });
}
