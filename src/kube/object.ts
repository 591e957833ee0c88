// Kubernetes objects as plain JSON values: the engine never passes them through typed
// models, so fields unknown to this code survive untouched. Helpers to name objects.

/** A Kubernetes object exactly as built or as returned by the API server. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: KubeMetadata;
  [field: string]: unknown;
}

export interface KubeMetadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  uid?: string;
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
  [field: string]: unknown;
}

/** What identifies an object in a cluster (the version is not part of its identity). */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  /** Empty for cluster-scoped objects. */
  namespace: string;
  name: string;
}

/** Timoni's per-object action annotations (api/v1alpha1/actions.go). */
export const annotations = {
  prune: 'action.timoni.sh/prune',
  force: 'action.timoni.sh/force',
  oneOff: 'action.timoni.sh/one-off',
  wait: 'action.timoni.sh/wait',
} as const;

export const enabledValue = 'enabled';
export const disabledValue = 'disabled';

/** `apps/v1` -> `apps`; `v1` -> `` (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** `apps/v1` -> `v1`; `v1` -> `v1`. */
export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function refOf(object: KubeObject): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
  };
}

/** `Kind/namespace/name` or `Kind/name`, as Timoni and fluxcd ssa print objects. */
export function formatRef(ref: ObjectRef | KubeObject): string {
  const r = 'metadata' in ref ? refOf(ref as KubeObject) : (ref as ObjectRef);
  return r.namespace ? `${r.kind}/${r.namespace}/${r.name}` : `${r.kind}/${r.name}`;
}

/**
 * True when one of the key/value pairs is set, as a label or an annotation, with the
 * same value compared case-insensitively (fluxcd ssa `AnyInMetadata`).
 */
export function anyInMetadata(object: KubeObject | null | undefined, selector: Record<string, string>): boolean {
  if (!object) return false;
  const labels = object.metadata.labels ?? {};
  const notes = object.metadata.annotations ?? {};
  return Object.entries(selector).some(([key, value]) => {
    const label = labels[key];
    const note = notes[key];
    return (
      (!!label && label.toLowerCase() === value.toLowerCase()) || (!!note && note.toLowerCase() === value.toLowerCase())
    );
  });
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The field managers other than `own` that wrote the object, as the server's
 * `metadata.managedFields` tell it (sorted, without duplicates); `['(none recorded)']` when
 * the object has no entry at all, since then who wrote it cannot be told. Empty: only `own`.
 * A record that only this tool writes (its history, its identity record) is trusted only
 * when this is empty: an object a bundle applied carries Timoni's manager (`timoni`).
 */
export function otherFieldManagers(object: KubeObject, own: string): string[] {
  const entries = Array.isArray(object.metadata.managedFields) ? object.metadata.managedFields : [];
  if (entries.length === 0) return ['(none recorded)'];
  const managers = entries.map((entry) => (typeof entry.manager === 'string' ? entry.manager : '(unnamed)'));
  return [...new Set(managers.filter((manager) => manager !== own))].sort();
}
