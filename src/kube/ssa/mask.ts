// Secret values never reach a diff or a printed build: masked as Timoni does (fluxcd ssa
// sanitize.go for diffs, internal/mask/mask.go SecretData for `build --mask-secrets`).
import { cloneJson, isRecord, type KubeObject } from '../object.js';

export const maskDefault = '***';
export const maskBefore = '*** (before)';
export const maskAfter = '*** (after)';

/** `kubectl apply` copies the whole object, data included, into this annotation. */
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

const secretFields = ['data', 'stringData'] as const;

/** A v1 Secret, the kind compared without case (fluxcd/pkg ssa utils.IsSecret, which Timoni uses). */
export function isSecret(object: { apiVersion?: unknown; kind?: unknown } | null | undefined): boolean {
  return (
    !!object && typeof object.kind === 'string' && object.kind.toLowerCase() === 'secret' && object.apiVersion === 'v1'
  );
}

function maskAnnotations(object: Record<string, unknown>): void {
  const metadata = object.metadata;
  if (!isRecord(metadata) || !isRecord(metadata.annotations)) return;
  if (lastAppliedAnnotation in metadata.annotations) metadata.annotations[lastAppliedAnnotation] = maskDefault;
}

/**
 * A copy of a Secret with every `data`/`stringData` value as `***` (a field that is not a
 * map as `***` as a whole) and the last-applied annotation masked; other kinds returned as
 * they are.
 */
export function maskSecret<T extends { apiVersion?: unknown; kind?: unknown }>(object: T): T {
  if (!isSecret(object)) return object;
  const copy = cloneJson(object) as T & Record<string, unknown>;
  for (const field of secretFields) {
    if (!(field in copy)) continue;
    const value = copy[field];
    (copy as Record<string, unknown>)[field] = isRecord(value)
      ? Object.fromEntries(Object.keys(value).map((key) => [key, maskDefault]))
      : maskDefault;
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

function maskPair(
  values: Record<string, string>,
  other: Record<string, string>,
  changedMask: string,
): Record<string, string> {
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
  if (isRecord(live.data) || isRecord(live.stringData))
    maskedLive.data = maskPair(liveValues, desiredValues, maskBefore);
  else if (live.data != null) maskedLive.data = maskDefault;
  if (isRecord(desired.data) || isRecord(desired.stringData))
    maskedDesired.data = maskPair(desiredValues, liveValues, maskAfter);
  else if (desired.data != null) maskedDesired.data = maskDefault;
  maskAnnotations(maskedLive);
  maskAnnotations(maskedDesired);
  return { live: maskedLive, desired: maskedDesired };
}
