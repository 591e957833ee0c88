// Changes to immutable fields: recognised in the API server's answer (422 Invalid) and
// reported as a typed error naming the object and the fields.
import { KubeApiError } from '../connect/index.js';
import { formatRef, type ObjectRef } from '../object.js';

const immutablePatterns = [
  /field is immutable/i,
  /\bis immutable\b/i,
  /immutable field/i,
  /may not change once set/i,
  /Forbidden: updates to .* are forbidden/i,
];

function mentionsImmutability(text: string | undefined): boolean {
  return !!text && immutablePatterns.some((pattern) => pattern.test(text));
}

/** True when the API server refused a change because it touches an immutable field. */
export function isImmutableError(error: unknown): error is KubeApiError {
  return (
    error instanceof KubeApiError &&
    error.status === 422 &&
    (mentionsImmutability(error.statusMessage) || error.causes.some((cause) => mentionsImmutability(cause.message)))
  );
}

/** The fields an immutable error names (`spec.template`, `spec.clusterIPs[0]`...). */
export function immutableFields(error: KubeApiError): string[] {
  const fields = error.causes
    .filter((cause) => mentionsImmutability(cause.message) && cause.field)
    .map((cause) => cause.field!);
  if (fields.length === 0) {
    // Without causes, the message reads `<Kind> "<name>" is invalid: <field>: <reason>`.
    const match = /is invalid: ([\w.[\]-]+):/.exec(error.statusMessage);
    if (match?.[1]) fields.push(match[1]);
  }
  return [...new Set(fields)];
}

/**
 * What the server said about each immutable field, without the values it quotes
 * (`Invalid value: {...whole pod template...}: field is immutable` -> `field is immutable`):
 * a value may hold data that must not reach a log.
 */
export function immutableReasons(error: KubeApiError): string[] {
  const strip = (text: string) => (text.startsWith('Invalid value:') ? text.slice(text.lastIndexOf(': ') + 2) : text);
  const fromCauses = error.causes
    .filter((cause) => mentionsImmutability(cause.message))
    .map((cause) => `${cause.field ? `${cause.field}: ` : ''}${strip(cause.message ?? '')}`);
  if (fromCauses.length > 0) return [...new Set(fromCauses)];
  const match = /is invalid: ([\w.[\]-]+): (.*)$/s.exec(error.statusMessage);
  return match ? [`${match[1]}: ${strip(match[2]!)}`] : [strip(error.statusMessage)];
}

export class ImmutableFieldError extends Error {
  override name = 'ImmutableFieldError';
  constructor(
    readonly cluster: string,
    readonly object: ObjectRef,
    readonly fields: string[],
    readonly apiError: KubeApiError,
  ) {
    super(
      `cluster ${cluster}: ${formatRef(object)}: immutable field${fields.length === 1 ? '' : 's'} ${fields.length ? fields.join(', ') : '(unnamed)'} changed; ` +
        `the object must be recreated (apply with force, or annotate it action.timoni.sh/force: enabled); the API server said: ${immutableReasons(apiError).join('; ')}`,
    );
  }
}
