// What a report may show of secrets. The masking rule itself (which values are secret, how
// they are masked) is src/secrets.ts, the one rule of the project; this file applies it to
// a ChangeSet, and finds the changes that touch secret data so that a report can say
// "a secret value changed (hidden)" where it cannot show the value.
//
// A change touches secret data when a changed line of its unified diff (`+`/`-`, not the
// `+++`/`---` header) holds either sign:
//   - the engine's masks for Secret data: `*** (before)` and `*** (after)`, or `***` alone;
//   - a value from the secrets list (kubeconfig credentials, values from cluster Secrets or
//     from the environment), before the report masks it.

import type { ChangeSet, ObjectChange } from '../changeset.js';
import { maskableValues, secretMasker } from '../secrets.js';
import { changeId } from './budget.js';

/**
 * A copy of the ChangeSet with every string masked (names, module references, diffs, error
 * messages, and strings in extra fields such as readiness messages), except the
 * enumerations the reports branch on (`mode`, `status`, `action`): their values are fixed
 * words, never secrets, and masking one that happens to equal a secret would corrupt the
 * report.
 */
export function maskChangeSet<T extends ChangeSet>(changeSet: T, secrets: readonly string[]): T {
  const mask = secretMasker(secrets);
  // The copy has the same shape as the input: maskDeep maps strings (values and keys) to strings.
  return maskDeep(changeSet, mask) as T;
}

const ENUMERATIONS = new Set(['mode', 'status', 'action']);

function maskDeep(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    // Keys are masked too: the desired-state digests are keyed by instance and object names.
    for (const [key, item] of Object.entries(value)) copy[mask(key)] = ENUMERATIONS.has(key) && typeof item === 'string' ? item : maskDeep(item, mask);
    return copy;
  }
  return value;
}

// The engine's mask as the value of a changed line: `key: ***`, `key: *** (before)`, `- ***`.
const ENGINE_MASK = /(^|[\s:])\*\*\*( \((before|after)\))?\s*$/;

function changedLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter((line) => (line.startsWith('+') && !line.startsWith('+++')) || (line.startsWith('-') && !line.startsWith('---')));
}

/** True when a changed line of the diff holds a masked value or one of the secrets. */
export function diffChangesSecret(diff: string, secrets: readonly string[] = []): boolean {
  const values = maskableValues(secrets);
  return changedLines(diff).some((line) => ENGINE_MASK.test(line.slice(1)) || values.some((value) => line.includes(value)));
}

/** True when the object's change touches secret data. */
export function objectChangesSecret(change: ObjectChange, secrets: readonly string[] = []): boolean {
  if (change.action === 'unchanged' || change.action === 'skipped') return false;
  return diffChangesSecret(change.diff, secrets);
}

/** True when any object of any cluster changes secret data. */
export function changeSetChangesSecret(changeSet: ChangeSet, secrets: readonly string[] = []): boolean {
  return changeSet.clusters.some((cluster) =>
    cluster.instances.some((instance) => instance.changes.some((change) => objectChangesSecret(change, secrets))),
  );
}

/** Ids (changeId) of the changes whose diff touches secret data; read from the unmasked ChangeSet. */
export function secretChangeIds(changeSet: ChangeSet, secrets: readonly string[]): Set<string> {
  const ids = new Set<string>();
  changeSet.clusters.forEach((cluster, clusterIndex) =>
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((change, objectIndex) => {
        if (objectChangesSecret(change, secrets)) ids.add(changeId(clusterIndex, instanceIndex, objectIndex));
      }),
    ),
  );
  return ids;
}
