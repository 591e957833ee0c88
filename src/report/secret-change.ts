// Whether a change touches secret data, so that a report can say "a secret value
// changed (hidden)" where it cannot show the value.
//
// Two signs, both on changed lines of a unified diff (`+`/`-`, not the `+++`/`---` header):
//   - the engine's masks for Secret data: `*** (before)` and `*** (after)`, or `***` alone;
//   - a value from the secrets list (kubeconfig credentials, values from cluster Secrets or
//     from the environment), before the report masks it.

import type { ChangeSet, ObjectChange } from '../changeset.js';
import { maskableValues } from '../secrets.js';

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
