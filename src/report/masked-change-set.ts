// A copy of a ChangeSet with every string that reaches a report masked.

import type { ChangeSet } from '../fleet/changeset.js';
import { secretMasker } from './masking.js';

/**
 * Masks names, module references, diffs and error messages of a ChangeSet. Fields that
 * are not strings (durations, extra fields such as readiness) are copied as they are,
 * except that string values inside extra object fields are masked too.
 */
export function maskChangeSet<T extends ChangeSet>(changeSet: T, secrets: readonly string[]): T {
  const mask = secretMasker(secrets);
  return maskDeep(changeSet, mask) as T;
}

function maskDeep(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = maskDeep(item, mask);
    return copy;
  }
  return value;
}
