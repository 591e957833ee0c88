// The review record: a hidden block at the end of the PR comment that says, per cluster,
// what the diff was made of (the desired state as digests, `ClusterChanges.desired`), so
// that the rollout on merge can check that it applies what was reviewed.
//
//   <!-- timoni-fleet:reviewed {"v":1,"bundle":"apps","commit":"<sha>","modules":[[url,version,digest]],
//        "keys":["podinfo/Deployment/apps/podinfo"],"clusters":{"staging-1":{"d":"<sha256 hex>",
//        "m":{"podinfo":0},"n":3,"o":"0:<16 hex> 1:<16 hex>"}}} -->
//
// Modules and object keys are listed once and named by their index, the object digests of
// a cluster are one string: 50 clusters of 60 objects each would still take about 60,000
// characters, so the block is kept under RECORD_LIMIT (a quarter of a comment) by leaving
// out, in turn: the digests of objects that the diff showed unchanged (`scope: changed`),
// then every object digest (`scope: cluster`: the cluster digest and the modules still say
// whether anything differs, the objects that do are then not named), then the clusters
// (`scope: none`: no cluster can be checked). Only digests, names and module addresses are
// in it: no object, no secret value (`fleet/desired-state.ts`). `>` and `<` are written as JSON
// escapes so that nothing in it can end the HTML comment.
import {
  type ChangeSet,
  type ClusterChanges,
  type DesiredState,
  isChangingAction,
  isLeaving,
  type ModuleInfo,
  renamedFrom,
} from '../changeset.js';
import { commentLength } from '../github/limits.js';

const PREFIX = '<!-- timoni-fleet:reviewed ';
const SUFFIX = ' -->';
const FORMAT = 1;

/** The block's most characters in a comment. */
export const RECORD_LIMIT = 16_384;

export type RecordScope = 'all' | 'changed' | 'cluster' | 'none';

/** What a review record holds: the bundle, the commit diffed, and per cluster its desired state (objects maybe shortened). */
export interface ReviewedRecord {
  bundle: string;
  commit: string;
  scope: RecordScope;
  clusters: Record<string, DesiredState>;
  /**
   * Fleet membership as the diff showed it: the clusters that leave the fleet (the merge
   * removes the bundle from them), and the renamed clusters by new name, with their base
   * name (the merge re-pins their identity record). Absent in a record of no such change.
   */
  leaves?: string[];
  renames?: Record<string, string>;
}

interface EncodedCluster {
  d: string;
  m: Record<string, number>;
  n: number;
  o?: string;
}

interface Encoded {
  v: number;
  bundle: string;
  commit: string;
  scope: RecordScope;
  modules: Array<[string, string, string]>;
  keys: string[];
  clusters: Record<string, EncodedCluster>;
  /** Leaving clusters (ReviewedRecord.leaves); a reader of an older version ignores it (and refuses no leave: it knows none). */
  l?: string[];
  /** Renames, new name to base name (ReviewedRecord.renames). */
  r?: Record<string, string>;
}

/** The key of a change as `fleet/desired-state.ts` names objects: `instance/Kind/namespace/name`. */
function changeKey(instance: string, change: { kind: string; namespace: string; name: string }): string {
  return [instance, change.kind, change.namespace, change.name].filter(Boolean).join('/');
}

/** The keys of the objects a diff shows as changing (or failing) on this cluster. */
function changedKeys(cluster: ClusterChanges): Set<string> {
  const keys = new Set<string>();
  for (const instance of cluster.instances) {
    for (const change of instance.changes)
      if (isChangingAction(change.action) || change.action === 'failed') keys.add(changeKey(instance.name, change));
  }
  return keys;
}

function encode(record: ReviewedRecord, keep: (cluster: string, key: string) => boolean): string {
  const modules: Array<[string, string, string]> = [];
  const moduleIndex = new Map<string, number>();
  const keys: string[] = [];
  const keyIndex = new Map<string, number>();
  const clusters: Record<string, EncodedCluster> = {};
  if (record.scope !== 'none') {
    for (const [name, state] of Object.entries(record.clusters)) {
      const m: Record<string, number> = {};
      for (const [instance, module] of Object.entries(state.modules)) {
        const id = JSON.stringify([module.url, module.version, module.digest]);
        let index = moduleIndex.get(id);
        if (index === undefined) {
          index = modules.push([module.url, module.version, module.digest]) - 1;
          moduleIndex.set(id, index);
        }
        m[instance] = index;
      }
      const entries: string[] = [];
      if (record.scope !== 'cluster') {
        for (const [key, digest] of Object.entries(state.objects)) {
          if (!keep(name, key)) continue;
          let index = keyIndex.get(key);
          if (index === undefined) {
            index = keys.push(key) - 1;
            keyIndex.set(key, index);
          }
          entries.push(`${index.toString(36)}:${digest}`);
        }
      }
      clusters[name] = {
        d: state.digest,
        m,
        n: state.objectCount,
        ...(entries.length > 0 ? { o: entries.join(' ') } : {}),
      };
    }
  }
  const encoded: Encoded = {
    v: FORMAT,
    bundle: record.bundle,
    commit: record.commit,
    scope: record.scope,
    modules,
    keys,
    clusters,
    ...(record.leaves && record.leaves.length > 0 ? { l: record.leaves } : {}),
    ...(record.renames && Object.keys(record.renames).length > 0 ? { r: record.renames } : {}),
  };
  return `${PREFIX}${JSON.stringify(encoded).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')}${SUFFIX}`;
}

/** The block for a record, the first scope that fits RECORD_LIMIT (see the header); `changed` tells which objects a diff showed changing. */
export function renderRecord(
  record: ReviewedRecord,
  changed?: (cluster: string, key: string) => boolean,
  limit = RECORD_LIMIT,
): string {
  const scopes: RecordScope[] =
    record.scope === 'all'
      ? ['all', 'changed', 'cluster', 'none']
      : record.scope === 'changed'
        ? ['changed', 'cluster', 'none']
        : record.scope === 'cluster'
          ? ['cluster', 'none']
          : ['none'];
  let block = '';
  for (const scope of scopes) {
    if (scope === 'changed' && !changed && record.scope !== 'changed') continue;
    const keep = scope === 'changed' && changed ? changed : () => true;
    block = encode({ ...record, scope }, keep);
    if (commentLength(block) <= limit) return block;
  }
  return block;
}

/** The review record of a diff's ChangeSet: its clusters that have a desired state; empty when none has. */
export function reviewedBlock(changeSet: ChangeSet, limit = RECORD_LIMIT): string {
  const withState = changeSet.clusters.filter((cluster) => cluster.desired);
  if (changeSet.mode !== 'diff' || withState.length === 0) return '';
  const clusters: Record<string, DesiredState> = {};
  const changed = new Map<string, Set<string>>();
  for (const cluster of withState) {
    if (!cluster.desired) continue;
    clusters[cluster.name] = cluster.desired;
    changed.set(cluster.name, changedKeys(cluster));
  }
  // A leave is recorded when the merge would remove the bundle there (not when it stays installed, or the diff failed there).
  const leaves = changeSet.clusters
    .filter((cluster) => isLeaving(cluster) && !cluster.bundleKept && cluster.status !== 'failed')
    .map((cluster) => cluster.name);
  const renames: Record<string, string> = {};
  for (const cluster of changeSet.clusters) {
    const from = renamedFrom(cluster);
    if (from !== undefined && cluster.status !== 'failed') renames[cluster.name] = from;
  }
  const record: ReviewedRecord = {
    bundle: changeSet.bundle,
    commit: changeSet.commit ?? '',
    scope: 'all',
    clusters,
    ...(leaves.length > 0 ? { leaves } : {}),
    ...(Object.keys(renames).length > 0 ? { renames } : {}),
  };
  return renderRecord(record, (cluster, key) => changed.get(cluster)?.has(key) ?? false, limit);
}

/** A review record that cannot be read (edited by hand, or of a newer format). */
export class ReviewedRecordError extends Error {
  constructor(message: string) {
    super(`the review record in the pull request comment cannot be read: ${message}`);
    this.name = 'ReviewedRecordError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';

function decodeCluster(name: string, value: unknown, modules: ModuleInfo[], keys: string[]): DesiredState {
  if (
    !isObject(value) ||
    !isString(value.d) ||
    !/^[0-9a-f]{64}$/.test(value.d) ||
    !isObject(value.m) ||
    typeof value.n !== 'number'
  ) {
    throw new ReviewedRecordError(`cluster ${name} has no digest, modules or object count`);
  }
  const clusterModules: Record<string, ModuleInfo> = {};
  for (const [instance, index] of Object.entries(value.m)) {
    const module = typeof index === 'number' ? modules[index] : undefined;
    if (!module) throw new ReviewedRecordError(`cluster ${name}: instance ${instance} names no module of the record`);
    clusterModules[instance] = module;
  }
  const objects: Record<string, string> = {};
  if (value.o !== undefined) {
    if (!isString(value.o)) throw new ReviewedRecordError(`cluster ${name}: the object digests are not a string`);
    for (const entry of value.o.split(' ').filter(Boolean)) {
      const match = /^([0-9a-z]+):([0-9a-f]{1,64})$/.exec(entry);
      const key = match?.[1] !== undefined ? keys[parseInt(match[1], 36)] : undefined;
      if (!match?.[2] || key === undefined)
        throw new ReviewedRecordError(`cluster ${name}: object digest "${entry}" names no object of the record`);
      objects[key] = match[2];
    }
  }
  return { digest: value.d, modules: clusterModules, objects, objectCount: value.n };
}

/**
 * The review record of a comment body, read from its one place: the body's last line,
 * where the renderer writes it (comment.ts), after everything that came from the user's
 * files (which can never hold the block's opening: redaction.ts shows it escaped). Null
 * when the last line is not a review record; throws ReviewedRecordError when it is one that
 * cannot be read. A record anywhere else in the body (quoted in a diff, an error message,
 * another comment) is never read.
 */
export function parseReviewedRecord(body: string): ReviewedRecord | null {
  const trimmed = body.replace(/\s+$/, '');
  const line = trimmed.slice(trimmed.lastIndexOf('\n') + 1);
  if (!line.startsWith(PREFIX)) return null;
  if (!line.endsWith(SUFFIX)) throw new ReviewedRecordError('the block is not closed');
  let value: unknown;
  try {
    value = JSON.parse(line.slice(PREFIX.length, line.length - SUFFIX.length));
  } catch (error) {
    throw new ReviewedRecordError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(value)) throw new ReviewedRecordError('not a JSON object');
  if (value.v !== FORMAT)
    throw new ReviewedRecordError(`format ${String(value.v)}, this version reads format ${FORMAT}`);
  const scope = value.scope;
  if (
    !isString(value.bundle) ||
    !isString(value.commit) ||
    !(scope === 'all' || scope === 'changed' || scope === 'cluster' || scope === 'none')
  ) {
    throw new ReviewedRecordError('bundle, commit or scope missing');
  }
  if (!Array.isArray(value.modules) || !Array.isArray(value.keys) || !isObject(value.clusters))
    throw new ReviewedRecordError('modules, keys or clusters missing');
  const modules = value.modules.map((module: unknown, index): ModuleInfo => {
    if (!Array.isArray(module) || module.length !== 3 || !module.every(isString))
      throw new ReviewedRecordError(`module ${index} is not [url, version, digest]`);
    return { url: String(module[0]), version: String(module[1]), digest: String(module[2]) };
  });
  const keys = value.keys.map((key: unknown, index) => {
    if (!isString(key)) throw new ReviewedRecordError(`object key ${index} is not a string`);
    return key;
  });
  const clusters: Record<string, DesiredState> = {};
  for (const [name, cluster] of Object.entries(value.clusters))
    clusters[name] = decodeCluster(name, cluster, modules, keys);
  const leaves =
    value.l === undefined ? undefined : Array.isArray(value.l) && value.l.every(isString) ? value.l : undefined;
  if (value.l !== undefined && leaves === undefined)
    throw new ReviewedRecordError('the leaving clusters are not a list of names');
  let renames: Record<string, string> | undefined;
  if (value.r !== undefined) {
    if (!isObject(value.r) || !Object.values(value.r).every(isString))
      throw new ReviewedRecordError('the renames are not names by name');
    renames = value.r as Record<string, string>;
  }
  return {
    bundle: value.bundle,
    commit: value.commit,
    scope,
    clusters,
    ...(leaves ? { leaves } : {}),
    ...(renames ? { renames } : {}),
  };
}
