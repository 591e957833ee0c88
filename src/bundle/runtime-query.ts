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
  for (const { name: valueName } of expressions) {
    if (valueName.length === 0 || valueName.length > 63 || !VALUE_NAME.test(valueName)) {
      throw new RuntimeQueryError(query, `"${valueName}" is not a valid value name (letters, digits, - and _, 1-63 characters)`);
    }
  }
  return { query, apiVersion, kind, namespace, name, expressions, optional };
}
