// The values that `@timoni(runtime:...)` attributes receive for one cluster, merged in
// Timoni's order (later wins): the environment (only what runtime-environment.ts offers), then the
// runtime's value queries, then TIMONI_CLUSTER_NAME and TIMONI_CLUSTER_GROUP (only when
// the runtime declares clusters). Each value remembers whether it is secret, so reports
// can hide what came from the environment or from a cluster Secret.
import { isSecretVariable } from './runtime-environment.js';
import type { RuntimeCluster } from './types.js';
import { DEFAULT_RUNTIME_NAME } from './types.js';

export interface RuntimeValue {
  value: string;
  secret: boolean;
  /** Where the value came from, for messages that must not show the value itself. */
  source: 'environment' | 'query' | 'cluster';
}

export type RuntimeValues = Map<string, RuntimeValue>;

export interface QueriedValue {
  name: string;
  value: string;
  secret: boolean;
}

export function mergeRuntimeValues(
  cluster: RuntimeCluster,
  environment: Record<string, string | undefined> | undefined,
  queried: QueriedValue[],
): RuntimeValues {
  const values: RuntimeValues = new Map();
  for (const [name, value] of Object.entries(environment ?? {})) {
    if (value !== undefined) values.set(name, { value, secret: isSecretVariable(name), source: 'environment' });
  }
  for (const { name, value, secret } of queried) values.set(name, { value, secret, source: 'query' });
  if (cluster.name !== DEFAULT_RUNTIME_NAME) {
    values.set('TIMONI_CLUSTER_NAME', { value: cluster.name, secret: false, source: 'cluster' });
    values.set('TIMONI_CLUSTER_GROUP', { value: cluster.group, secret: false, source: 'cluster' });
  }
  return values;
}

/** The plain name -> value map the CUE engine's injection takes. */
export function plainValues(values: RuntimeValues): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, { value }] of values) plain[name] = value;
  return plain;
}
