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
// kubeconfig) or a credential of a known shape (a URL or connection string with a password,
// a PEM private key, a kubeconfig's or Docker config's credentials), as the caller's
// `secretIn` says of a text as it stands (SecretRegistry.secretIn in ../secrets.ts, the one
// rule), asked of the value and of every layer of its encodings, decoded as an attacker
// would have encoded it (../encoded-text.ts: JSON strings, base64, hex, percent-encoding,
// gzip and zlib, one inside another), and a value too deeply encoded or too large to look
// into entirely. Masking cannot help once such a value is offered: the bundle spaces it out.
// Under runtime-from-env such a variable is withheld and named to the caller with why in a
// few words (never its value); a variable listed in runtime-env is refused with an error
// naming it, as the workflow asked for something that is never given.
//
// What cannot be recognised: a secret split over two variables, encrypted, or encoded in a
// way not listed above. runtime-env, the allow-list of names, offers only what it names.
//
// What is masked: a value offered here is not a secret for being an environment value (a
// registry host, a region, `GITHUB_REPOSITORY` are shown as they are). It is masked when
// its variable's name says it holds a credential (`DB_PASSWORD`, `NPM_TOKEN`, `SSH_KEY`:
// see isCredentialName), or when it holds a credential of a known shape
// (`postgres://user:pass@host`, credentialIn in ../secrets.ts; offered only by callers that
// do not withhold them: the CLI's vet and build). Values read from cluster Secrets are
// masked where they are read (runtime-queries.ts).

import { findInDecodings, MAX_DECODED_CHARS, MAX_DECODING_DEPTH } from '../encoded-text.js';
import { credentialIn, isJobCredentialVariable } from '../secrets.js';

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
 * says it is a credential, or the value holds a credential's shape. Author-controlled text is
 * never masked (masking it would let the author hide text from reviewers).
 */
export function isSecretEnvironmentValue(name: string, value: string): boolean {
  if (AUTHOR_CONTROLLED_NAMES.has(name)) return false;
  return isCredentialName(name) || credentialIn(value) !== undefined;
}

export interface RuntimeEnvironmentOptions {
  /** Offer every variable (Timoni's --runtime-from-env), less credentials and author-controlled text. */
  all: boolean;
  /** Names offered explicitly (the recommended form); author-controlled names may be listed here. */
  allowed: readonly string[];
  /**
   * Why a text, as it stands, holds a secret (a secret of the run in it, a credential's
   * shape), in a word, or undefined. Asked of each value and every layer of its encodings
   * (withholdingReason): a value for which it answers is never offered, whatever its name.
   */
  secretIn?: (text: string) => string | undefined;
  /** Told the name of each variable withheld under `all` for holding a secret, and why in a word (never the value). */
  onWithheld?: (name: string, why: string) => void;
}

/**
 * Why a value is never given to runtime attributes, in a few words (never the value), or
 * undefined when it may be: what `secretIn` finds in the value or in any layer of its
 * encodings (`secret in base64 in JSON`), or the bound that kept part of it from being
 * looked into (../encoded-text.ts).
 */
export function withholdingReason(value: string, secretIn: (text: string) => string | undefined): string | undefined {
  const result = findInDecodings(value, secretIn);
  if (result === undefined) return undefined;
  if ('limit' in result) {
    return result.limit === 'depth'
      ? `encoded more than ${MAX_DECODING_DEPTH} deep`
      : `over ${MAX_DECODED_CHARS / (1024 * 1024)} MiB decoded`;
  }
  return [result.found, ...[...result.path].reverse()].join(' in ');
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
    const why = options.secretIn ? withholdingReason(value, options.secretIn) : undefined;
    if (why === undefined) offered[name] = value;
    else if (listed) refused.push(`${name} (${why})`);
    else options.onWithheld?.(name, why);
  }
  if (refused.length > 0) {
    throw new RuntimeEnvironmentError(
      `runtime-env: ${refused.join(', ')} ${refused.length === 1 ? 'holds' : 'hold'} a secret of the run or a credential (as it stands or encoded), which is never given to runtime attributes (a bundle can spell it out past any masking); remove ${refused.length === 1 ? 'it' : 'them'} from runtime-env`,
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
