// Taking over fields set by kubectl and Helm: their managedFields entries are renamed to
// Timoni's apply manager (merged into it when it exists), and their tracking annotations
// removed, with one JSON patch, before the server-side apply (as Timoni and fluxcd ssa do).
// Pure functions; apply.ts sends the patch.
import { isRecord, type KubeObject, type ManagedFieldsEntry } from '../object.js';

export interface FieldManagerMatch {
  name: string;
  operation: 'Update' | 'Apply';
  /** Exact name, or a prefix (`kubectl` matches `kubectl-client-side-apply`). */
  exact: boolean;
}

/** The managers Timoni takes fields over from (internal/runtime/resources.go). */
export const takeOverManagers: FieldManagerMatch[] = [
  { name: 'helm', operation: 'Update', exact: true },
  { name: 'helm', operation: 'Apply', exact: true },
  { name: 'kubectl', operation: 'Update', exact: false },
  { name: 'before-first-apply', operation: 'Update', exact: false },
  { name: 'kubectl', operation: 'Apply', exact: false },
];

/** Annotations of kubectl and Helm that Timoni removes when it takes an object over. */
export const takeOverAnnotations = [
  'kubectl.kubernetes.io/last-applied-configuration',
  'meta.helm.sh/release-name',
  'meta.helm.sh/release-namespace',
];

export type JsonPatchOperation =
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'test'; path: string; value: unknown };

function matches(entry: ManagedFieldsEntry, manager: FieldManagerMatch): boolean {
  if (entry.operation !== manager.operation || entry.subresource) return false;
  const name = entry.manager ?? '';
  return manager.exact ? name === manager.name : name.startsWith(manager.name);
}

/** The union of two FieldsV1 sets: their tries merged key by key. */
export function unionFields(
  a: Record<string, unknown> | undefined,
  b: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    out[key] = isRecord(existing) && isRecord(value) ? unionFields(existing, value) : value;
  }
  return out;
}

/**
 * The managedFields with the matching managers' entries given to `owner` as an Apply
 * entry (fluxcd ssa `PatchReplaceFieldsManagers`), or null when nothing matches.
 */
export function replaceFieldManagers(
  entries: ManagedFieldsEntry[],
  owner: string,
  managers: FieldManagerMatch[] = takeOverManagers,
): ManagedFieldsEntry[] | null {
  const previousIndex = entries.findLastIndex((entry) => entry.manager === owner && entry.operation === 'Apply');
  let target: ManagedFieldsEntry | undefined = previousIndex >= 0 ? { ...entries[previousIndex]! } : undefined;
  const kept: ManagedFieldsEntry[] = [];
  let edited = false;
  entries.forEach((entry, index) => {
    if (index === previousIndex) return;
    if (!managers.some((manager) => matches(entry, manager))) {
      kept.push(entry);
      return;
    }
    edited = true;
    if (!target) target = { ...entry, manager: owner, operation: 'Apply' };
    else target = { ...target, fieldsV1: unionFields(target.fieldsV1, entry.fieldsV1) };
  });
  if (!edited || !target) return null;
  return [...kept, target];
}

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The JSON patch that takes the object over for `owner`; empty when there is nothing to do. */
export function takeOwnershipPatch(existing: KubeObject, owner: string): JsonPatchOperation[] {
  const patch: JsonPatchOperation[] = [];
  const notes = existing.metadata.annotations ?? {};
  for (const key of takeOverAnnotations) {
    if (key in notes) patch.push({ op: 'remove', path: `/metadata/annotations/${escapePointer(key)}` });
  }
  const managedFields = replaceFieldManagers(existing.metadata.managedFields ?? [], owner);
  if (managedFields) patch.push({ op: 'replace', path: '/metadata/managedFields', value: managedFields });
  // Refuse to patch a newer version of the object than the one the patch was computed from.
  if (patch.length > 0 && existing.metadata.resourceVersion) {
    patch.unshift({ op: 'test', path: '/metadata/resourceVersion', value: existing.metadata.resourceVersion });
  }
  return patch;
}
