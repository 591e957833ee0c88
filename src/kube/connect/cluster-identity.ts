// A cluster's identity, so that a kube context renamed or a kubeconfig secret copied from
// staging to production never applies one cluster's values to another. The identity is the
// UID of the `kube-system` Namespace (given by the API server when the cluster is created,
// never reused); timoni-fleet records, in the cluster itself, which runtime cluster it is:
// a ConfigMap of its own (`timoni-fleet-identity` in `kube-system`, field manager
// `timoni-fleet`). Timoni's inventory Secrets are never touched, and Timoni never reads,
// prunes or deletes this object (it carries no instance label), so `timoni bundle apply`,
// `status` and `delete` behave as before. `kube-system` because it exists in every cluster,
// outlives every bundle's namespaces, and is where cluster-wide facts live.
//
// A record that names another runtime cluster refuses the cluster (ClusterIdentityError,
// naming both names, the context and the UID) unless the run re-pins it on purpose.
import type { KubeCluster } from './cluster.js';
import { KubeApiError } from './errors.js';
import { isRecord, otherFieldManagers, type KubeObject } from '../object.js';

export const IDENTITY_NAMESPACE = 'kube-system';
export const DEFAULT_IDENTITY_RECORD = 'timoni-fleet-identity';
/** Our own field manager: the record is never Timoni's, and Timoni's fields are never ours. */
export const IDENTITY_FIELD_MANAGER = 'timoni-fleet';
export const IDENTITY_LABELS = {
  'app.kubernetes.io/managed-by': 'timoni-fleet',
  'app.kubernetes.io/component': 'cluster-identity',
} as const;

/** What the record says: this cluster (kube-system UID) is runtime cluster `runtimeCluster`. */
export interface IdentityRecord {
  runtimeCluster: string;
  uid: string;
  /** ISO 8601. */
  recordedAt: string;
}

/**
 * `check`: refuse a cluster whose record names another runtime cluster (nothing written);
 * `record`: also write the record on an apply when there is none (the first apply), and
 * refuse two runtime clusters of one run that reach the same cluster; `off`: nothing.
 */
export const IDENTITY_MODES = ['check', 'record', 'off'] as const;
export type IdentityMode = (typeof IDENTITY_MODES)[number];

/** A cluster refused because its identity does not match the runtime cluster it was reached as. */
export class ClusterIdentityError extends Error {
  override name = 'ClusterIdentityError';
  constructor(
    message: string,
    readonly uid?: string,
    /** The record that refused the cluster, when one did. */
    readonly record?: IdentityRecord,
  ) {
    super(message);
  }
}

/** `1a2b3c4d…` — enough of a UID to tell clusters apart in a report. */
export function shortUid(uid: string): string {
  return uid.length > 8 ? `${uid.slice(0, 8)}…` : uid;
}

const namespacePath = `/api/v1/namespaces/${IDENTITY_NAMESPACE}`;
const recordPath = (name: string) => `${namespacePath}/configmaps/${encodeURIComponent(name)}`;

/** The UID of the cluster's `kube-system` Namespace. */
export async function readClusterUid(cluster: KubeCluster): Promise<string> {
  const namespace = await cluster.client.request<KubeObject>({
    method: 'GET',
    path: namespacePath,
    object: { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: IDENTITY_NAMESPACE },
  });
  const uid = namespace.metadata?.uid;
  if (typeof uid !== 'string' || uid === '')
    throw new Error(`cluster ${cluster.name}: the ${IDENTITY_NAMESPACE} Namespace has no UID`);
  return uid;
}

/** The record's data, or null when the object is not a record of ours (missing fields). */
export function parseIdentityRecord(object: KubeObject | null): IdentityRecord | null {
  const data = object && isRecord(object.data) ? object.data : null;
  if (!data) return null;
  const { runtimeCluster, uid, recordedAt } = data;
  if (typeof runtimeCluster !== 'string' || runtimeCluster === '' || typeof uid !== 'string' || uid === '') return null;
  return { runtimeCluster, uid, recordedAt: typeof recordedAt === 'string' ? recordedAt : '' };
}

/** The ConfigMap that records the identity, as it is applied. */
export function identityRecordObject(name: string, record: IdentityRecord): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: IDENTITY_NAMESPACE, labels: { ...IDENTITY_LABELS } },
    data: { runtimeCluster: record.runtimeCluster, uid: record.uid, recordedAt: record.recordedAt },
  };
}

/** The record as read, with why it is not trusted when it is not. */
export interface ReadIdentityRecord {
  /** The record's data; null when there is none, or when it is not trusted (`untrusted` says why). */
  record: IdentityRecord | null;
  /** Set when the ConfigMap was written by another field manager than ours: the reason, naming it. */
  untrusted?: string;
  /** The other field managers that wrote it (`untrusted` only). */
  managers?: string[];
}

/** `ConfigMap/kube-system/<name>` */
export function identityRecordRef(name: string): string {
  return `ConfigMap/${IDENTITY_NAMESPACE}/${name}`;
}

/**
 * The record in the cluster, checked: it counts only when nothing but timoni-fleet ever
 * wrote it (every `metadata.managedFields` entry's manager is IDENTITY_FIELD_MANAGER). A
 * bundle's objects are applied with Timoni's manager and anyone else's tool with its own,
 * so a record they wrote (or touched) is not trusted: `record` is null and `untrusted` says
 * which managers wrote it.
 */
export async function readIdentityRecordChecked(
  cluster: KubeCluster,
  name = DEFAULT_IDENTITY_RECORD,
): Promise<ReadIdentityRecord> {
  const object = await cluster.client.getOrNull<KubeObject>(recordPath(name), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: IDENTITY_NAMESPACE,
    name,
  });
  if (!object) return { record: null };
  const managers = otherFieldManagers(object, IDENTITY_FIELD_MANAGER);
  if (managers.length > 0)
    return {
      record: null,
      managers,
      untrusted: `cluster ${cluster.name}: ${identityRecordRef(name)} ignored: written by field manager(s) ${managers.join(', ')}, not only ${IDENTITY_FIELD_MANAGER}`,
    };
  return { record: parseIdentityRecord(object) };
}

/**
 * The record in the cluster, or null when there is none or it is not trusted
 * (readIdentityRecordChecked); a record not trusted is told to `onIgnored`.
 */
export async function readIdentityRecord(
  cluster: KubeCluster,
  name = DEFAULT_IDENTITY_RECORD,
  onIgnored?: (message: string) => void,
): Promise<IdentityRecord | null> {
  const read = await readIdentityRecordChecked(cluster, name);
  if (read.untrusted) onIgnored?.(read.untrusted);
  return read.record;
}

/** Writes (or overwrites) the record with server-side apply under our own field manager. */
export async function writeIdentityRecord(
  cluster: KubeCluster,
  record: IdentityRecord,
  name = DEFAULT_IDENTITY_RECORD,
): Promise<void> {
  await cluster.client.request({
    method: 'PATCH',
    path: recordPath(name),
    query: { fieldManager: IDENTITY_FIELD_MANAGER, force: true },
    body: JSON.stringify(identityRecordObject(name, record)),
    contentType: 'application/apply-patch+yaml',
    object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: IDENTITY_NAMESPACE, name },
  });
}

/** Removes the record (tests, or a cluster retired from the fleet); false when there was none. */
export async function deleteIdentityRecord(cluster: KubeCluster, name = DEFAULT_IDENTITY_RECORD): Promise<boolean> {
  try {
    await cluster.client.request({
      method: 'DELETE',
      path: recordPath(name),
      object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: IDENTITY_NAMESPACE, name },
    });
    return true;
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return false;
    throw error;
  }
}

// ---- The decision (pure)

export interface IdentityContext {
  runtimeCluster: string;
  kubeContext: string;
  /** How to re-pin, in the words of the entry point; by default both the action's and the CLI's. */
  repinAdvice?: string;
}

/** The message of a refused cluster: both names, the context, the UID, and how to re-pin. */
export function mismatchMessage(context: IdentityContext, record: IdentityRecord, uid: string): string {
  const reached = context.kubeContext ? `context "${context.kubeContext}"` : 'the current context';
  return (
    `${reached} reaches the cluster recorded as "${record.runtimeCluster}" (kube-system uid ${uid}${record.recordedAt ? `, recorded ${record.recordedAt}` : ''}), not "${context.runtimeCluster}": ` +
    `was the kubeconfig or its secret copied, or the context renamed? The cluster is refused. ` +
    `To re-pin it deliberately, ${context.repinAdvice ?? `run an apply with repin-clusters: ${context.runtimeCluster} (CLI: --repin-cluster ${context.runtimeCluster})`}`
  );
}

export type IdentityDecision =
  /** The record names this runtime cluster (its UID may be rewritten when it differs). */
  | { kind: 'match'; record: IdentityRecord; rewrite: boolean }
  /** No record: write one when recording on an apply. */
  | { kind: 'none' }
  /** The record names another runtime cluster and no re-pin was asked for. */
  | { kind: 'mismatch'; record: IdentityRecord; message: string }
  /** The record names another runtime cluster and the run re-pins this one. */
  | { kind: 'repin'; record: IdentityRecord };

/**
 * What to do with a cluster given its record (or none) and its live UID. A record whose UID
 * is not the live one but names this runtime cluster (restored from a backup of this very
 * cluster) matches and is rewritten; a record naming another runtime cluster is refused
 * whatever its UID says, since it lies in the cluster reached.
 */
export function decideIdentity(
  context: IdentityContext,
  record: IdentityRecord | null,
  uid: string,
  repin: boolean,
): IdentityDecision {
  if (!record) return { kind: 'none' };
  if (record.runtimeCluster === context.runtimeCluster) return { kind: 'match', record, rewrite: record.uid !== uid };
  if (repin) return { kind: 'repin', record };
  return { kind: 'mismatch', record, message: mismatchMessage(context, record, uid) };
}

/**
 * `repin-clusters` / `--repin-cluster`: names separated by commas, spaces or lines. Runtime
 * cluster names are case-insensitive in selections, so they are compared lower-cased.
 */
export function parseRepinList(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(/[\s,]+/))
    .map((name) => name.trim())
    .filter(Boolean);
}

export function repinsCluster(repin: readonly string[], runtimeCluster: string): boolean {
  const name = runtimeCluster.toLowerCase();
  return repin.some((entry) => entry.toLowerCase() === name);
}

// ---- Establishing a cluster's identity (the fleet calls this once per cluster, after connecting)

export interface EstablishIdentityOptions {
  mode: IdentityMode;
  /** The record's ConfigMap name (default DEFAULT_IDENTITY_RECORD). */
  recordName?: string;
  /** The run re-pins this runtime cluster: a record naming another one is overwritten (on apply). */
  repin: boolean;
  /** How to re-pin, in the words of the entry point (the refusal's last sentence). */
  repinAdvice?: string;
  /** An apply (records may be written) rather than a diff (nothing is written). */
  apply: boolean;
  now?: () => Date;
  /** Told the UID as soon as it is read, before any decision or write; may throw to refuse the cluster. */
  onUid?: (uid: string) => void;
}

export interface EstablishedIdentity {
  /** The kube-system UID; absent when it was not read (no record, nothing to record) or not readable. */
  uid?: string;
  /** The record as found (before any write). */
  record: IdentityRecord | null;
  /** What this run wrote: the first record, a re-pin, or a rewrite of a record with an old UID. */
  change?: 'recorded' | 'repinned' | 'rewritten';
  /** The record as it stands after this run (written or found), when it names this cluster. */
  current?: IdentityRecord;
  /** A line for the log: why nothing was checked, or what a re-pin will do. */
  note?: string;
}

const isForbidden = (error: unknown): error is KubeApiError =>
  error instanceof KubeApiError && (error.status === 403 || error.status === 401);

function rightsMessage(cluster: KubeCluster, recordName: string, error: KubeApiError): string {
  return `cluster ${cluster.name}: cannot read or write its identity record (get and patch on ConfigMap ${IDENTITY_NAMESPACE}/${recordName}, get on Namespace ${IDENTITY_NAMESPACE} are needed): ${error.statusMessage || `HTTP ${error.status}`}`;
}

/**
 * Reads the cluster's identity record and decides: a record naming another runtime cluster
 * throws ClusterIdentityError (unless re-pinned: on an apply the record is overwritten, a
 * diff only says so); in `record` mode an apply writes the first record. A user who may not
 * read the record is not refused in `check` mode (the identity is then not checked, and
 * `note` says so); in `record` mode on an apply it is an error.
 */
export async function establishIdentity(
  cluster: KubeCluster,
  context: IdentityContext,
  options: EstablishIdentityOptions,
): Promise<EstablishedIdentity | null> {
  if (options.mode === 'off') return null;
  const recordName = options.recordName || DEFAULT_IDENTITY_RECORD;
  const writes = options.apply && (options.mode === 'record' || options.repin);
  let record: IdentityRecord | null;
  let uid: string | undefined;
  let untrusted: ReadIdentityRecord | undefined;
  try {
    const read = await readIdentityRecordChecked(cluster, recordName);
    record = read.record;
    if (read.untrusted) untrusted = read;
    // Without a record and nothing to write, the UID is not needed: one request per cluster.
    if (record || options.mode === 'record') uid = await readClusterUid(cluster);
  } catch (error) {
    if (!isForbidden(error)) throw error;
    if (writes) throw new ClusterIdentityError(rightsMessage(cluster, recordName, error));
    return { record: null, note: `cluster identity not checked: ${rightsMessage(cluster, recordName, error)}` };
  }
  // A record someone else wrote is not trusted: as if there were none for a check; never
  // overwritten silently (someone tampered with it, and a write would hide that).
  if (untrusted) {
    if (writes)
      throw new ClusterIdentityError(
        `${untrusted.untrusted ?? ''}: it is not trusted, and not overwritten (was it tampered with?). The cluster is refused. ` +
          `Look at who wrote it; to record the cluster again, delete it (kubectl -n ${IDENTITY_NAMESPACE} delete configmap ${recordName}) and apply again`,
        uid,
      );
    const note = `cluster identity not checked: ${untrusted.untrusted ?? ''}; it is treated as absent`;
    return uid ? { uid, record: null, note } : { record: null, note };
  }
  if (!uid) return { record };
  const decision = decideIdentity(
    options.repinAdvice ? { ...context, repinAdvice: options.repinAdvice } : context,
    record,
    uid,
    options.repin,
  );
  // A record naming another runtime cluster says more (a copied kubeconfig) than the run's
  // own check that no two of its runtime clusters reach this cluster: it is reported first.
  if (decision.kind === 'mismatch')
    throw new ClusterIdentityError(`cluster ${context.runtimeCluster}: ${decision.message}`, uid, decision.record);
  options.onUid?.(uid);
  const fresh: IdentityRecord = {
    runtimeCluster: context.runtimeCluster,
    uid,
    recordedAt: (options.now ?? (() => new Date()))().toISOString(),
  };
  const write = async (change: NonNullable<EstablishedIdentity['change']>): Promise<EstablishedIdentity> => {
    try {
      await writeIdentityRecord(cluster, fresh, recordName);
    } catch (error) {
      if (isForbidden(error)) throw new ClusterIdentityError(rightsMessage(cluster, recordName, error), uid);
      throw error;
    }
    return { uid, record, change, current: fresh };
  };
  switch (decision.kind) {
    case 'none':
      return options.apply && options.mode === 'record' ? write('recorded') : { uid, record };
    case 'match':
      return decision.rewrite && writes ? write('rewritten') : { uid, record, current: decision.record };
    case 'repin':
      if (options.apply) return write('repinned');
      return {
        uid,
        record,
        note: `cluster identity: recorded as "${decision.record.runtimeCluster}"; re-pinned as "${context.runtimeCluster}" by an apply with this re-pin`,
      };
  }
}
