// The fields that force an object's recreation, as a diff: when an immutable field changes,
// the server refuses the dry-run and gives no merged object to compare with. The live
// object is then shown through the desired object's shape (only the fields the module sets,
// list items by position), so that the diff names what the module changes and not every
// field the server defaulted (clusterIP, strategy, status...). Pure.
import { isSecret, maskSecretPair } from './mask.js';
import { normalizeObject } from './normalize.js';
import { isRecord, type KubeObject } from './object.js';
import { unifiedDiff } from './unified-diff.js';
import { renderYaml } from './yaml-render.js';

/**
 * `live` reduced to the paths that `desired` has: maps keep the keys `desired` sets (keys
 * that live lacks stay absent, so they show as added), lists keep their items by position,
 * with the live items past the desired list's end (they would be gone after a recreation);
 * any other value is live's as it is.
 */
export function projectOnto(live: unknown, desired: unknown): unknown {
  if (isRecord(live) && isRecord(desired)) {
    const projected: Record<string, unknown> = {};
    for (const key of Object.keys(desired)) {
      if (Object.prototype.hasOwnProperty.call(live, key)) projected[key] = projectOnto(live[key], desired[key]);
    }
    return projected;
  }
  if (Array.isArray(live) && Array.isArray(desired)) {
    return live.map((item, index) => (index < desired.length ? projectOnto(item, desired[index]) : item));
  }
  return live;
}

/** The unified diff of the desired fields as they are live and as they are desired (Secret data masked). */
export function fieldChangesDiff(live: KubeObject, desired: KubeObject): string {
  const a = normalizeObject(live);
  const b = normalizeObject(desired);
  // Secret values are masked (stringData folded into data) before the shape is taken.
  const masked = isSecret(a) || isSecret(b) ? maskSecretPair(a, b) : { live: a, desired: b };
  const projected = projectOnto(masked.live, masked.desired) as KubeObject;
  return unifiedDiff(renderYaml(projected), renderYaml(masked.desired));
}

/** The note that ends a recreated object's diff. */
export function recreateNote(fields: readonly string[], done: boolean): string {
  const named = fields.length === 0 ? 'an immutable field changes' : `immutable field${fields.length === 1 ? '' : 's'} ${fields.join(', ')} change${fields.length === 1 ? 's' : ''}`;
  return `# recreated: ${named}; the object ${done ? 'was' : 'is'} deleted and created again\n`;
}

/** The field changes, then the note saying the object is recreated. */
export function recreateDiff(live: KubeObject, desired: KubeObject, fields: readonly string[], done = false): string {
  return fieldChangesDiff(live, desired) + recreateNote(fields, done);
}
