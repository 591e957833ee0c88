// Runtime value queries as Timoni reads them: parsed from `k8s:<apiVersion>:<kind>:<namespace>:<name>`
// (namespaced objects) or `k8s:<apiVersion>:<kind>:<name>` (cluster-scoped ones), then, once
// the object is read from a cluster, each `for` expression is CUE evaluated with the object
// bound to `obj`: strings are kept, numbers, bools and null are printed as CUE prints them,
// structs and lists are errors. Values read from a v1 Secret are base64-decoded when they
// decode, and are secret. The objects are read through a reader the caller provides (the
// bundle layer knows no Kubernetes client).
import { CueError, type CueEngine } from '../cue/index.js';
import type { Runtime, RuntimeCluster, RuntimeQuery } from './types.js';
import { quote } from '../display-text.js';

/** A value a runtime query extracted from the object it read. */
export interface QueriedValue {
  name: string;
  value: string;
  /** True when the object read is a v1 Secret. */
  secret: boolean;
}

export class RuntimeQueryError extends Error {
  constructor(query: string, reason: string) {
    super(`runtime value query ${quote(query)}: ${reason}`);
    this.name = 'RuntimeQueryError';
  }
}

const VALUE_NAME = /^(([A-Za-z0-9][-A-Za-z0-9_]*)?[A-Za-z0-9])?$/;

// What a query may name. A query becomes a URL path on the cluster's API server, so a
// segment such as `.` or `..` (which URL resolution folds away, turning a GET of one Secret
// into a LIST of every Secret) or one holding `/`, `%` or `?` is refused before any request.
const API_VERSION = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
/** A namespace is a DNS label. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Object names: DNS subdomains, and the odd upper-case or underscore name some kinds allow; never `.` or `..`. */
const OBJECT_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,251}[A-Za-z0-9])?$/;

function checkSegment(query: string, label: string, value: string, pattern: RegExp, rule: string): void {
  if (!pattern.test(value)) throw new RuntimeQueryError(query, `the ${label} ${quote(value)} is not valid: ${rule}`);
}

export function parseRuntimeQuery(
  query: string,
  expressions: Array<{ name: string; expression: string }>,
  optional: boolean,
): RuntimeQuery {
  const parts = query.split(':');
  if (parts[0] !== 'k8s') throw new RuntimeQueryError(query, 'a query must start with "k8s:"');
  if (parts.length !== 4 && parts.length !== 5) {
    throw new RuntimeQueryError(
      query,
      `expected k8s:<apiVersion>:<kind>:<namespace>:<name> or k8s:<apiVersion>:<kind>:<name>, got ${parts.length} parts`,
    );
  }
  const [, apiVersion = '', kind = ''] = parts;
  const namespace = parts.length === 5 ? (parts[3] ?? '') : '';
  const name = parts[parts.length - 1] ?? '';
  for (const [label, value] of [
    ['apiVersion', apiVersion],
    ['kind', kind],
    ['name', name],
  ] as const) {
    if (value === '') throw new RuntimeQueryError(query, `the ${label} is empty`);
  }
  if (parts.length === 5 && namespace === '') throw new RuntimeQueryError(query, 'the namespace is empty');
  checkSegment(query, 'apiVersion', apiVersion, API_VERSION, 'expected v1 or group/version, e.g. apps/v1');
  checkSegment(query, 'kind', kind, KIND, 'expected a kind such as ConfigMap');
  if (parts.length === 5)
    checkSegment(
      query,
      'namespace',
      namespace,
      NAMESPACE,
      'a namespace is a lowercase DNS label (letters, digits and -)',
    );
  checkSegment(
    query,
    'name',
    name,
    OBJECT_NAME,
    'an object name is letters, digits, -, _ and . and starts and ends with a letter or digit',
  );
  for (const { name: valueName } of expressions) {
    if (valueName.length === 0 || valueName.length > 63 || !VALUE_NAME.test(valueName)) {
      throw new RuntimeQueryError(
        query,
        `${quote(valueName)} is not a valid value name (letters, digits, - and _, 1-63 characters)`,
      );
    }
  }
  return { query, apiVersion, kind, namespace, name, expressions, optional };
}

// Timoni base64-decodes the values it reads from a v1 Secret when they decode as standard,
// padded base64 (Go's base64.StdEncoding, which skips line breaks), and keeps them as they
// are otherwise.

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes standard, padded base64; undefined when it does not decode. */
export function decodeStrictBase64(text: string): string | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (!STRICT_BASE64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64').toString('utf8');
}

export function isSecretObject(object: Record<string, unknown>): boolean {
  return object.apiVersion === 'v1' && object.kind === 'Secret';
}

function evaluateExpression(
  engine: CueEngine,
  query: RuntimeQuery,
  name: string,
  expression: string,
  object: Record<string, unknown>,
  secret: boolean,
): string {
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
      throw new RuntimeQueryError(
        query.query,
        `the expression for ${name} (${expression}) returned a ${kind}; only strings, numbers and bools can be used`,
      );
    }
    if (kind === 'string') return value.toJSON() as string;
    const diagnostics = value.validate({ concrete: true });
    if (diagnostics.length > 0 || kind === 'bottom' || kind === 'incomplete' || kind === 'top') {
      const detail = secret
        ? 'details hidden because the object is a Secret'
        : (diagnostics[0]?.message ?? `the value is ${kind}`);
      throw new RuntimeQueryError(
        query.query,
        `the expression for ${name} (${expression}) has no concrete value: ${detail}`,
      );
    }
    return value.toCUE().trim();
  } finally {
    value.free();
  }
}

export function extractQueryValues(
  engine: CueEngine,
  query: RuntimeQuery,
  object: Record<string, unknown>,
): QueriedValue[] {
  const secret = isSecretObject(object);
  return query.expressions.map(({ name, expression }) => {
    let value = evaluateExpression(engine, query, name, expression, object, secret);
    if (secret) value = decodeStrictBase64(value) ?? value;
    return { name, value, secret };
  });
}

/** Reads the object a query names from a cluster; resolves to undefined when it does not exist. */
export type QueryObjectReader = (
  cluster: RuntimeCluster,
  query: RuntimeQuery,
) => Promise<Record<string, unknown> | undefined>;

/**
 * The values of every query of the runtime for one cluster, in query order. A query of a
 * v1 Secret is refused with `secretQueryRefusal` when it is set, before anything is read.
 */
export async function readQueryValues(
  engine: CueEngine,
  runtime: Runtime,
  cluster: RuntimeCluster,
  readObject: QueryObjectReader | undefined,
  secretQueryRefusal: string | undefined,
): Promise<QueriedValue[]> {
  const values: QueriedValue[] = [];
  for (const query of runtime.queries) {
    if (secretQueryRefusal !== undefined && query.apiVersion === 'v1' && query.kind === 'Secret') {
      throw new RuntimeQueryError(query.query, secretQueryRefusal);
    }
    if (!readObject) {
      throw new RuntimeQueryError(
        query.query,
        `runtime "${runtime.name}" has value queries, which need access to cluster ${cluster.name}; this command does not connect to clusters`,
      );
    }
    const object = await readObject(cluster, query);
    if (object === undefined) {
      if (query.optional) continue;
      throw new RuntimeQueryError(
        query.query,
        `not found in cluster ${cluster.name} (set optional: true to skip a missing object)`,
      );
    }
    values.push(...extractQueryValues(engine, query, object));
  }
  return values;
}
