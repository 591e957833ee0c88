// Which environment variables `@timoni(runtime:...)` attributes may read, and which of
// them are secrets.
//
// Timoni's `--runtime-from-env` offers the whole environment. In a CI job the environment
// also holds the job's own credentials: the action's inputs (`INPUT_GITHUB-TOKEN`,
// `INPUT_KUBECONFIG`), the runner's tokens (`ACTIONS_RUNTIME_TOKEN`,
// `ACTIONS_ID_TOKEN_REQUEST_TOKEN`) and `GITHUB_TOKEN`. A bundle on a pull request is the
// PR author's code, so those are never offered, whatever the options say.
//
// Some variables hold text that the pull request's author chose (the branch name, their
// login). They are not secrets: masking them would let the author hide text from reviewers
// (a branch named like a registry host turns `image: host/app:1` into `image: ***:1`). They
// are offered only when named in the allow-list, and are never masked.
//
// What is masked: a value offered here is not a secret for being an environment value (a
// registry host, a region, `GITHUB_REPOSITORY` are shown as they are). It is masked when
// its variable's name says it holds a credential (`DB_PASSWORD`, `NPM_TOKEN`, `SSH_KEY`:
// see isCredentialName), or when it is a URL that carries a password
// (`postgres://user:pass@host`). The run's registered secrets (tokens, keys) are never
// offered at all, and values read from cluster Secrets are masked where they are read
// (runtime-queries.ts).

import { isJobCredentialVariable } from '../secrets.js';

/** Variables whose text the pull request's author controls: offered only when allow-listed, never secret. */
export const AUTHOR_CONTROLLED_NAMES = new Set([
  'GITHUB_HEAD_REF',
  'GITHUB_REF_NAME',
  'GITHUB_ACTOR',
  'GITHUB_TRIGGERING_ACTOR',
  'GITHUB_ACTOR_ID',
  'GITHUB_EVENT_NAME',
]);

export class RuntimeEnvironmentError extends Error {
  override name = 'RuntimeEnvironmentError';
}

/** Words that say a variable holds a credential wherever they appear in its name (`GHTOKEN`, `DB_PASSWORD`). */
const CREDENTIAL_WORDS = ['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'CREDENTIAL', 'APIKEY', 'PRIVATEKEY', 'ACCESSKEY'];
/** Short words that say so only as a whole part of the name (`SSH_KEY`, `GH_PAT`, but not `KEYCLOAK_URL`). */
const CREDENTIAL_PARTS = new Set(['KEY', 'KEYS', 'PASS', 'PWD', 'AUTH', 'CREDS', 'PAT', 'DSN']);
/** `scheme://user:password@host...`: a URL that carries a password, whatever the variable's name. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*:[^/?#@\s]+@/i;

/** True when a variable's name says that it holds a credential. */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (CREDENTIAL_WORDS.some((word) => upper.includes(word))) return true;
  return upper.split(/[^A-Z0-9]+/).some((part) => CREDENTIAL_PARTS.has(part));
}

/**
 * True when a value offered to runtime attributes is masked in reports: its variable's name
 * says it is a credential, or the value is a URL with a password. Author-controlled text is
 * never masked (masking it would let the author hide text from reviewers).
 */
export function isSecretEnvironmentValue(name: string, value: string): boolean {
  if (AUTHOR_CONTROLLED_NAMES.has(name)) return false;
  return isCredentialName(name) || URL_WITH_PASSWORD.test(value.trim());
}

export interface RuntimeEnvironmentOptions {
  /** Offer every variable (Timoni's --runtime-from-env), less credentials and author-controlled text. */
  all: boolean;
  /** Names offered explicitly (the recommended form); author-controlled names may be listed here. */
  allowed: readonly string[];
  /** Values registered as secrets of the run (tokens, keys): never offered, whatever their name. */
  isRegisteredSecret?: (value: string) => boolean;
}

/**
 * The variables offered to runtime attributes. Undefined when none are (neither option
 * given), so that an attribute reading the environment fails as in Timoni without
 * --runtime-from-env.
 */
export function runtimeEnvironment(env: Record<string, string | undefined>, options: RuntimeEnvironmentOptions): Record<string, string> | undefined {
  if (!options.all && options.allowed.length === 0) return undefined;
  for (const name of options.allowed) {
    if (isJobCredentialVariable(name)) {
      throw new RuntimeEnvironmentError(`runtime-env: ${name} holds a credential of the job itself and is never given to runtime attributes`);
    }
  }
  const offered: Record<string, string> = {};
  const allowed = new Set(options.allowed);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isJobCredentialVariable(name)) continue;
    if (!allowed.has(name) && (!options.all || AUTHOR_CONTROLLED_NAMES.has(name))) continue;
    if (options.isRegisteredSecret?.(value)) continue;
    offered[name] = value;
  }
  return offered;
}

/** Splits a list of variable names given on several lines or separated by commas. */
export function parseVariableNames(text: string, what: string): string[] {
  const names = text
    .split(/[\n,]/)
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RuntimeEnvironmentError(`${what}: "${name}" is not an environment variable name`);
  }
  return names;
}
