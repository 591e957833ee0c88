// The bundle and runtime as timoni-fleet reads them from CUE, independent of any cluster.
import type { ValueLocator } from './value-positions.js';

/** One cluster of a runtime, in the order the runtime declares it. */
export interface RuntimeCluster {
  name: string;
  group: string;
  kubeContext: string;
}

/** A runtime value query: read one Kubernetes object and extract named values from it. */
export interface RuntimeQuery {
  /** The query text as written, e.g. `k8s:v1:Secret:infra:redis-auth`. */
  query: string;
  apiVersion: string;
  kind: string;
  /** Empty for cluster-scoped objects (`k8s:<apiVersion>:<kind>:<name>`). */
  namespace: string;
  name: string;
  /** Value name -> CUE expression evaluated with the object bound to `obj`, in declaration order. */
  expressions: Array<{ name: string; expression: string }>;
  /** When true a missing object is skipped; any other error still fails. */
  optional: boolean;
}

export interface Runtime {
  name: string;
  clusters: RuntimeCluster[];
  queries: RuntimeQuery[];
  /** True when the runtime declares no clusters and one `_default` cluster stands in. */
  isDefault: boolean;
}

export interface ModuleReference {
  /** `oci://...` or `file://...`; relative file URLs are resolved against the declaring file. */
  url: string;
  /** The tag to pull, `latest` by default. */
  version: string;
  /** Optional `sha256:...` digest the pulled module must have. */
  digest?: string;
}

export interface BundleInstance {
  name: string;
  namespace: string;
  module: ModuleReference;
  /** The instance values, concrete, in CUE field order. */
  values: Record<string, unknown>;
  /**
   * The instance values as CUE text (Go's %v of the value: defaults and constraints kept),
   * what Timoni hands to the module build.
   */
  valuesCue: string;
  /**
   * Where the user wrote each value, looked up on demand (the bundle evaluated again), so
   * that a module build's errors in the values point at the bundle's lines.
   */
  locateValues?: () => ValueLocator;
}

export interface Bundle {
  apiVersion: string;
  name: string;
  instances: BundleInstance[];
}

/** A bundle evaluated for one cluster of the runtime. */
export interface ClusterBundle {
  cluster: RuntimeCluster;
  bundle: Bundle;
  /** The whole `bundle` value exported to JSON, defaults resolved (what `vet --print-value -o json` prints). */
  value: Record<string, unknown>;
  /** The `bundle` value as CUE text (what `vet --print-value` prints). */
  cueText: string;
  /** Names of the runtime values that are secret (read from cluster Secrets, or environment credentials: runtime-environment.ts). */
  secretValueNames: string[];
  /** The secret values themselves, so that logs and reports can mask them; never printed. */
  secretValues: string[];
  /**
   * The subset of `secretValues` read from cluster Secrets by runtime value queries: what the
   * CLI's `vet` and `build` hide in what they print (the environment is the user's own there).
   */
  clusterSecretValues: string[];
}

export const DEFAULT_RUNTIME_NAME = '_default';
