// What applying one object would change, without writing anything: GET the live object,
// server-side apply dry-run, compare normalised YAML (Secret data masked). An object the
// API server refuses (an immutable field without force, an invalid value, a forbidden
// kind) is a `failed` change with the server's answer, as Timoni's dry-run diff logs it
// and goes on; a server that cannot be reached or refuses the credentials is thrown.
import type { ObjectChange } from '../changeset.js';
import { comparesStatus, isOneOffPresent, mustRecreate, serverSideApply } from './apply.js';
import type { KubeCluster } from './cluster.js';
import { NoMatchError } from './discovery.js';
import { KubeApiError } from './errors.js';
import { fieldChangesDiff, recreateDiff } from './field-changes.js';
import { ImmutableFieldError, immutableFields, isImmutableError } from './immutable.js';
import { isSecret, maskSecret, maskSecretPair } from './mask.js';
import { jsonEqual, normalizeObject } from './normalize.js';
import { refOf, type KubeObject } from './object.js';
import { unifiedDiff } from './unified-diff.js';
import { renderYaml } from './yaml-render.js';

export interface DiffObjectOptions {
  /**
   * False when the instance namespace does not exist yet: every object is `created`,
   * and the server is not asked (as Timoni does). Default true.
   */
  namespaceExists?: boolean;
  /** Immutable-field changes become `recreated` instead of an ImmutableFieldError. */
  force?: boolean;
}

/** The whole object, as a diff from nothing. */
export function wholeObjectDiff(object: KubeObject): string {
  return unifiedDiff('', renderYaml(maskSecret(normalizeObject(object))));
}

/** The unified diff of normalised, masked YAML; empty when the objects are the same. */
export function objectDiff(live: KubeObject, desired: KubeObject, withStatus = false): string {
  const a = normalizeObject(live, { dropStatus: !withStatus });
  const b = normalizeObject(desired, { dropStatus: !withStatus });
  if (jsonEqual(a, b)) return '';
  const masked = isSecret(a) || isSecret(b) ? maskSecretPair(a, b) : { live: a, desired: b };
  return unifiedDiff(renderYaml(masked.live), renderYaml(masked.desired));
}

/**
 * True for an error about this one object: the API server answered and refused it
 * (4xx), other than for the credentials (401) or its own load (429).
 */
export function isObjectError(error: unknown): boolean {
  if (error instanceof ImmutableFieldError) return true;
  return error instanceof KubeApiError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
}

async function changeOf(cluster: KubeCluster, desired: KubeObject, action: ObjectChange['action'], diff: string | ((shown: KubeObject) => string), error?: string): Promise<ObjectChange> {
  const mapping = await cluster.discovery.mappingOrNull(desired.apiVersion, desired.kind).catch(() => null);
  const namespace = mapping && !mapping.namespaced ? '' : (desired.metadata.namespace ?? '');
  // A cluster-scoped object is shown without the namespace the server would drop.
  let shown = desired;
  if (!namespace && desired.metadata.namespace !== undefined) {
    const { namespace: _dropped, ...metadata } = desired.metadata;
    shown = { ...desired, metadata: metadata as KubeObject['metadata'] };
  }
  const change: ObjectChange = { kind: desired.kind, apiVersion: desired.apiVersion, namespace, name: desired.metadata.name, action, diff: typeof diff === 'string' ? diff : diff(shown) };
  if (error !== undefined) change.error = error;
  return change;
}

/** The object as a `failed` change: the error's message, and the field changes when it has a live copy. */
function failedChange(cluster: KubeCluster, desired: KubeObject, live: KubeObject | null, error: Error): Promise<ObjectChange> {
  return changeOf(cluster, desired, 'failed', (shown) => (live ? fieldChangesDiff(live, shown) : ''), error.message);
}

/** The change applying `desired` would make, as an ObjectChange of the ChangeSet. */
export async function diffObject(cluster: KubeCluster, desired: KubeObject, options: DiffObjectOptions = {}): Promise<ObjectChange> {
  if (options.namespaceExists === false) return changeOf(cluster, desired, 'created', wholeObjectDiff);

  let live: KubeObject | null;
  try {
    live = await cluster.get(refOf(desired));
  } catch (error) {
    // A kind whose CRD comes with the same apply is not served yet: it will be created.
    if (error instanceof NoMatchError) return changeOf(cluster, desired, 'created', wholeObjectDiff);
    if (isObjectError(error)) return failedChange(cluster, desired, null, error as Error);
    throw error;
  }
  if (isOneOffPresent(desired, live)) return changeOf(cluster, desired, 'skipped', '');

  let dryRun: KubeObject;
  try {
    dryRun = await serverSideApply(cluster, desired, { dryRun: true });
  } catch (error) {
    let refused = error;
    if (live && isImmutableError(error)) {
      const fields = immutableFields(error);
      if (mustRecreate(desired, live, options.force)) return changeOf(cluster, desired, 'recreated', (shown) => recreateDiff(live, shown, fields));
      refused = new ImmutableFieldError(cluster.name, refOf(desired), fields, error);
    }
    if (isObjectError(refused)) return failedChange(cluster, desired, live, refused as Error);
    throw refused;
  }
  if (!live || !dryRun.metadata.resourceVersion) return changeOf(cluster, desired, 'created', wholeObjectDiff);
  const diff = objectDiff(live, dryRun, await comparesStatus(cluster, desired));
  return changeOf(cluster, desired, diff ? 'configured' : 'unchanged', diff);
}
