// Extracts a runtime query's values from the Kubernetes object it read, as Timoni does:
// each `for` expression is CUE evaluated with the object bound to `obj`; strings are kept,
// numbers, bools and null are printed as CUE prints them, structs and lists are errors.
// Values read from a v1 Secret are base64-decoded when they decode, and are secret.
import { CueError, type CueEngine } from '../cue/index.js';
import type { QueriedValue } from './runtime-values.js';
import { RuntimeQueryError } from './runtime-query.js';
import { decodeStrictBase64, isSecretObject } from './secret-decoding.js';
import type { RuntimeQuery } from './types.js';

function evaluateExpression(engine: CueEngine, query: RuntimeQuery, name: string, expression: string, object: Record<string, unknown>, secret: boolean): string {
  let value;
  try {
    value = engine.compile(expression, { filename: `${query.query} (${name})`, scope: { obj: object } });
  } catch (error) {
    if (error instanceof CueError) {
      // CUE messages can quote field values; from a Secret they must not reach the log.
      const detail = secret ? 'details hidden because the object is a Secret' : error.message;
      throw new RuntimeQueryError(query.query, `the expression for ${name} (${expression}) failed: ${detail}`);
    }
    throw error;
  }
  try {
    const kind = value.kind();
    if (kind === 'struct' || kind === 'list') {
      throw new RuntimeQueryError(query.query, `the expression for ${name} (${expression}) returned a ${kind}; only strings, numbers and bools can be used`);
    }
    if (kind === 'string') return value.toJSON() as string;
    const diagnostics = value.validate({ concrete: true });
    if (diagnostics.length > 0 || kind === 'bottom' || kind === 'incomplete' || kind === 'top') {
      const detail = secret ? 'details hidden because the object is a Secret' : (diagnostics[0]?.message ?? `the value is ${kind}`);
      throw new RuntimeQueryError(query.query, `the expression for ${name} (${expression}) has no concrete value: ${detail}`);
    }
    return value.toCUE().trim();
  } finally {
    value.free();
  }
}

export function extractQueryValues(engine: CueEngine, query: RuntimeQuery, object: Record<string, unknown>): QueriedValue[] {
  const secret = isSecretObject(object);
  return query.expressions.map(({ name, expression }) => {
    let value = evaluateExpression(engine, query, name, expression, object, secret);
    if (secret) value = decodeStrictBase64(value) ?? value;
    return { name, value, secret };
  });
}
