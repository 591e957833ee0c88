// The history of an instance on a cluster: every revision timoni-fleet applied, newest first,
// as `helm history` lists a release's. One Secret per instance, of our own, beside Timoni's:
//
//   Secret `timoni-fleet-history.<instance>` in the instance's namespace,
//   type `timoni-fleet.io/history`, labels `app.kubernetes.io/managed-by: timoni-fleet` and
//   `timoni-fleet.io/instance: <instance>` only, `data.history` = JSON { entries: [...] }.
//
// It carries none of Timoni's labels (nor `bundle.timoni.sh/name`), so that neither Timoni nor
// our own scans (listInstances, unlisted-instances.ts) take it for an instance, and it is
// written with server-side apply under our own field manager (`timoni-fleet`): Timoni's
// inventory Secret (`timoni.<instance>`) is never written here.
//
// Each entry keeps the record the apply wrote (the decoded `data.instance` JSON text, byte for
// byte), so that a rollback can write it back exactly; the values live in it (and in `values`),
// which is why the history is a Secret and why nothing here is ever printed.
//
// Revisions grow by one per apply of the instance; an apply that left the instance as it was
// (same module, digest, values, inventory and images: only `lastTransitionTime` differs) adds
// no revision, it refreshes the newest entry's record (so that it stays the live one), and a
// push that touches one instance of a bundle does not push the others' history out. At most
// `keep` entries are kept (the newest, current one included), and fewer when their JSON would
// pass HISTORY_MAX_BYTES (a Secret holds at most 1 MiB).
import { KubeApiError, type KubeCluster } from '../connect/index.js';
import {
  decodeInstanceSecret,
  encodeInstance,
  instanceDataKey,
  instanceSecretName,
  rfc3339,
  type InstanceRecord,
} from './inventory.js';
import { isRecord, otherFieldManagers, type KubeObject, type ObjectRef } from '../object.js';
import { instanceRecordProblem } from './record-checks.js';

export const historySecretPrefix = 'timoni-fleet-history.';
export const historySecretType = 'timoni-fleet.io/history';
export const historyDataKey = 'history';
/** Our own field manager, as the cluster identity record's: never Timoni's. */
export const HISTORY_FIELD_MANAGER = 'timoni-fleet';
export const historyLabels = {
  managedBy: 'app.kubernetes.io/managed-by',
  instance: 'timoni-fleet.io/instance',
} as const;
/** The history's JSON stays under this (a Secret's data may not pass 1 MiB). */
export const HISTORY_MAX_BYTES = 900 * 1024;

export interface HistoryEntry {
  /** 1, 2, 3...: one more per apply of the instance that changed it. */
  revision: number;
  module: {
    /** The module's repository as Timoni records it (`oci://...`). */
    url: string;
    version: string;
    digest: string;
  };
  /** The values as Timoni's record stores them (CUE text). Never printed. */
  values: string;
  /** RFC 3339 (UTC) time of the apply. */
  appliedAt: string;
  /** The commit applied (the action's GITHUB_SHA), when known. */
  commit?: string;
  /** The workflow run that applied it, when known. */
  runUrl?: string;
  /** Timoni's instance record as it was written: `data.instance` of `timoni.<instance>`, decoded. */
  record: string;
  /** This revision put back an older one (a rollback, manual or on failure): that one's number. */
  rollbackTo?: number;
  /**
   * The run's secret values (runtime values read from the environment or cluster Secrets)
   * that the values hold, so that a rollback to this revision masks them even once they
   * are no longer the current ones. Never printed.
   */
  secrets?: string[];
  /**
   * The revision was applied by a run whose review check matched it on this cluster (the
   * action's `reviewed`: the desired state was the one reviewed in a pull request's diff), or
   * it put back such a revision (a rollback inherits the mark of the revision it put back).
   * Absent: nothing says it was reviewed (`reviewed: off`, a run with nothing reviewed, a
   * difference applied under `warn`, the CLI). A rollback under `reviewed: require` puts
   * back only a revision that carries it (../../fleet/revision-rollback.ts).
   */
  reviewed?: HistoryReviewed;
}

/** What made a revision a reviewed one: the commit whose diff was reviewed, its pull request (at least one of them). */
export interface HistoryReviewed {
  commit?: string;
  pullRequest?: number;
}

/** Where an apply came from (the action knows both; the CLI may know none). */
export interface HistoryProvenance {
  commit?: string;
  runUrl?: string;
}

export function historySecretName(instance: string): string {
  return `${historySecretPrefix}${instance}`;
}

const historyRef = (name: string, namespace: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name: historySecretName(name),
});

const secretPath = (name: string, namespace: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(historySecretName(name))}`;

/** The Secret holding `entries` (newest first). */
export function historySecret(name: string, namespace: string, entries: readonly HistoryEntry[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: historySecretName(name),
      namespace,
      labels: { [historyLabels.managedBy]: 'timoni-fleet', [historyLabels.instance]: name },
    },
    type: historySecretType,
    data: { [historyDataKey]: Buffer.from(JSON.stringify({ entries })).toString('base64') },
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The `reviewed` mark of a stored entry; one that is not well formed counts as none (never as reviewed). */
function decodeReviewed(raw: unknown): HistoryReviewed | undefined {
  if (!isRecord(raw)) return undefined;
  const { commit, pullRequest } = raw;
  if (commit !== undefined && typeof commit !== 'string') return undefined;
  if (pullRequest !== undefined && !(Number.isSafeInteger(pullRequest) && (pullRequest as number) > 0))
    return undefined;
  const mark: HistoryReviewed = {
    ...(commit ? { commit } : {}),
    ...(pullRequest !== undefined ? { pullRequest: pullRequest as number } : {}),
  };
  return mark.commit || mark.pullRequest ? mark : undefined;
}

function decodeEntry(raw: unknown, where: string): HistoryEntry {
  if (!isRecord(raw) || typeof raw.revision !== 'number' || typeof raw.record !== 'string')
    throw new Error(`${where}: an entry without revision or record`);
  const module = isRecord(raw.module) ? raw.module : {};
  const commit = optionalString(raw.commit);
  const runUrl = optionalString(raw.runUrl);
  const secrets = Array.isArray(raw.secrets) ? raw.secrets.filter((s): s is string => typeof s === 'string') : [];
  const reviewed = decodeReviewed(raw.reviewed);
  return {
    revision: raw.revision,
    module: {
      url: String(module.url ?? ''),
      version: String(module.version ?? ''),
      digest: String(module.digest ?? ''),
    },
    values: String(raw.values ?? ''),
    appliedAt: String(raw.appliedAt ?? ''),
    ...(commit ? { commit } : {}),
    ...(runUrl ? { runUrl } : {}),
    record: raw.record,
    ...(typeof raw.rollbackTo === 'number' ? { rollbackTo: raw.rollbackTo } : {}),
    ...(secrets.length > 0 ? { secrets } : {}),
    ...(reviewed ? { reviewed } : {}),
  };
}

/** The entries of a history Secret, newest first. */
export function decodeHistorySecret(secret: KubeObject): HistoryEntry[] {
  const where = `Secret/${secret.metadata.namespace ?? ''}/${secret.metadata.name}`;
  const data = isRecord(secret.data) ? secret.data : {};
  const encoded = data[historyDataKey];
  if (typeof encoded !== 'string') throw new Error(`${where}: history data not found`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    throw new Error(`${where}: history data is not JSON`);
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.entries)) throw new Error(`${where}: history data has no entries`);
  return parsed.entries.map((entry) => decodeEntry(entry, where)).sort((a, b) => b.revision - a.revision);
}

interface StoredHistory {
  entries: HistoryEntry[];
  /** The Secret's resourceVersion ('' when there is none): the write's precondition. */
  resourceVersion: string;
}

/** A history that timoni-fleet did not write alone: refused, so that a forged revision is never applied. */
export class UntrustedHistoryError extends Error {
  override name = 'UntrustedHistoryError';
}

/**
 * Why the history Secret is not trusted, or null: it counts only when nothing but
 * timoni-fleet ever wrote it (every managedFields entry's manager is ours). A bundle's
 * objects are applied with Timoni's manager (`timoni`), kubectl with its own.
 */
export function historyTrustProblem(secret: KubeObject): string | null {
  const others = otherFieldManagers(secret, HISTORY_FIELD_MANAGER);
  if (others.length > 0) return `written by field manager(s) ${others.join(', ')}, not only ${HISTORY_FIELD_MANAGER}`;
  if (secret.type !== historySecretType)
    return `its type is ${JSON.stringify(secret.type ?? '')}, not ${historySecretType}`;
  return null;
}

async function readStored(cluster: KubeCluster, name: string, namespace: string): Promise<StoredHistory> {
  const secret = await cluster.get(historyRef(name, namespace));
  if (!secret) return { entries: [], resourceVersion: '' };
  // Read validation: a history someone else wrote (or touched) is refused, never read, so
  // neither a rollback nor the next revision's number comes from it.
  const untrusted = historyTrustProblem(secret);
  if (untrusted)
    throw new UntrustedHistoryError(
      `cluster ${cluster.name}: history of instance ${namespace}/${name} ignored (Secret/${namespace}/${historySecretName(name)}): ${untrusted}`,
    );
  try {
    return { entries: decodeHistorySecret(secret), resourceVersion: String(secret.metadata.resourceVersion ?? '') };
  } catch (error) {
    throw new Error(`cluster ${cluster.name}: instance ${namespace}/${name}: ${(error as Error).message}`);
  }
}

/** The instance's history on the cluster, newest first ([] when it has none). */
export async function readHistory(cluster: KubeCluster, name: string, namespace: string): Promise<HistoryEntry[]> {
  return (await readStored(cluster, name, namespace)).entries;
}

/** At most `keep` entries, newest first, whose JSON stays under `maxBytes` (the newest one always stays). */
export function trimHistory(
  entries: readonly HistoryEntry[],
  keep: number,
  maxBytes = HISTORY_MAX_BYTES,
): HistoryEntry[] {
  const kept = [...entries].sort((a, b) => b.revision - a.revision).slice(0, Math.max(keep, 1));
  while (kept.length > 1 && Buffer.byteLength(JSON.stringify({ entries: kept })) > maxBytes) kept.pop();
  return kept;
}

/** Writes the entries (server-side apply, our field manager), only if the Secret is still at `resourceVersion`. */
async function writeStored(
  cluster: KubeCluster,
  name: string,
  namespace: string,
  entries: readonly HistoryEntry[],
  resourceVersion: string,
): Promise<void> {
  const secret = historySecret(name, namespace, entries);
  if (resourceVersion) secret.metadata.resourceVersion = resourceVersion;
  await cluster.client.request({
    method: 'PATCH',
    path: secretPath(name, namespace),
    query: { fieldManager: HISTORY_FIELD_MANAGER, force: true },
    body: JSON.stringify(secret),
    contentType: 'application/apply-patch+yaml',
    object: historyRef(name, namespace),
  });
}

/** The record without what every apply changes (`lastTransitionTime`), to tell an apply that changed nothing. */
function sameInstance(a: string, b: string): boolean {
  const strip = (text: string): string => {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      delete parsed.lastTransitionTime;
      return JSON.stringify(parsed);
    } catch {
      return text;
    }
  };
  return strip(a) === strip(b);
}

export interface AppendHistoryInput extends HistoryProvenance {
  /** The record the apply wrote (InstanceApplyResult.record). */
  record: InstanceRecord;
  /**
   * The record's text as stored, when it was not written by this encoder (a record written
   * back byte for byte by a rollback on failure): kept as it is, so that it stays the live one.
   */
  recordText?: string;
  appliedAt?: Date;
  /** The revision this apply put back (a rollback). */
  rollbackTo?: number;
  /** The run's secret values that the record's values hold (HistoryEntry.secrets). */
  secrets?: readonly string[];
  /** The apply's review check matched this cluster (HistoryEntry.reviewed). */
  reviewed?: HistoryReviewed;
}

/**
 * The history after an apply of `input.record`: a new revision first, or the newest one
 * refreshed. The `reviewed` mark is the apply's own, else (a rollback) the mark of the
 * revision put back, else (a refresh: the same record applied again) the newest one's.
 */
export function nextHistory(
  entries: readonly HistoryEntry[],
  input: AppendHistoryInput,
  keep: number,
): { entries: HistoryEntry[]; entry: HistoryEntry; added: boolean } {
  const { creationTimestamp: _live, ...written } = input.record;
  const record = input.recordText ?? encodeInstance(written);
  const newest = entries[0];
  const putBack = input.rollbackTo !== undefined ? entries.find((e) => e.revision === input.rollbackTo) : undefined;
  const reviewed = input.reviewed ?? putBack?.reviewed;
  if (newest && sameInstance(newest.record, record)) {
    const mark = reviewed ?? newest.reviewed;
    const entry = { ...newest, record, ...(mark ? { reviewed: { ...mark } } : {}) };
    return { entries: trimHistory([entry, ...entries.slice(1)], keep), entry, added: false };
  }
  const entry: HistoryEntry = {
    revision: (newest?.revision ?? 0) + 1,
    module: { url: written.module.repository, version: written.module.version, digest: written.module.digest },
    values: written.values,
    appliedAt: rfc3339(input.appliedAt ?? new Date()),
    ...(input.commit ? { commit: input.commit } : {}),
    ...(input.runUrl ? { runUrl: input.runUrl } : {}),
    record,
    ...(input.rollbackTo !== undefined ? { rollbackTo: input.rollbackTo } : {}),
    ...(input.secrets && input.secrets.length > 0 ? { secrets: [...input.secrets] } : {}),
    ...(reviewed ? { reviewed: { ...reviewed } } : {}),
  };
  return { entries: trimHistory([entry, ...entries], keep), entry, added: true };
}

/**
 * Appends the record an apply wrote to the instance's history, keeping at most `keep`
 * entries; answers the newest entry. A concurrent write (409 on the resourceVersion
 * precondition) is read again and retried, twice at most.
 */
export async function appendHistory(
  cluster: KubeCluster,
  input: AppendHistoryInput,
  keep: number,
): Promise<{ entry: HistoryEntry; added: boolean }> {
  const { name, namespace } = input.record;
  for (let attempt = 0; ; attempt++) {
    const stored = await readStored(cluster, name, namespace);
    const next = nextHistory(stored.entries, input, keep);
    try {
      await writeStored(cluster, name, namespace, next.entries, stored.resourceVersion);
      return { entry: next.entry, added: next.added };
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 409) || attempt >= 2) throw error;
    }
  }
}

/** Removes the instance's history; false when it had none. */
export function deleteHistory(cluster: KubeCluster, name: string, namespace: string): Promise<boolean> {
  return cluster.delete(historyRef(name, namespace));
}

/** Timoni's record on the cluster as stored (`data.instance`, decoded), or null without one. */
export async function readLiveRecordText(
  cluster: KubeCluster,
  name: string,
  namespace: string,
): Promise<string | null> {
  const secret = await cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: instanceSecretName(name) });
  // Checked as readInstance checks it (record-checks.ts): a forged record is no live revision.
  if (secret) {
    const problem = instanceRecordProblem(secret, decodeInstanceSecret(secret));
    if (problem)
      throw new Error(
        `cluster ${cluster.name}: ${problem}; instance ${namespace}/${name} is refused: its record is not one Timoni would have written`,
      );
  }
  const data = secret && isRecord(secret.data) ? secret.data : {};
  const encoded = data[instanceDataKey];
  return typeof encoded === 'string' ? Buffer.from(encoded, 'base64').toString('utf8') : null;
}

/** The revision whose record is the live one (byte for byte), if any. */
export function currentRevision(entries: readonly HistoryEntry[], live: string | null): number | undefined {
  return live === null ? undefined : entries.find((entry) => entry.record === live)?.revision;
}
