// Normalisation of objects before they are compared or shown: what the API server sets by
// itself (managedFields, uid, resourceVersion...) is not a change anyone made. Pure.
import { cloneJson, isRecord, type KubeObject } from '../object.js';

/** Metadata fields the API server sets and that a diff never shows. */
const serverSetMetadata = ['managedFields', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'selfLink'];

export interface NormalizeOptions {
  /** Remove `status` (the default): apply never changes it through the main resource. */
  dropStatus?: boolean;
}

/**
 * A copy of the object without managedFields, server-set metadata and (by default)
 * status; empty `labels`/`annotations` maps are dropped so that `{}` equals absent.
 */
export function normalizeObject(object: KubeObject, options: NormalizeOptions = {}): KubeObject {
  const copy = cloneJson(object);
  const metadata: Record<string, unknown> = copy.metadata;
  for (const field of serverSetMetadata) delete metadata[field];
  for (const field of ['labels', 'annotations']) {
    const value = metadata[field];
    if (isRecord(value) && Object.keys(value).length === 0) delete metadata[field];
  }
  if (options.dropStatus ?? true) delete copy.status;
  return copy;
}

/** Deep equality of JSON values, map key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}
