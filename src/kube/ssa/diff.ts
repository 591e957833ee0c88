// What applying one object would change, without writing anything: GET the live object,
// server-side apply dry-run, compare normalised YAML (Secret data masked). An object the
// API server refuses (an immutable field without force, an invalid value, a forbidden
// kind) is a `failed` change with the server's answer, as Timoni's dry-run diff logs it
// and goes on; a server that cannot be reached or refuses the credentials is thrown.
//
// The text diff is jsdiff's (Myers' algorithm, bounded): `maxEditLength` and a time limit
// keep one huge object (a large CRD, diffed for several clusters at once) from taking
// gigabytes or seconds; past them the change carries `diffTooLarge` and an empty diff.
// A whole object (created or deleted) needs no algorithm: every line is added or removed.
import { structuredPatch } from 'diff';
import { stringify } from 'yaml';
import type { ObjectChange } from '../../changeset.js';
import { comparesStatus, isOneOffPresent, mustRecreate, serverSideApply } from './apply.js';
import { KubeApiError, type KubeCluster, NoMatchError } from '../connect/index.js';
import { ImmutableFieldError, immutableFields, isImmutableError } from './immutable.js';
import { isSecret, maskSecret, maskSecretPair } from './mask.js';
import { jsonEqual, normalizeObject } from './normalize.js';
import { isRecord, refOf, type KubeObject } from '../object.js';

/**
 * Objects rendered as YAML for people to read: keys sorted, long strings never folded,
 * so that the same object always renders to the same lines.
 */
export function renderYaml(value: unknown): string {
  return stringify(value, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
}

/** A diff as an ObjectChange carries it: the text, or the mark that it was too large to compute. */
export type ObjectDiff = Pick<ObjectChange, 'diff' | 'diffTooLarge'>;

/**
 * Most insertions plus deletions computed. jsdiff's time grows with their square (and with
 * the texts' length): 2,000 (e.g. 1,000 lines replaced) take about 0.3 s and 35 MB on a
 * 10,000-line object; 8,000 took 4 s.
 */
export const MAX_EDIT_LENGTH = 2_000;
/** A backstop for very long texts, where even a short edit script is slow to find. */
export const DIFF_TIMEOUT_MS = 2_000;

export interface UnifiedDiffOptions {
  fromName?: string;
  toName?: string;
  /** Lines of context around each change (default 3, as `diff -u`). */
  context?: number;
  /** Most insertions plus deletions computed (default MAX_EDIT_LENGTH). */
  maxEditLength?: number;
  /** Time limit of the computation (default DIFF_TIMEOUT_MS). */
  timeoutMs?: number;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function range(start: number, count: number): string {
  // `diff -u` names the line before the hunk when it is empty, and omits a count of 1.
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/**
 * The unified diff of `from` and `to` with `context` lines around each change, headed
 * `--- fromName` / `+++ toName`, as `diff -u` prints it; an empty diff when the texts are
 * equal, and an empty diff with `diffTooLarge` when the edit script exceeds the limits.
 * A text without a final newline is read as if it had one.
 */
export function unifiedDiff(from: string, to: string, options: UnifiedDiffOptions = {}): ObjectDiff {
  if (from === to) return { diff: '' };
  const header = [`--- ${options.fromName ?? 'live'}`, `+++ ${options.toName ?? 'desired'}`];
  const fromLines = splitLines(from);
  const toLines = splitLines(to);
  // One side empty: one hunk of the other side's lines, without an edit search.
  if (fromLines.length === 0 || toLines.length === 0) {
    const hunk = fromLines.length === 0 ? toLines.map((line) => `+${line}`) : fromLines.map((line) => `-${line}`);
    return {
      diff: `${[...header, `@@ -${range(1, fromLines.length)} +${range(1, toLines.length)} @@`, ...hunk].join('\n')}\n`,
    };
  }
  const withFinalNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const patch = structuredPatch('', '', withFinalNewline(from), withFinalNewline(to), undefined, undefined, {
    context: options.context ?? 3,
    maxEditLength: options.maxEditLength ?? MAX_EDIT_LENGTH,
    timeout: options.timeoutMs ?? DIFF_TIMEOUT_MS,
  });
  if (!patch) return { diff: '', diffTooLarge: { liveLines: fromLines.length, desiredLines: toLines.length } };
  if (patch.hunks.length === 0) return { diff: '' };
  const out = header;
  for (const hunk of patch.hunks) {
    out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines);
  }
  return { diff: `${out.join('\n')}\n` };
}

export interface DiffObjectOptions {
  /**
   * False when the instance namespace does not exist yet: every object is `created`,
   * and the server is not asked (as Timoni does). Default true.
   */
  namespaceExists?: boolean;
  /** Immutable-field changes become `recreated` instead of an ImmutableFieldError. */
  force?: boolean;
}

/**
 * The whole object (Secret data masked), as a diff from nothing (`created`) or to nothing
 * (`deleted`); never too large, as no edit script is searched.
 */
export function wholeObjectDiff(object: KubeObject, side: 'created' | 'deleted' = 'created'): string {
  const text = renderYaml(maskSecret(normalizeObject(object)));
  return (side === 'created' ? unifiedDiff('', text) : unifiedDiff(text, '')).diff;
}

/** The unified diff of normalised, masked YAML; empty when the objects are the same. */
export function objectDiff(live: KubeObject, desired: KubeObject, withStatus = false): ObjectDiff {
  const a = normalizeObject(live, { dropStatus: !withStatus });
  const b = normalizeObject(desired, { dropStatus: !withStatus });
  if (jsonEqual(a, b)) return { diff: '' };
  const masked = isSecret(a) || isSecret(b) ? maskSecretPair(a, b) : { live: a, desired: b };
  return unifiedDiff(renderYaml(masked.live), renderYaml(masked.desired));
}

// The fields that force an object's recreation, as a diff: when an immutable field changes,
// the server refuses the dry-run and gives no merged object to compare with. The live
// object is then shown through the desired object's shape (only the fields the module sets,
// list items by position), so that the diff names what the module changes and not every
// field the server defaulted (clusterIP, strategy, status...).

/**
 * `live` reduced to the paths that `desired` has: maps keep the keys `desired` sets (keys
 * that live lacks stay absent, so they show as added), lists keep their items by position,
 * with the live items past the desired list's end (they would be gone after a recreation);
 * any other value is live's as it is.
 */
export function projectOnto(live: unknown, desired: unknown): unknown {
  if (isRecord(live) && isRecord(desired)) {
    const projected: Record<string, unknown> = {};
    for (const key of Object.keys(desired)) {
      if (Object.prototype.hasOwnProperty.call(live, key)) projected[key] = projectOnto(live[key], desired[key]);
    }
    return projected;
  }
  if (Array.isArray(live) && Array.isArray(desired)) {
    return live.map((item, index) => (index < desired.length ? projectOnto(item, desired[index]) : item));
  }
  return live;
}

/**
 * The unified diff of the desired fields as they are live and as they are desired (Secret
 * data masked); `diffTooLarge` past the diff's limits.
 */
export function fieldChangesDiff(live: KubeObject, desired: KubeObject): ObjectDiff {
  const a = normalizeObject(live);
  const b = normalizeObject(desired);
  // Secret values are masked (stringData folded into data) before the shape is taken.
  const masked = isSecret(a) || isSecret(b) ? maskSecretPair(a, b) : { live: a, desired: b };
  const projected = projectOnto(masked.live, masked.desired) as KubeObject;
  return unifiedDiff(renderYaml(projected), renderYaml(masked.desired));
}

/** The note that ends a recreated object's diff. */
export function recreateNote(fields: readonly string[], done: boolean): string {
  const named =
    fields.length === 0
      ? 'an immutable field changes'
      : `immutable field${fields.length === 1 ? '' : 's'} ${fields.join(', ')} change${fields.length === 1 ? 's' : ''}`;
  return `# recreated: ${named}; the object ${done ? 'was' : 'is'} deleted and created again\n`;
}

/**
 * The field changes, then the note saying the object is recreated; when the field changes
 * are too large to compute, no text at all (as every too-large diff) and `diffTooLarge`.
 */
export function recreateDiff(
  live: KubeObject,
  desired: KubeObject,
  fields: readonly string[],
  done = false,
): ObjectDiff {
  const changes = fieldChangesDiff(live, desired);
  return changes.diffTooLarge ? changes : { diff: changes.diff + recreateNote(fields, done) };
}

/**
 * True for an error about this one object: the API server answered and refused it
 * (4xx), other than for the credentials (401) or its own load (429).
 */
export function isObjectError(error: unknown): boolean {
  if (error instanceof ImmutableFieldError) return true;
  return (
    error instanceof KubeApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 401 &&
    error.status !== 429
  );
}

type DiffOf = string | ObjectDiff | ((shown: KubeObject) => string | ObjectDiff);

async function changeOf(
  cluster: KubeCluster,
  desired: KubeObject,
  action: ObjectChange['action'],
  diffOf: DiffOf,
  error?: string,
): Promise<ObjectChange> {
  const mapping = await cluster.discovery.mappingOrNull(desired.apiVersion, desired.kind).catch(() => null);
  const namespace = mapping && !mapping.namespaced ? '' : (desired.metadata.namespace ?? '');
  // A cluster-scoped object is shown without the namespace the server would drop.
  let shown = desired;
  if (!namespace && desired.metadata.namespace !== undefined) {
    const { namespace: _dropped, ...metadata } = desired.metadata;
    shown = { ...desired, metadata: metadata as KubeObject['metadata'] };
  }
  const computed = typeof diffOf === 'function' ? diffOf(shown) : diffOf;
  const { diff, diffTooLarge } = typeof computed === 'string' ? { diff: computed, diffTooLarge: undefined } : computed;
  const change: ObjectChange = {
    kind: desired.kind,
    apiVersion: desired.apiVersion,
    namespace,
    name: desired.metadata.name,
    action,
    diff,
  };
  if (error !== undefined) change.error = error;
  if (diffTooLarge) change.diffTooLarge = diffTooLarge;
  return change;
}

/** The object as a `failed` change: the error's message, and the field changes when it has a live copy. */
function failedChange(
  cluster: KubeCluster,
  desired: KubeObject,
  live: KubeObject | null,
  error: Error,
): Promise<ObjectChange> {
  return changeOf(cluster, desired, 'failed', (shown) => (live ? fieldChangesDiff(live, shown) : ''), error.message);
}

/** The change applying `desired` would make, as an ObjectChange of the ChangeSet. */
export async function diffObject(
  cluster: KubeCluster,
  desired: KubeObject,
  options: DiffObjectOptions = {},
): Promise<ObjectChange> {
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
      if (mustRecreate(desired, live, options.force))
        return changeOf(cluster, desired, 'recreated', (shown) => recreateDiff(live, shown, fields));
      refused = new ImmutableFieldError(cluster.name, refOf(desired), fields, error);
    }
    if (isObjectError(refused)) return failedChange(cluster, desired, live, refused as Error);
    throw refused;
  }
  if (!live || !dryRun.metadata.resourceVersion) return changeOf(cluster, desired, 'created', wholeObjectDiff);
  const diff = objectDiff(live, dryRun, await comparesStatus(cluster, desired));
  return changeOf(cluster, desired, diff.diff || diff.diffTooLarge ? 'configured' : 'unchanged', diff);
}
