// The merge of the ChangeSets that the matrix jobs of a fan-out wrote, one per shard
// (shards.ts), into the one ChangeSet a single job would have produced: the same bundle,
// mode and commit, the clusters in runtime order. A pure function: the report mode of the
// action (../action/report.ts) reads the files and publishes the result.
//
// What is refused names the file(s) concerned: a ChangeSet of a newer format than this
// version reads, a ChangeSet whose commit is not the run's (or that has none: every job of a
// run records the same GITHUB_SHA, and a file without one was not written by a matrix job of
// this run; a run without a commit accepts none), ChangeSets of different bundles or modes,
// a cluster present in two files, a cluster that is not among the expected ones. A cluster expected but in no
// file (its matrix job failed before uploading, or never ran) is entered as failed with a
// `report` error naming the shard and the clusters it should have covered.
import type { RuntimeCluster } from '../bundle/index.js';
import { CHANGESET_FORMAT, isLeaving, type ChangeSet, type ChangeSetMode, type ClusterChanges } from '../changeset.js';
import type { Shard } from './shards.js';

/** A ChangeSet as read from one file, named as messages name it. */
export interface ChangeSetFile {
  file: string;
  changeSet: ChangeSet;
}

export class ChangeSetMergeError extends Error {
  override name = 'ChangeSetMergeError';
}

export interface MergeInput {
  files: readonly ChangeSetFile[];
  /** The clusters the report covers, in runtime order (the runtime as the report's inputs select it). */
  clusters: readonly RuntimeCluster[];
  /** The shards of those clusters, to name the matrix job of a missing cluster. */
  shards: readonly Shard[];
  /**
   * The commit the report job runs on (GITHUB_SHA, as the matrix jobs of the same run record
   * it); a ChangeSet of another commit, or of none, is refused. Empty refuses every file.
   */
  commit: string;
}

export interface MergeResult {
  changeSet: ChangeSet;
  /** The shards that no file covered at all or in part, with the clusters missing from each. */
  missing: Array<{ shard: string; clusters: string[] }>;
}

const MODES: readonly ChangeSetMode[] = ['diff', 'apply'];

/** The one value all files agree on, or an error naming two files that differ. */
function agreed(
  files: readonly ChangeSetFile[],
  what: string,
  valueOf: (changeSet: ChangeSet) => string | undefined,
  hint: string,
): string {
  let first: { file: string; value: string } | undefined;
  for (const { file, changeSet } of files) {
    const value = valueOf(changeSet);
    if (value === undefined || value === '') continue;
    if (!first) first = { file, value };
    else if (first.value !== value) {
      throw new ChangeSetMergeError(
        `${file}: ${what} ${JSON.stringify(value)}, but ${first.file} ${what} ${JSON.stringify(first.value)}; ${hint}`,
      );
    }
  }
  return first?.value ?? '';
}

function checkFormat({ file, changeSet }: ChangeSetFile): void {
  if (!Number.isInteger(changeSet.format) || changeSet.format < 1) {
    throw new ChangeSetMergeError(
      `${file}: not a ChangeSet file (no "format" version); it should be the file a timoni-fleet run wrote with changes-file`,
    );
  }
  if (changeSet.format > CHANGESET_FORMAT) {
    throw new ChangeSetMergeError(
      `${file}: ChangeSet format ${changeSet.format} is newer than this timoni-fleet reads (format ${CHANGESET_FORMAT}); use the same timoni-fleet version in the report job as in the matrix jobs`,
    );
  }
  if (!MODES.includes(changeSet.mode))
    throw new ChangeSetMergeError(`${file}: mode ${JSON.stringify(changeSet.mode)} is not diff or apply`);
}

/** A ChangeSet is accepted only when it is of the run's commit. */
function checkCommit({ file, changeSet }: ChangeSetFile, runCommit: string): void {
  if (runCommit === '') {
    throw new ChangeSetMergeError(
      `${file}: this report runs without a commit (GITHUB_SHA is empty), so no ChangeSet can be bound to its run; a report merges only the ChangeSets its matrix jobs wrote on the run's commit`,
    );
  }
  const commit = changeSet.commit;
  if (typeof commit !== 'string' || commit === '') {
    throw new ChangeSetMergeError(
      `${file}: has no commit; a matrix job records the run's commit (GITHUB_SHA) in its ChangeSet, and a file without one is refused (was it committed to the repository rather than downloaded from a matrix job's artifact?)`,
    );
  }
  if (commit !== runCommit) {
    throw new ChangeSetMergeError(
      `${file}: is of commit ${JSON.stringify(commit)}, this report runs on commit ${runCommit} (were artifacts of another run downloaded, or was the file committed to the repository?)`,
    );
  }
}

function missingMessage(shard: string, clusters: readonly string[], mode: ChangeSetMode): string {
  const covered = `${clusters.length === 1 ? 'cluster' : 'clusters'} ${clusters.join(', ')}`;
  const question =
    mode === 'apply'
      ? 'did that job fail before uploading, or was it not run after an earlier failure?'
      : 'did that job fail before uploading?';
  return `no ChangeSet from the matrix job of shard "${shard}" (${covered}): ${question}`;
}

export function mergeChangeSets(input: MergeInput): MergeResult {
  if (input.files.length === 0) throw new ChangeSetMergeError('no ChangeSet file to merge');
  for (const file of input.files) checkFormat(file);
  for (const file of input.files) checkCommit(file, input.commit);
  const bundle = agreed(
    input.files,
    'is of bundle',
    (c) => c.bundle,
    "a report merges the ChangeSets of one bundle (does the download pattern match another bundle's artifacts?)",
  );
  const mode = agreed(
    input.files,
    'is of mode',
    (c) => c.mode,
    'a report merges either diffs or rollouts, not both',
  ) as ChangeSetMode;
  // A fan-out of a rollback to a revision (revision-rollback.ts): every job rolled back to the same target.
  const rollbackTarget = agreed(
    input.files,
    'is',
    (c) => (c.rollback ? `a rollback ${JSON.stringify(c.rollback)}` : 'no rollback'),
    'a report merges the ChangeSets of one run (does the download pattern match an older artifact?)',
  );
  const rollback = input.files.find(({ changeSet }) => changeSet.rollback)?.changeSet.rollback;
  const expected = new Map(input.clusters.map((cluster) => [cluster.name, cluster]));
  const found = new Map<string, { file: string; entry: ClusterChanges }>();
  for (const { file, changeSet } of input.files) {
    for (const entry of changeSet.clusters) {
      const earlier = found.get(entry.name);
      if (earlier) {
        throw new ChangeSetMergeError(
          `cluster "${entry.name}" is in two ChangeSet files, ${earlier.file} and ${file}; each cluster must come from one matrix job (do the shards overlap, or does the download pattern match an older artifact?)`,
        );
      }
      // A cluster leaving the fleet is no longer in the runtime: it follows the runtime's clusters.
      if (!expected.has(entry.name) && !isLeaving(entry)) {
        const known = input.clusters.map((c) => c.name).join(', ') || 'none';
        throw new ChangeSetMergeError(
          `${file}: cluster "${entry.name}" is not among the clusters this report covers (${known}); do the report's runtime, runtime-group and runtime-cluster match the matrix jobs'?`,
        );
      }
      found.set(entry.name, { file, entry });
    }
  }

  const missing: MergeResult['missing'] = [];
  const missingMessages = new Map<string, string>();
  for (const shard of input.shards) {
    const absent = shard.clusters.map((c) => c.name).filter((name) => !found.has(name));
    if (absent.length === 0) continue;
    missing.push({ shard: shard.name, clusters: absent });
    for (const name of absent) missingMessages.set(name, missingMessage(shard.name, absent, mode));
  }
  const clusters = input.clusters.map((cluster): ClusterChanges => {
    const entry = found.get(cluster.name)?.entry;
    if (entry) return entry;
    // A cluster in no shard (the shards do not cover the selection) is still reported.
    const message = missingMessages.get(cluster.name) ?? missingMessage(cluster.name, [cluster.name], mode);
    if (!missingMessages.has(cluster.name)) missing.push({ shard: cluster.name, clusters: [cluster.name] });
    return {
      name: cluster.name,
      group: cluster.group,
      kubeContext: cluster.kubeContext,
      status: 'failed',
      error: { step: 'report', message },
      instances: [],
    };
  });
  const leaving = [...found.values()]
    .map(({ entry }) => entry)
    .filter((entry) => isLeaving(entry) && !expected.has(entry.name));
  const membership = input.files.map(({ changeSet }) => changeSet.membership).find((source) => source !== undefined);
  return {
    changeSet: {
      format: CHANGESET_FORMAT,
      bundle,
      mode,
      commit: input.commit,
      clusters: [...clusters, ...leaving],
      ...(membership ? { membership } : {}),
      ...(rollback && rollbackTarget !== 'no rollback' ? { rollback } : {}),
    },
    missing,
  };
}
