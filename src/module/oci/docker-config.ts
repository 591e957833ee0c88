// Finds a registry's credentials in docker's `config.json` ($DOCKER_CONFIG/config.json or
// ~/.docker/config.json) as the docker CLI and go-containerregistry's default keychain
// do: `credHelpers[<registry>]`, else `credsStore`, else `auths[<registry>]` (`auth` as
// base64 user:password, or `username`/`password`, `identitytoken`, `registrytoken`).
// Keys match with or without scheme and path; Docker Hub is `https://index.docker.io/v1/`.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runCredentialHelper } from './credential-helper.js';
import type { Credential } from './credentials.js';
import { DOCKER_HUB_NAME } from './reference.js';
import type { SecretRegistry as SecretRedactor } from '../../secrets.js';

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
  const host = key.replace(/^[a-z]+:\/\//i, '').split('/')[0]?.toLowerCase() ?? '';
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

async function fromHelper(helper: string, serverUrl: string, origin: string, options: DockerConfigOptions, secrets: SecretRedactor): Promise<Credential | undefined> {
  const found = await runCredentialHelper(helper, serverUrl, origin, { env: options.env, timeoutMs: options.helperTimeoutMs });
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

export async function lookupDockerConfig(registry: string, options: DockerConfigOptions, secrets: SecretRedactor): Promise<DockerConfigResult> {
  const path = dockerConfigPath(options);
  const checked = `docker config ${path}`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { credential: undefined, checked: `${checked} (absent)` };
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
    const credential = await fromHelper(helper, serverUrl, `credHelpers[${JSON.stringify(helperKey)}] in ${path}`, options, secrets);
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
