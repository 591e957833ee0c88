// One built instance as the lifecycle operations take it (apply, diff), and the error
// that says which step of an instance's lifecycle failed and what was done before it.
import type { ObjectChange } from '../../changeset.js';
import { bundleNameLabel, inventoryEntries, ownerLabels, type InstanceRecord } from './inventory.js';
import { cloneJson, type KubeObject, type ObjectRef } from '../object.js';

export interface InstanceModule {
  /** `oci://...` or `file://...` (stored as the module `repository`). */
  url: string;
  version: string;
  digest: string;
  /** The module's name (`timoni.sh/podinfo`). */
  name: string;
  /** Pulled modules: the repository as Timoni records it (`oci://index.docker.io/...`); default `url`. */
  repository?: string;
  /** The artifact's manifest annotations (pulled modules), recorded as Timoni does. */
  annotations?: Record<string, string>;
}

export interface InstanceApplySet {
  name: string;
  objects: KubeObject[];
}

/** One instance of a bundle, built for one cluster. */
export interface BuiltInstanceInput {
  bundle: string;
  name: string;
  namespace: string;
  module: InstanceModule;
  /** Apply sets in declaration order (`app`, then e.g. `test`). */
  sets: InstanceApplySet[];
  /**
   * The instance values as Timoni's instance record stores them: the evaluated values
   * struct as CUE text (`{\n\treplicas: 2\n}`), what `timoni inspect values` prints.
   */
  valuesSource: string;
  images: string[];
}

export type InstanceStep =
  'reserved' | 'ownership' | 'namespace' | 'apply' | 'wait' | 'prune' | 'inventory' | 'diff' | 'status' | 'delete';

/** A lifecycle step failed: names the cluster, instance, step and object, and what was done before. */
export class InstanceStepError extends Error {
  override name = 'InstanceStepError';
  constructor(
    readonly cluster: string,
    readonly step: InstanceStep,
    /** `namespace/name` of the instance. */
    readonly instance: string,
    /** The changes made (or, for a diff, found) before the failure, in order. */
    readonly changes: ObjectChange[],
    override readonly cause: unknown,
    /** `Kind/namespace/name` of the object concerned, if one is. */
    readonly object?: string,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    // The cause usually names the cluster already; say it once.
    const detail = reason.startsWith(`cluster ${cluster}: `) ? reason.slice(`cluster ${cluster}: `.length) : reason;
    super(
      `cluster ${cluster}: instance ${instance}: ${step} failed${object && !detail.includes(object) ? ` (${object})` : ''}: ${detail}`,
    );
  }
}

export function instanceId(instance: { name: string; namespace: string }): string {
  return `${instance.namespace}/${instance.name}`;
}

/** The objects of every set, in set order, each a copy carrying the instance's owner labels. */
export function labelledSets(instance: BuiltInstanceInput): InstanceApplySet[] {
  return instance.sets.map((set) => ({
    name: set.name,
    objects: set.objects.map((object) => {
      const copy = cloneJson(object);
      copy.metadata.labels = {
        ...copy.metadata.labels,
        [ownerLabels.name]: instance.name,
        [ownerLabels.namespace]: instance.namespace,
      };
      return copy;
    }),
  }));
}

/** True when the live object carries the owner labels of this instance (fluxcd ssa delete inclusions). */
export function ownedBy(live: KubeObject, instance: { name: string; namespace: string }): boolean {
  const labels = live.metadata.labels ?? {};
  return labels[ownerLabels.name] === instance.name && labels[ownerLabels.namespace] === instance.namespace;
}

const localPrefix = 'file://';

/**
 * The module as Timoni records it: a local module (`file://`) by its path as written, with
 * digest `unknown` (internal/engine/fetcher/local.go); a registry module by its URL.
 */
export function moduleReference(module: InstanceModule): InstanceRecord['module'] {
  if (!module.url.startsWith(localPrefix)) {
    const annotations =
      module.annotations && Object.keys(module.annotations).length > 0 ? { ...module.annotations } : undefined;
    return {
      name: module.name,
      repository: module.repository ?? module.url,
      version: module.version,
      digest: module.digest,
      ...(annotations ? { annotations } : {}),
    };
  }
  return {
    name: module.name,
    repository: module.url.slice(localPrefix.length),
    version: module.version,
    digest: module.digest || 'unknown',
  };
}

/** The record Timoni stores for this build: the inventory of every set, the bundle label. */
export function instanceRecord(
  instance: BuiltInstanceInput,
  inventoryRefs: ObjectRef[],
  withImages: boolean,
): InstanceRecord {
  return {
    name: instance.name,
    namespace: instance.namespace,
    labels: { [bundleNameLabel]: instance.bundle },
    module: moduleReference(instance.module),
    values: instance.valuesSource,
    inventory: { entries: inventoryEntries(inventoryRefs) },
    images: withImages ? [...instance.images] : undefined,
  };
}
