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
// What is never offered: a value that holds a secret of the run (a token, a key, the
// kubeconfig) anywhere in it or in one of its cheap encodings, or a URL with a password,
// as the caller's `secretIn` says (SecretRegistry.secretIn in ../secrets.ts, the one rule).
// Masking cannot help once such a value is offered: the bundle spaces it out. Under
// runtime-from-env such a variable is withheld and named to the caller (never its value);
// a variable listed in runtime-env is refused with an error naming it, as the workflow
// asked for something that is never given.
//
// What is masked: a value offered here is not a secret for being an environment value (a
// registry host, a region, `GITHUB_REPOSITORY` are shown as they are). It is masked when
// its variable's name says it holds a credential (`DB_PASSWORD`, `NPM_TOKEN`, `SSH_KEY`:
// see isCredentialName), or when it holds a URL that carries a password
// (`postgres://user:pass@host`, offered only by callers that do not withhold them: the
// CLI). Values read from cluster Secrets are masked where they are read (runtime-queries.ts).

import { containsUrlWithPassword, isJobCredentialVariable } from '../secrets.js';

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
const CREDENTIAL_WORDS = [
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'APIKEY',
  'PRIVATEKEY',
  'ACCESSKEY',
];
/** Short words that say so only as a whole part of the name (`SSH_KEY`, `GH_PAT`, but not `KEYCLOAK_URL`). */
const CREDENTIAL_PARTS = new Set(['KEY', 'KEYS', 'PASS', 'PWD', 'AUTH', 'CREDS', 'PAT', 'DSN']);

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
  return isCredentialName(name) || containsUrlWithPassword(value);
}

export interface RuntimeEnvironmentOptions {
  /** Offer every variable (Timoni's --runtime-from-env), less credentials and author-controlled text. */
  all: boolean;
  /** Names offered explicitly (the recommended form); author-controlled names may be listed here. */
  allowed: readonly string[];
  /**
   * Why a value holds a secret (a secret of the run in it, a URL with a password), in a
   * word, or undefined: such a value is never offered, whatever its variable's name.
   */
  secretIn?: (value: string) => string | undefined;
  /** Told the name of each variable withheld under `all` for holding a secret, and why in a word (never the value). */
  onWithheld?: (name: string, why: string) => void;
}

/**
 * The variables offered to runtime attributes. Undefined when none are (neither option
 * given), so that an attribute reading the environment fails as in Timoni without
 * --runtime-from-env. A listed variable that holds a secret is a RuntimeEnvironmentError
 * naming every such variable (names only).
 */
export function runtimeEnvironment(
  env: Record<string, string | undefined>,
  options: RuntimeEnvironmentOptions,
): Record<string, string> | undefined {
  if (!options.all && options.allowed.length === 0) return undefined;
  for (const name of options.allowed) {
    if (isJobCredentialVariable(name)) {
      throw new RuntimeEnvironmentError(
        `runtime-env: ${name} holds a credential of the job itself and is never given to runtime attributes`,
      );
    }
  }
  const offered: Record<string, string> = {};
  const allowed = new Set(options.allowed);
  const refused: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isJobCredentialVariable(name)) continue;
    const listed = allowed.has(name);
    if (!listed && (!options.all || AUTHOR_CONTROLLED_NAMES.has(name))) continue;
    const why = options.secretIn?.(value);
    if (why === undefined) offered[name] = value;
    else if (listed) refused.push(`${name} (${why})`);
    else options.onWithheld?.(name, why);
  }
  if (refused.length > 0) {
    throw new RuntimeEnvironmentError(
      `runtime-env: ${refused.join(', ')} ${refused.length === 1 ? 'holds' : 'hold'} a secret of the run or a URL with a password, which is never given to runtime attributes (a bundle can spell it out past any masking); remove ${refused.length === 1 ? 'it' : 'them'} from runtime-env`,
    );
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
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new RuntimeEnvironmentError(`${what}: "${name}" is not an environment variable name`);
  }
  return names;
}
