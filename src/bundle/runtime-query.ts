// Parses Timoni runtime value queries: `k8s:<apiVersion>:<kind>:<namespace>:<name>` for
// namespaced objects and `k8s:<apiVersion>:<kind>:<name>` for cluster-scoped ones.
import type { RuntimeQuery } from './types.js';

export class RuntimeQueryError extends Error {
  constructor(query: string, reason: string) {
    super(`runtime value query "${query}": ${reason}`);
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
  if (!pattern.test(value)) throw new RuntimeQueryError(query, `the ${label} ${JSON.stringify(value)} is not valid: ${rule}`);
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
  for (const [label, value] of [['apiVersion', apiVersion], ['kind', kind], ['name', name]] as const) {
    if (value === '') throw new RuntimeQueryError(query, `the ${label} is empty`);
  }
  if (parts.length === 5 && namespace === '') throw new RuntimeQueryError(query, 'the namespace is empty');
  checkSegment(query, 'apiVersion', apiVersion, API_VERSION, 'expected v1 or group/version, e.g. apps/v1');
  checkSegment(query, 'kind', kind, KIND, 'expected a kind such as ConfigMap');
  if (parts.length === 5) checkSegment(query, 'namespace', namespace, NAMESPACE, 'a namespace is a lowercase DNS label (letters, digits and -)');
  checkSegment(query, 'name', name, OBJECT_NAME, 'an object name is letters, digits, -, _ and . and starts and ends with a letter or digit');
  for (const { name: valueName } of expressions) {
    if (valueName.length === 0 || valueName.length > 63 || !VALUE_NAME.test(valueName)) {
      throw new RuntimeQueryError(query, `"${valueName}" is not a valid value name (letters, digits, - and _, 1-63 characters)`);
    }
  }
  return { query, apiVersion, kind, namespace, name, expressions, optional };
}
