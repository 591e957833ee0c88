// Secret values never reach a diff: masked as Timoni (fluxcd ssa sanitize.go) does.
import { cloneJson, isRecord, type KubeObject } from './object.js';

export const maskDefault = '***';
export const maskBefore = '*** (before)';
export const maskAfter = '*** (after)';

/** `kubectl apply` copies the whole object, data included, into this annotation. */
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

export function isSecret(object: KubeObject | null | undefined): boolean {
  return !!object && object.kind === 'Secret' && object.apiVersion === 'v1';
}

function maskedMap(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  return Object.fromEntries(Object.keys(value).map((key) => [key, maskDefault]));
}

function maskAnnotations(object: KubeObject): void {
  const notes = object.metadata.annotations;
  if (notes && lastAppliedAnnotation in notes) notes[lastAppliedAnnotation] = maskDefault;
}

/** A copy of a Secret with every `data`/`stringData` value as `***`; other kinds as they are. */
export function maskSecret(object: KubeObject): KubeObject {
  if (!isSecret(object)) return object;
  const copy = cloneJson(object);
  for (const field of ['data', 'stringData']) {
    const masked = maskedMap(copy[field]);
    if (masked) copy[field] = masked;
  }
  maskAnnotations(copy);
  return copy;
}

/** The values of `data` and `stringData` together (stringData wins, as the API server does). */
function secretValues(object: KubeObject): Record<string, string> {
  const values: Record<string, string> = {};
  const data = object.data;
  if (isRecord(data)) for (const [key, value] of Object.entries(data)) values[key] = String(value);
  const stringData = object.stringData;
  if (isRecord(stringData)) {
    for (const [key, value] of Object.entries(stringData)) values[key] = Buffer.from(String(value)).toString('base64');
  }
  return values;
}

function maskPair(values: Record<string, string>, other: Record<string, string>, changedMask: string): Record<string, string> {
  return Object.fromEntries(
    Object.keys(values).map((key) => [key, key in other && other[key] !== values[key] ? changedMask : maskDefault]),
  );
}

/**
 * Masks a live and a desired Secret against each other: a key whose value is the same on
 * both sides becomes `***`, a changed key `*** (before)` / `*** (after)`, a key on one side
 * only `***`. `stringData` is folded into `data` first, so that the comparison is fair.
 */
export function maskSecretPair(live: KubeObject, desired: KubeObject): { live: KubeObject; desired: KubeObject } {
  if (!isSecret(live) && !isSecret(desired)) return { live, desired };
  const liveValues = secretValues(live);
  const desiredValues = secretValues(desired);
  const maskedLive = cloneJson(live);
  const maskedDesired = cloneJson(desired);
  delete maskedLive.stringData;
  delete maskedDesired.stringData;
  if (isRecord(live.data) || isRecord(live.stringData)) maskedLive.data = maskPair(liveValues, desiredValues, maskBefore);
  if (isRecord(desired.data) || isRecord(desired.stringData)) {
    maskedDesired.data = maskPair(desiredValues, liveValues, maskAfter);
  }
  maskAnnotations(maskedLive);
  maskAnnotations(maskedDesired);
  return { live: maskedLive, desired: maskedDesired };
}
