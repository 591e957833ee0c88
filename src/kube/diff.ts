// What applying one object would change, without writing anything: GET the live object,
// server-side apply dry-run, compare normalised YAML (Secret data masked).
import type { ObjectChange } from '../fleet/changeset.js';
import { comparesStatus, isOneOffPresent, mustRecreate, serverSideApply } from './apply.js';
import type { KubeCluster } from './cluster.js';
import { NoMatchError } from './discovery.js';
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

async function changeOf(cluster: KubeCluster, desired: KubeObject, action: ObjectChange['action'], diff: string | ((shown: KubeObject) => string)): Promise<ObjectChange> {
  const mapping = await cluster.discovery.mappingOrNull(desired.apiVersion, desired.kind).catch(() => null);
  const namespace = mapping && !mapping.namespaced ? '' : (desired.metadata.namespace ?? '');
  // A cluster-scoped object is shown without the namespace the server would drop.
  let shown = desired;
  if (!namespace && desired.metadata.namespace !== undefined) {
    const { namespace: _dropped, ...metadata } = desired.metadata;
    shown = { ...desired, metadata: metadata as KubeObject['metadata'] };
  }
  return { kind: desired.kind, apiVersion: desired.apiVersion, namespace, name: desired.metadata.name, action, diff: typeof diff === 'string' ? diff : diff(shown) };
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
    throw error;
  }
  if (isOneOffPresent(desired, live)) return changeOf(cluster, desired, 'skipped', '');

  let dryRun: KubeObject;
  try {
    dryRun = await serverSideApply(cluster, desired, { dryRun: true });
  } catch (error) {
    if (live && isImmutableError(error)) {
      if (mustRecreate(desired, live, options.force)) return changeOf(cluster, desired, 'recreated', wholeObjectDiff);
      throw new ImmutableFieldError(cluster.name, refOf(desired), immutableFields(error), error);
    }
    throw error;
  }
  if (!live || !dryRun.metadata.resourceVersion) return changeOf(cluster, desired, 'created', wholeObjectDiff);
  const diff = objectDiff(live, dryRun, await comparesStatus(cluster, desired));
  return changeOf(cluster, desired, diff ? 'configured' : 'unchanged', diff);
}
