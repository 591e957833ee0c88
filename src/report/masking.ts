// Masking of secret values in rendered text.
//
// The rule, for each value in the list:
//   - the value is trimmed of surrounding whitespace; values shorter than
//     MIN_SECRET_LENGTH (4) characters after trimming are ignored: masking "on", "80" or
//     "a" would garble every comment while hiding nothing worth hiding (the runner's own
//     log masking has the same blind spot), and it keeps every replacement from making
//     the text longer, since the marker is 3 characters;
//   - a multi-line value is also masked line by line (diffs and logs split lines), each
//     line under the same length rule;
//   - the base64 form of each value is masked too (Secret `data` is base64 in YAML);
//   - all candidates are replaced longest first, so a secret that contains another is
//     masked whole rather than leaving a fragment around a shorter one.

/** What a secret value is replaced with. */
export const MASK = '***';

/** Values shorter than this, after trimming, are not masked (see above). */
export const MIN_SECRET_LENGTH = 4;

/** The strings that `maskSecrets` replaces for a list of secret values, longest first. */
export function maskableValues(secrets: readonly string[]): string[] {
  const candidates = new Set<string>();
  const add = (value: string): void => {
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) candidates.add(trimmed);
  };
  for (const secret of secrets) {
    add(secret);
    if (/[\r\n]/.test(secret)) for (const line of secret.split(/\r?\n|\r/)) add(line);
    if (secret.trim().length >= MIN_SECRET_LENGTH) add(Buffer.from(secret.trim(), 'utf8').toString('base64'));
  }
  return [...candidates].sort((left, right) => right.length - left.length || (left < right ? -1 : 1));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces every occurrence of every secret value (see the rule above) with MASK. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  return secretMasker(secrets)(text);
}

/** A masking function bound to one list of secrets, compiled once. */
export function secretMasker(secrets: readonly string[]): (text: string) => string {
  const values = maskableValues(secrets);
  if (values.length === 0) return (text) => text;
  // One alternation, longest first: at each position the longest secret wins.
  const pattern = new RegExp(values.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, MASK);
}

/** True when the text contains any of the secret values (by the rule above). */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
  return maskableValues(secrets).some((value) => text.includes(value));
}
