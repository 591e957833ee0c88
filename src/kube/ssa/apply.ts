// Server-side apply of one object, sent exactly as built: PATCH
// application/apply-patch+yaml, field manager `timoni`, forced ownership, `dryRun=All` for
// dry-runs. applyObject adds what Timoni does around it: one-off objects, take-over of
// kubectl/Helm fields, no write when nothing drifted, recreate on immutable changes when forced.
import { formatLimit } from '../../duration.js';
import { KubeApiError, type KubeCluster } from '../connect/index.js';
import { ImmutableFieldError, immutableFields, isImmutableError } from './immutable.js';
import { takeOwnershipPatch } from './managed-fields.js';
import { jsonEqual, normalizeObject } from './normalize.js';
import { annotations, anyInMetadata, enabledValue, refOf, type KubeObject } from '../object.js';

/** Timoni's field manager: what it applies, Timoni owns, and the other way round. */
export const fieldManager = 'timoni';

export interface ServerSideApplyOptions {
  dryRun?: boolean;
}

/** The object as it is sent: a cluster-scoped kind loses a stray namespace (as Timoni does). */
async function scoped(cluster: KubeCluster, object: KubeObject): Promise<{ body: KubeObject; path: string }> {
  const location = await cluster.locate(refOf(object));
  let body = object;
  if (!location.mapping.namespaced && object.metadata.namespace !== undefined) {
    const { namespace: _dropped, ...metadata } = object.metadata;
    body = { ...object, metadata: metadata as KubeObject['metadata'] };
  }
  return { body, path: location.path };
}

/** One server-side apply request; answers the object as the server has (or would have) it. */
export async function serverSideApply(
  cluster: KubeCluster,
  object: KubeObject,
  options: ServerSideApplyOptions = {},
): Promise<KubeObject> {
  const { body, path } = await scoped(cluster, object);
  return cluster.client.request<KubeObject>({
    method: 'PATCH',
    path,
    query: { fieldManager, force: true, dryRun: options.dryRun ? 'All' : undefined },
    // JSON is YAML: the object goes out byte for byte as built, unknown fields included.
    body: JSON.stringify(body),
    contentType: 'application/apply-patch+yaml',
    object: refOf(object),
  });
}

/**
 * Gives Timoni the fields kubectl and Helm own on the live object, and removes their
 * tracking annotations; true when the object was patched.
 */
export async function takeOwnership(cluster: KubeCluster, live: KubeObject): Promise<boolean> {
  const patch = takeOwnershipPatch(live, fieldManager);
  if (patch.length === 0) return false;
  const { path } = await cluster.locate(refOf(live));
  await cluster.client.request({
    method: 'PATCH',
    path,
    query: { fieldManager },
    body: patch,
    contentType: 'application/json-patch+json',
    object: refOf(live),
  });
  return true;
}

/**
 * Whether `status` takes part in comparisons: only when the object sets it and its kind has
 * no status subresource (otherwise apply never changes it, and controllers change it anytime).
 */
export async function comparesStatus(cluster: KubeCluster, desired: KubeObject): Promise<boolean> {
  if (desired.status === undefined) return false;
  const mapping = await cluster.discovery.mappingOrNull(desired.apiVersion, desired.kind);
  return !!mapping && !mapping.statusSubresource;
}

/** Live and dry-run objects differ in something apply owns (metadata or content). */
export function hasDrifted(live: KubeObject, dryRun: KubeObject, withStatus = false): boolean {
  return !jsonEqual(
    normalizeObject(live, { dropStatus: !withStatus }),
    normalizeObject(dryRun, { dropStatus: !withStatus }),
  );
}

export interface ApplyObjectOptions {
  /** Recreate objects whose immutable fields change (Timoni's `--force`). */
  force?: boolean;
  /** How long to wait for a deleted object to be gone before recreating it; default 60 s. */
  deleteTimeoutMs?: number;
}

export type ApplyAction = 'created' | 'configured' | 'unchanged' | 'recreated' | 'skipped';

export interface ApplyResult {
  action: ApplyAction;
  /** The object as the server holds it after the apply (the live one when untouched). */
  object: KubeObject;
  /** For `recreated`: the immutable fields the server named. */
  immutableFields?: string[];
}

/** True when the object must be recreated after an immutable-field error. */
export function mustRecreate(desired: KubeObject, live: KubeObject | null, force: boolean | undefined): boolean {
  const selector = { [annotations.force]: enabledValue };
  return !!force || anyInMetadata(desired, selector) || anyInMetadata(live, selector);
}

/** An object marked one-off that already exists is left alone. */
export function isOneOffPresent(desired: KubeObject, live: KubeObject | null): boolean {
  return !!live && anyInMetadata(desired, { [annotations.oneOff]: enabledValue });
}

async function waitGone(cluster: KubeCluster, object: KubeObject, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await cluster.get(refOf(object))) !== null) {
    if (Date.now() > deadline) {
      throw new Error(
        `cluster ${cluster.name}: ${refOf(object).kind}/${object.metadata.name} was deleted to be recreated but still exists after ${formatLimit(timeoutMs)} (finalizers?)`,
      );
    }
    await new Promise((resolveTimer) => setTimeout(resolveTimer, 250));
  }
}

/**
 * Applies one object as Timoni does: dry-run first; an immutable-field change is an
 * ImmutableFieldError unless forced (then delete, wait, create: `recreated`); kubectl/Helm
 * fields are taken over; nothing is written when nothing drifted (`unchanged`).
 */
export async function applyObject(
  cluster: KubeCluster,
  desired: KubeObject,
  options: ApplyObjectOptions = {},
): Promise<ApplyResult> {
  const ref = refOf(desired);
  const live = await cluster.get(ref);
  if (isOneOffPresent(desired, live)) return { action: 'skipped', object: live! };

  let dryRun: KubeObject;
  try {
    dryRun = await serverSideApply(cluster, desired, { dryRun: true });
  } catch (error) {
    if (live && isImmutableError(error)) {
      if (!mustRecreate(desired, live, options.force))
        throw new ImmutableFieldError(cluster.name, ref, immutableFields(error), error);
      await cluster.delete(ref);
      await waitGone(cluster, desired, options.deleteTimeoutMs ?? 60_000);
      return {
        action: 'recreated',
        object: await serverSideApply(cluster, desired),
        immutableFields: immutableFields(error),
      };
    }
    throw error;
  }

  const tookOver = live ? await takeOwnership(cluster, live) : false;
  if (live && !tookOver && !hasDrifted(live, dryRun, await comparesStatus(cluster, desired)))
    return { action: 'unchanged', object: live };
  const applied = await serverSideApply(cluster, desired);
  return { action: live ? 'configured' : 'created', object: applied };
}

export { KubeApiError };
