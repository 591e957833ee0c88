// Report mode: the one job after a fan-out. The matrix jobs each diffed (or applied) one
// shard of the clusters and uploaded their ChangeSet file (`changes-file`); this job reads
// the files the `changes` patterns find, merges them in runtime order (../fleet/merge.ts),
// and publishes the result through publish.ts, the same code as a single job: one sticky
// comment, the job summary, the outputs. It reads the runtime to know the clusters and their
// shards (as `shard-by` splits them), never a kubeconfig, never a cluster. A shard whose job
// uploaded nothing is reported as failed clusters naming the shard, after the comment is
// posted, and fails the step.
//
// What the pull request's author controls is never taken for a matrix job's result: a file
// that git tracks in the checkout is refused (changes-file.ts), and so is a ChangeSet whose
// commit is not this run's GITHUB_SHA, the commit every job of the run records (merge.ts).
import type { Runtime } from '../bundle/index.js';
import type { FileBoundary } from '../file-boundary.js';
import { ChangeSetMergeError, mergeChangeSets } from '../fleet/merge.js';
import { selectionShards } from '../fleet/shards.js';
import type { RunContext } from '../github/event.js';
import { ChangesFileError, findChangesFiles, readChangesFile } from './changes-file.js';
import type { ActionConfig } from './config.js';
import { GitCheckout } from './git-index.js';
import type { ActionLog } from './log.js';
import { reportPlan } from './event-plan.js';
import { publishResults, type PublishOutcome } from './publish.js';
import { InputError, type Environment } from './runner.js';

export interface ReportInput {
  env: Environment;
  config: ActionConfig;
  context: RunContext;
  runtime: Runtime;
  /** GITHUB_WORKSPACE: patterns and the changes-file input are relative to it. */
  workspace: string;
  boundary: FileBoundary;
  secrets: readonly string[];
  log: ActionLog;
  signal?: AbortSignal;
}

export interface ReportOutcome {
  published: PublishOutcome;
  /** Clusters failed in the merged ChangeSet, missing shards included. */
  failed: Array<{ name: string; step: string; message: string }>;
}

export async function runReport(input: ReportInput): Promise<ReportOutcome> {
  const { config, context, log } = input;
  if (config.changesPatterns.length === 0) {
    throw new InputError(
      'changes',
      'is required with mode: report: glob patterns of the ChangeSet files to merge, relative to the workspace (e.g. changesets/**/*.json, where actions/download-artifact put them)',
    );
  }
  const selection = selectionShards(
    input.runtime,
    { group: config.runtimeGroup, cluster: config.runtimeCluster },
    config.shardBy,
  );
  const paths = findChangesFiles(config.changesPatterns, input.workspace);
  if (paths.length === 0) {
    throw new InputError(
      'changes',
      `matched no file in ${input.workspace} (patterns: ${config.changesPatterns.join(', ')}); did the matrix jobs upload their changes-file, and did actions/download-artifact put them there?`,
    );
  }
  // A file git tracks in the checkout is not a matrix job's artifact: refused (changes-file.ts).
  const checkout = new GitCheckout(input.workspace);
  let files;
  try {
    files = paths.map((path) => readChangesFile(path, input.workspace, input.boundary, checkout));
  } catch (error) {
    if (error instanceof ChangesFileError) throw new InputError('changes', error.message);
    throw error;
  }
  log.line(`timoni-fleet: report of ${files.length} ChangeSet file(s): ${files.map((f) => f.file).join(', ')}`);
  let merged;
  try {
    merged = mergeChangeSets({ files, clusters: selection.clusters, shards: selection.shards, commit: context.sha });
  } catch (error) {
    if (error instanceof ChangeSetMergeError) throw new InputError('changes', error.message);
    throw error;
  }
  for (const { shard, clusters } of merged.missing)
    log.line(`missing shard "${shard}": no ChangeSet for ${clusters.join(', ')}`);

  const plan = reportPlan(
    context,
    merged.changeSet.mode,
    { clusterGroup: config.runtimeGroup, cluster: config.runtimeCluster },
    config.trustedCheckout,
  );
  const published = await publishResults({
    env: input.env,
    changeSet: merged.changeSet,
    context,
    plan,
    secrets: input.secrets,
    githubToken: config.githubToken,
    comment: config.comment,
    ...(config.commentAuthor ? { commentAuthor: config.commentAuthor } : {}),
    bundleFiles: config.bundleFiles,
    ...(input.signal ? { signal: input.signal } : {}),
    log,
    changesFile: { path: config.changesFile, workspace: input.workspace, boundary: input.boundary },
  });
  const failed = merged.changeSet.clusters
    .filter((cluster) => cluster.status === 'failed')
    .map((cluster) => ({
      name: cluster.name,
      step: cluster.error?.step ?? 'run',
      message: cluster.error?.message ?? 'failed',
    }));
  return { published, failed };
}
