// The one rule for secrets, used by every layer: which forms of a secret value are masked,
// how text is redacted, and how a new secret reaches the caller (the action prints
// `::add-mask::` for it, so that the runner masks the log as well).
//
// The rule, for each value registered:
//   - surrounding whitespace is trimmed; a form shorter than MIN_SECRET_LENGTH (4)
//     characters is not masked: masking "on", "80" or "a" would garble every report while
//     hiding nothing worth hiding (the runner's log masking has the same blind spot), and it
//     keeps every replacement from making text longer, since the mask is 3 characters;
//   - a multi-line value (a PEM key) is also masked line by line, as diffs and logs split
//     lines (unless registered `wholeOnly`: a JSON document whose lines are not secret);
//   - the cheap transforms of the value are masked as well: upper and lower case, base64
//     (standard and URL-safe, with and without padding: Secret `data` is base64), hex (lower
//     and upper case), URL encoding and JSON string escaping;
//   - all forms are replaced longest first, so that a secret containing another is masked
//     whole rather than leaving a fragment around a shorter one.
//
// Code the run does not trust (runtime attributes of a pull request's bundle) is never given
// a text that holds a secret (secretIn): a text that contains a registered form or document
// (the kubeconfig text, see registerDocument), or a credential of a known shape, registered
// or not (credentialIn: a URL or connection string with a password, a PEM private key, a
// kubeconfig's or a Docker config's credentials). secretIn looks at a text as it stands; the
// caller asks it of every layer of the text's encodings (../encoded-text.ts: JSON, base64,
// hex, percent-encoding, gzip, nested), as an attacker would have encoded it. Masking could
// not help once such a text is given: the bundle spaces it out.
//
// What masking cannot promise: a value that the bundle's author transforms in any other way
// (reversed, spaced out, split in two, hashed and truncated, one character per object name)
// is not recognised. That is why the action refuses runtime queries of cluster Secrets on
// pull requests unless the workflow opts in, and why the README's threat model recommends a
// least-privilege kubeconfig for diffs.

/** What a secret value is replaced with. */
export const MASK = '***';

/** Forms shorter than this, after trimming, are not masked (see above). */
export const MIN_SECRET_LENGTH = 4;

/** Called once for every new form of a secret (the action prints `::add-mask::` for it). */
export type RegisterSecret = (value: string) => void;

function base64Forms(text: string): string[] {
  const standard = Buffer.from(text, 'utf8').toString('base64');
  const unpadded = standard.replace(/=+$/, '');
  const urlSafe = unpadded.replace(/\+/g, '-').replace(/\//g, '_');
  return [standard, unpadded, urlSafe];
}

/** The cheap transforms of one line of a secret (see the rule above). */
function transforms(text: string): string[] {
  const hex = Buffer.from(text, 'utf8').toString('hex');
  return [
    text,
    text.toUpperCase(),
    text.toLowerCase(),
    ...base64Forms(text),
    hex,
    hex.toUpperCase(),
    encodeURIComponent(text),
    JSON.stringify(text).slice(1, -1),
  ];
}

/** Every form of a secret value that is masked, each at least MIN_SECRET_LENGTH long. */
export function secretForms(value: string, wholeOnly = false): string[] {
  const trimmed = value.trim();
  // The value as given too (a PEM key with its final line break), as the runner masks it.
  const sources = value !== trimmed && trimmed.length >= MIN_SECRET_LENGTH ? [trimmed, value] : [trimmed];
  if (!wholeOnly && /[\r\n]/.test(trimmed)) sources.push(...trimmed.split(/\r?\n|\r/).map((line) => line.trim()));
  const forms = new Set<string>();
  for (const source of sources) {
    if (source.length < MIN_SECRET_LENGTH) continue;
    for (const form of transforms(source)) if (form.trim().length >= MIN_SECRET_LENGTH) forms.add(form);
  }
  return [...forms];
}

/** The strings that `maskSecrets` replaces for a list of secret values, longest first. */
export function maskableValues(secrets: readonly string[]): string[] {
  const candidates = new Set<string>();
  for (const secret of secrets) for (const form of secretForms(secret)) candidates.add(form);
  return [...candidates].sort((left, right) => right.length - left.length || (left < right ? -1 : 1));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces exactly the given forms (no further transforms), longest first. */
function formMasker(forms: readonly string[]): (text: string) => string {
  if (forms.length === 0) return (text) => text;
  const longestFirst = [...forms].sort((left, right) => right.length - left.length || (left < right ? -1 : 1));
  // One alternation, longest first: at each position the longest form wins.
  const pattern = new RegExp(longestFirst.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, MASK);
}

/** A masking function bound to one list of secrets, compiled once. */
export function secretMasker(secrets: readonly string[]): (text: string) => string {
  return formMasker(maskableValues(secrets));
}

/** Replaces every form of every secret value (see the rule above) with MASK. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  return secretMasker(secrets)(text);
}

/** True when the text contains any form of any of the secret values. */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
  return maskableValues(secrets).some((value) => text.includes(value));
}

/** `scheme://user:password@host`: a URL that carries a password, anywhere in a text. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*:[^/?#@\s]+@/i;

/** `password=`, `pwd=`, `passwd=`, `pass=` with a value: a URL's query (JDBC), a `;`-separated connection string (ADO), a command line. */
const PASSWORD_PARAMETER = /(?<![A-Za-z0-9])(?:password|passwd|pwd|pass)\s*=\s*["']?[^\s&;,"']/i;
/** `password: x`, `"passwd": "x"`: a password in YAML or JSON. */
const PASSWORD_FIELD = /(?<![A-Za-z0-9])["']?(?:password|passwd)["']?\s*:\s*["']?[^\s"',{}[\]]/i;
/** A PEM private key of any kind (`RSA`, `EC`, `OPENSSH`, `ENCRYPTED`, PGP's `PRIVATE KEY BLOCK`). */
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
/** A kubeconfig, in YAML or JSON: one of its lists. */
const KUBECONFIG_LIST = /(?:^|[\n{,])\s*["']?(?:users|clusters|contexts)["']?\s*:/;
/** A credential field of a kubeconfig's user, with a value. */
const KUBECONFIG_CREDENTIAL =
  /(?:^|[\s{,"'])(?:client-key-data|token|id-token|refresh-token|access-token|password)["']?\s*:\s*["']?[^\s"',{}[\]]/;
/** A Docker config (`~/.docker/config.json`, `DOCKER_AUTH_CONFIG`): its `auths`... */
const DOCKER_AUTHS = /["']auths["']\s*:/;
/** ...and a credential of a registry in it. */
const DOCKER_CREDENTIAL = /["'](?:auth|password|identitytoken|registrytoken)["']\s*:\s*["'][^"']/;

/**
 * The credentials that are secret whatever the run registered, by their shape in a text as
 * it stands: a PEM private key, a Docker config's registry credential, a kubeconfig's user
 * credential, a URL with a password (`scheme://user:pass@`), a password parameter or field
 * (`password=`, `pwd=`, `Password=...;`, `password: x`). Undefined when the text holds none.
 */
export function credentialIn(text: string): CredentialShape | undefined {
  if (PEM_PRIVATE_KEY.test(text)) return 'private key';
  if (DOCKER_AUTHS.test(text) && DOCKER_CREDENTIAL.test(text)) return 'registry credential';
  if (KUBECONFIG_LIST.test(text) && KUBECONFIG_CREDENTIAL.test(text)) return 'kubeconfig credential';
  if (URL_WITH_PASSWORD.test(text)) return 'password URL';
  if (PASSWORD_PARAMETER.test(text) || PASSWORD_FIELD.test(text)) return 'password';
  return undefined;
}

/** The credential shapes (credentialIn), each said in a word. */
export type CredentialShape =
  'private key' | 'registry credential' | 'kubeconfig credential' | 'password URL' | 'password';

/** Why a text may not be given to code the run does not trust (see the rule above). */
export type SecretContent = 'secret' | CredentialShape;

/**
 * The secrets of one run: every credential, Secret value and environment value found while
 * running is registered here. Each new form goes to the caller's callback at once, and
 * `redact` masks all of them in any text (errors, log lines).
 */
export class SecretRegistry {
  private readonly values = new Set<string>();
  private readonly originals = new Set<string>();
  private readonly short = new Set<string>();
  private readonly documents = new Set<string>();
  private masker: ((text: string) => string) | undefined;

  constructor(private readonly forward: RegisterSecret = () => {}) {}

  /**
   * Registers a secret with all its forms. `wholeOnly` skips the line-by-line forms, for
   * documents whose lines are not secret by themselves (an exec plugin's JSON output).
   */
  register(value: string | Buffer | undefined | null, wholeOnly = false): void {
    if (value === undefined || value === null) return;
    const text = typeof value === 'string' ? value : value.toString('utf8');
    const trimmed = text.trim();
    if (!wholeOnly && trimmed.length >= MIN_SECRET_LENGTH) this.originals.add(text);
    // Even a value too short to redact in reports reaches the callback: the runner masks it.
    if (trimmed.length > 0 && trimmed.length < MIN_SECRET_LENGTH && !this.short.has(trimmed)) {
      this.short.add(trimmed);
      this.forward(trimmed);
    }
    for (const form of secretForms(text, wholeOnly)) {
      if (this.values.has(form)) continue;
      this.values.add(form);
      this.masker = undefined;
      this.forward(form);
    }
  }

  /**
   * Registers a text that is secret only as a whole and is never printed whole: a
   * kubeconfig, whose lines (`apiVersion: v1`) are not secrets and whose credentials are
   * registered one by one. It is neither masked (a multi-line text never stands on one
   * line of a report) nor forwarded to the runner; `secretIn` finds it in a text (and so,
   * asked of each decoded layer, in its base64, hex, URL, JSON and gzip forms too).
   */
  registerDocument(text: string): void {
    const trimmed = text.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) this.documents.add(trimmed);
  }

  /** Alias of `register` for the registry client's credential values. */
  add(value: string | undefined): void {
    this.register(value);
  }

  /** True when the value (trimmed) was registered as a secret or is a form of one. */
  isSecret(value: string): boolean {
    const trimmed = value.trim();
    return trimmed !== '' && (this.values.has(trimmed) || this.short.has(trimmed));
  }

  /**
   * Whether the text, as it stands, holds a secret (see the rule above): 'secret' when it
   * contains a registered form or document (or it is a value too short to mask), else the
   * credential shape it holds (credentialIn); undefined when it holds neither. Encodings
   * are not undone here: a caller that gives text to untrusted code asks this of every
   * layer under it (../encoded-text.ts, as the environment's rule does).
   */
  secretIn(text: string): SecretContent | undefined {
    if (this.isSecret(text)) return 'secret';
    for (const form of this.values) if (text.includes(form)) return 'secret';
    for (const document of this.documents) if (text.includes(document)) return 'secret';
    return credentialIn(text);
  }

  /** The values registered so far as given (reports expand them with `secretMasker`). */
  secrets(): string[] {
    return [...this.originals];
  }

  /** The text with every registered form replaced by MASK, longest first. */
  redact(text: string): string {
    if (this.values.size === 0) return text;
    this.masker ??= formMasker([...this.values]);
    return this.masker(text);
  }
}

/** Variables that carry credentials of the CI job itself (the action's inputs, the runner's tokens). */
const JOB_CREDENTIAL_PREFIXES = ['INPUT_', 'ACTIONS_'];
const JOB_CREDENTIAL_NAMES = new Set(['GITHUB_TOKEN', 'GH_TOKEN', 'RUNNER_TOKEN']);

/**
 * True for an environment variable that holds a credential of the job itself: never given
 * to code the job runs on someone's behalf (runtime attributes, exec credential plugins).
 */
export function isJobCredentialVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return JOB_CREDENTIAL_NAMES.has(upper) || JOB_CREDENTIAL_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** The environment less the job's own credentials. */
export function withoutJobCredentials(env: Record<string, string | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !isJobCredentialVariable(name)) kept[name] = value;
  return kept;
}
