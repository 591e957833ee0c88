// `build --mask-secrets` as Timoni v0.33.0 does it (internal/mask/mask.go SecretData): in
// every v1 Secret (kind compared without case, as fluxcd/pkg ssa utils.IsSecret does) each
// entry of `data` and `stringData` becomes `***`, a `data`/`stringData` that is not a map is
// replaced by `***` as a whole, and the `kubectl.kubernetes.io/last-applied-configuration`
// annotation, which copies the whole object, becomes `***`. Other objects are untouched.
// Also: redacting registered secret values (runtime query values read from Secrets) in
// every string of an object, before it is printed, so that line folding cannot split one.
import { MASK } from '../secrets.js';

const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isTimoniSecret(object: JsonObject): boolean {
  return typeof object.kind === 'string' && object.kind.toLowerCase() === 'secret' && object.apiVersion === 'v1';
}

/** A copy of a Secret with its values masked; other objects returned as they are. */
export function maskSecretData<T extends JsonObject>(object: T): T {
  if (!isTimoniSecret(object)) return object;
  const masked = structuredClone(object) as JsonObject;
  for (const field of ['data', 'stringData']) {
    if (!(field in masked)) continue;
    const entries = masked[field];
    masked[field] = isObject(entries) ? Object.fromEntries(Object.keys(entries).map((key) => [key, MASK])) : MASK;
  }
  const metadata = masked.metadata;
  if (isObject(metadata) && isObject(metadata.annotations) && lastAppliedAnnotation in metadata.annotations) {
    metadata.annotations[lastAppliedAnnotation] = MASK;
  }
  return masked as T;
}

/** A copy of a JSON value with `redact` applied to every string and key. */
export function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactStrings(item, redact)]));
  return value;
}
