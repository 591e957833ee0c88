// Apply what was reviewed: the desired state of one cluster as digests, and what differs
// between the state a pull request's diff recorded and the one about to be applied.
//
// The digest of a cluster is sha256 over stable JSON (map keys sorted) of, per instance,
// its module (url, version, digest) and every object it builds, normalised as a diff
// compares them (`kube/ssa/normalize.ts`), keyed `instance/Kind/namespace/name` and sorted by
// that key (the state, not the order it is applied in). A Secret's `data` and `stringData`
// values are replaced by `sha256:<hex>` of the value before anything else sees the object,
// so no secret value enters the digest's input nor its output. Each object also has a
// digest of its own (16 hex: 64 bits, enough to name the object that changed; the cluster
// digest, whole, decides whether anything changed), so that a mismatch can name objects.
//
// What a digest cannot hide: a Secret value of low entropy (a 4-digit PIN) could be guessed
// by hashing candidates and comparing with a published object digest, as with any published
// hash; the review record in the PR comment holds these digests.
//
// Pure: no cluster, no GitHub. The rollout computes the state (rollout.ts) and hands it to
// the run's `beforeApply`; the action compares it with the PR comment's record.
import { createHash } from 'node:crypto';
import type { ClusterChanges, DesiredState, ModuleInfo } from '../changeset.js';
import { isSecret, normalizeObject } from '../kube/ssa/index.js';
import { isRecord, type KubeObject } from '../kube/object.js';
import { moduleInfo, type ClusterInstanceBuild } from './session.js';

/** One instance as built for a cluster: its module and its objects in apply order. */
export interface DesiredInstance {
  name: string;
  module: ModuleInfo;
  objects: readonly KubeObject[];
}

/** Hex digits kept of each object's own digest. */
export const OBJECT_DIGEST_LENGTH = 16;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** JSON with every map's keys sorted, so that equal values give equal text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableJson(item === undefined ? null : item)).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `instance/Kind/namespace/name` (`instance/Kind/name` when cluster-scoped). */
export function objectKey(instance: string, object: Pick<KubeObject, 'kind' | 'metadata'>): string {
  return [instance, object.kind, object.metadata.namespace ?? '', object.metadata.name].filter(Boolean).join('/');
}

/** The object as the digest reads it: normalised, a Secret's values replaced by their sha256. */
export function digestInput(object: KubeObject): KubeObject {
  const normalised = normalizeObject(object);
  if (!isSecret(normalised)) return normalised;
  for (const field of ['data', 'stringData'] as const) {
    const value = normalised[field];
    if (value === undefined) continue;
    normalised[field] = isRecord(value)
      ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, `sha256:${sha256(String(item))}`]))
      : `sha256:${sha256(stableJson(value))}`;
  }
  const annotations = normalised.metadata.annotations;
  // `kubectl apply` copies the whole object, data included, into this annotation.
  const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
  if (annotations && lastApplied in annotations)
    normalised.metadata.annotations = {
      ...annotations,
      [lastApplied]: `sha256:${sha256(annotations[lastApplied] ?? '')}`,
    };
  return normalised;
}

/** The desired state of one cluster as digests: see the header. */
export function desiredState(instances: readonly DesiredInstance[]): DesiredState {
  const modules: Record<string, ModuleInfo> = {};
  const entries: Array<[string, string]> = [];
  for (const instance of instances) {
    modules[instance.name] = {
      url: instance.module.url,
      version: instance.module.version,
      digest: instance.module.digest,
    };
    for (const object of instance.objects) {
      let key = objectKey(instance.name, object);
      // The same name twice in one instance (two kinds of one name in different API groups).
      if (entries.some(([existing]) => existing === key)) key = `${key}#${object.apiVersion}`;
      entries.push([key, sha256(stableJson(digestInput(object)))]);
    }
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = sha256(stableJson({ modules, objects: entries }));
  const objects = Object.fromEntries(entries.map(([key, full]) => [key, full.slice(0, OBJECT_DIGEST_LENGTH)]));
  return { digest, modules, objects, objectCount: entries.length };
}

// ---------------------------------------------------------------------------------------
// Reviewed against current.

export interface ModuleDifference {
  instance: string;
  /** Absent: the instance was not in the reviewed state. */
  reviewed?: ModuleInfo;
  /** Absent: the instance is no longer in the bundle. */
  current?: ModuleInfo;
}

export interface ReviewDifference {
  modules: ModuleDifference[];
  changed: string[];
  added: string[];
  removed: string[];
  /** The record listed only some objects' digests (shortened to fit the comment): objects that differ may be unnamed. */
  partial: boolean;
}

function sameModule(a: ModuleInfo | undefined, b: ModuleInfo | undefined): boolean {
  return !!a && !!b && a.url === b.url && a.version === b.version && a.digest === b.digest;
}

/** What differs between the reviewed state and the current one; null when they are the same. */
export function compareDesired(reviewed: DesiredState, current: DesiredState): ReviewDifference | null {
  if (reviewed.digest === current.digest) return null;
  const instances = [...new Set([...Object.keys(reviewed.modules), ...Object.keys(current.modules)])];
  const modules = instances
    .filter((instance) => !sameModule(reviewed.modules[instance], current.modules[instance]))
    .map((instance) => ({
      instance,
      ...(reviewed.modules[instance] ? { reviewed: reviewed.modules[instance] } : {}),
      ...(current.modules[instance] ? { current: current.modules[instance] } : {}),
    }));
  const partial = Object.keys(reviewed.objects).length < reviewed.objectCount;
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [key, digest] of Object.entries(reviewed.objects)) {
    const now = current.objects[key];
    if (now === undefined) removed.push(key);
    else if (now !== digest) changed.push(key);
  }
  // With a partial record, an object not listed may have been reviewed: it is not called added.
  const added = partial ? [] : Object.keys(current.objects).filter((key) => !(key in reviewed.objects));
  return { modules, changed, added, removed, partial };
}

const LISTED = 10;

function list(keys: readonly string[]): string {
  const shown = keys.slice(0, LISTED).join(', ');
  return keys.length > LISTED ? `${shown} and ${keys.length - LISTED} more` : shown;
}

function moduleText(module: ModuleInfo | undefined): string {
  if (!module) return 'none';
  const digest = module.digest.replace(/^sha256:/, '').slice(0, 12);
  return `${module.url}:${module.version}${digest ? ` (sha256:${digest})` : ''}`;
}

/** What changed, in one sentence: modules (with their digests), then objects. */
export function describeDifference(difference: ReviewDifference): string {
  const parts: string[] = [];
  for (const module of difference.modules) {
    if (!module.reviewed) parts.push(`instance ${module.instance} is new (module ${moduleText(module.current)})`);
    else if (!module.current) parts.push(`instance ${module.instance} was removed`);
    else
      parts.push(
        `module of instance ${module.instance}: reviewed ${moduleText(module.reviewed)}, now ${moduleText(module.current)}`,
      );
  }
  if (difference.changed.length > 0) parts.push(`objects changed: ${list(difference.changed)}`);
  if (difference.added.length > 0) parts.push(`objects added: ${list(difference.added)}`);
  if (difference.removed.length > 0) parts.push(`objects removed: ${list(difference.removed)}`);
  if (difference.partial)
    parts.push(
      'objects the review record did not list one by one (it was shortened to fit the comment) may differ too',
    );
  if (parts.length === 0) parts.push('the objects differ');
  return parts.join('; ');
}

/** The desired state of a cluster's build (session.ts): every instance's module and objects. */
export function desiredOfBuild(instances: readonly ClusterInstanceBuild[]): DesiredState {
  return desiredState(
    instances.map((instance) => ({
      name: instance.name,
      module: moduleInfo(instance),
      objects: instance.built.sets.flatMap((set) => set.objects),
    })),
  );
}

/** The cluster's entry with its desired state, when it was computed. */
export function withDesired(entry: ClusterChanges, desired: DesiredState | undefined): ClusterChanges {
  return desired ? { ...entry, desired } : entry;
}
