// A copy of a ChangeSet with every string that reaches a report masked.

import type { ChangeSet } from '../changeset.js';
import { secretMasker } from '../secrets.js';

/**
 * Masks every string of a ChangeSet (names, module references, diffs, error messages, and
 * strings in extra fields such as readiness messages), except the enumerations the reports
 * branch on (`mode`, `status`, `action`): their values are fixed words, never secrets, and
 * masking one that happens to equal a secret would corrupt the report.
 */
export function maskChangeSet<T extends ChangeSet>(changeSet: T, secrets: readonly string[]): T {
  const mask = secretMasker(secrets);
  // The copy has the same shape as the input: maskDeep maps strings to strings and keeps keys.
  return maskDeep(changeSet, mask) as T;
}

const ENUMERATIONS = new Set(['mode', 'status', 'action']);

function maskDeep(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = ENUMERATIONS.has(key) && typeof item === 'string' ? item : maskDeep(item, mask);
    return copy;
  }
  return value;
}
