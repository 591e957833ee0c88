// The history of the bundle's instances across the fleet (../kube/instance/history-store.ts):
// written by the rollout after each instance's apply succeeds, read by `timoni-fleet history`.
//
// Writing: the record the apply wrote (the current one) becomes the instance's newest
// revision, so that the history lists every applied revision newest first, the current one
// included, as `helm history` does; at most `options.history` are kept (0: none written). A
// failure to write it is a warning naming the cluster and instance (WARNING_MARK), never a
// failed cluster: the apply itself succeeded.
//
// Reading: per cluster (connected and identity-checked as status is, nothing written), the
// instances the bundle lists there, each with its revisions newest first and which one is
// the live record (byte for byte); no values in what it answers (they may hold secrets).
import type { ClusterBundle } from '../bundle/index.js';
import type { KubeCluster } from '../kube/connect/index.js';
import {
  appendHistory,
  currentRevision,
  readHistory,
  readLiveRecordText,
  type HistoryEntry,
  type HistoryReviewed,
  type InstanceRecord,
} from '../kube/instance/index.js';
import { WARNING_MARK, type FleetRun } from './fleet-run.js';
import { eachCluster, type ClusterResult } from './status-and-delete.js';

/** The run's secret values that the values text holds (as written, or escaped in a CUE string). */
function secretsIn(run: FleetRun, values: string): string[] {
  return run.secrets.secrets().filter((secret) => {
    const value = secret.trim();
    return values.includes(value) || values.includes(JSON.stringify(value).slice(1, -1));
  });
}

/** What the history keeps of an apply besides its record. */
export interface AppliedRevision {
  /** The revision it put back (a rollback); the new revision inherits that one's `reviewed` mark. */
  rollbackTo?: number | undefined;
  /** The record as stored, when it was written back byte for byte (a rollback on failure). */
  recordText?: string;
  /** The run's review check matched this cluster (FleetRun.beforeApply's answer): HistoryEntry.reviewed. */
  reviewed?: HistoryReviewed | undefined;
}

/**
 * Keeps the applied record in the instance's history, with the run's secret values its
 * values hold; logs a warning (never throws) when it cannot.
 */
export async function recordHistory(
  run: FleetRun,
  cluster: KubeCluster,
  record: InstanceRecord,
  line: (text: string) => void,
  applied: AppliedRevision = {},
): Promise<void> {
  const { rollbackTo, recordText, reviewed } = applied;
  const keep = run.options.history;
  if (keep <= 0) return;
  try {
    await appendHistory(
      cluster,
      {
        record,
        ...run.provenance,
        ...(rollbackTo !== undefined ? { rollbackTo } : {}),
        ...(recordText !== undefined ? { recordText } : {}),
        ...(reviewed ? { reviewed } : {}),
        secrets: secretsIn(run, record.values),
      },
      keep,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    line(
      `${WARNING_MARK}cluster ${cluster.name}: instance ${record.namespace}/${record.name}: applied, but its history was not written: ${reason}`,
    );
  }
}

/**
 * After a rollback on failure wrote Timoni's record back byte for byte (`recordText`): that
 * record becomes the newest revision again, marked as a rollback to the revision it equals,
 * so that the history does not list the failed revision as the last one applied (nothing is
 * added when the failed revision was never recorded: the newest is that record already).
 */
export async function recordRestored(
  run: FleetRun,
  cluster: KubeCluster,
  record: InstanceRecord,
  recordText: string,
  line: (text: string) => void,
): Promise<void> {
  if (run.options.history <= 0) return;
  let rollbackTo: number | undefined;
  try {
    rollbackTo = currentRevision(await readHistory(cluster, record.name, record.namespace), recordText);
  } catch {
    // recordHistory reads the history again, and warns when it cannot.
  }
  await recordHistory(run, cluster, record, line, { rollbackTo, recordText });
}

/** One revision as `history` shows it: no values, no record. */
export interface RevisionView {
  revision: number;
  appliedAt: string;
  module: { url: string; version: string; digest: string };
  commit?: string;
  runUrl?: string;
  /** Its record is the live one (Timoni's inventory Secret, byte for byte). */
  current: boolean;
  /** It put back an older revision (a rollback): that one's number. */
  rollbackTo?: number;
  /** It was applied by a reviewed run, or put back one that was (HistoryEntry.reviewed). */
  reviewed?: HistoryReviewed;
}

export interface InstanceHistoryView {
  name: string;
  namespace: string;
  /** Newest first; empty when no history is kept for the instance. */
  revisions: RevisionView[];
  /** Timoni's record is stored for the instance (false: not installed). */
  installed: boolean;
}

function revisionView(entry: HistoryEntry, current: number | undefined): RevisionView {
  return {
    revision: entry.revision,
    appliedAt: entry.appliedAt,
    module: { ...entry.module },
    ...(entry.commit ? { commit: entry.commit } : {}),
    ...(entry.runUrl ? { runUrl: entry.runUrl } : {}),
    current: entry.revision === current,
    ...(entry.rollbackTo !== undefined ? { rollbackTo: entry.rollbackTo } : {}),
    ...(entry.reviewed ? { reviewed: { ...entry.reviewed } } : {}),
  };
}

async function clusterHistory(
  cluster: KubeCluster,
  evaluated: ClusterBundle,
  only: string,
): Promise<InstanceHistoryView[]> {
  const views: InstanceHistoryView[] = [];
  for (const instance of evaluated.bundle.instances) {
    if (only && instance.name !== only) continue;
    const entries = await readHistory(cluster, instance.name, instance.namespace);
    const live = await readLiveRecordText(cluster, instance.name, instance.namespace);
    const current = currentRevision(entries, live);
    views.push({
      name: instance.name,
      namespace: instance.namespace,
      revisions: entries.map((entry) => revisionView(entry, current)),
      installed: live !== null,
    });
  }
  return views;
}

/** The history of the bundle's instances (or of `instance` alone) on each selected cluster, in runtime order. */
export function fleetHistory(run: FleetRun, instance = ''): Promise<Array<ClusterResult<InstanceHistoryView[]>>> {
  return eachCluster(run, (session, _bundle, evaluated) => clusterHistory(session.kube, evaluated, instance), false);
}
