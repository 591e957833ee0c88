// How the reports tell `on-failure: rollback` (../fleet/rollback.ts): after a cluster's status
// (`↩️ rolled back`, `⚠️ rollback failed`, and whose failure in its wave), in the rollout's
// sentence, and in the cluster's section (what was put back, or the rollback's error). And a
// rollback to a revision (../fleet/revision-rollback.ts): the run's name and what it asked
// for in the headline, each instance's revisions beside its name.
import type { ChangeSet, ClusterChanges, InstanceChanges } from '../changeset.js';
import type { Measure } from '../github/limits.js';
import { truncateLines } from './budget.js';
import { code, codeBlock } from './markdown.js';

/** As a cluster's error block: the most of the message shown, and the note for a message cut. */
export interface RollbackBlockOptions {
  cap: number;
  measure: Measure;
  cutNote: (keptLines: number, totalLines: number) => string;
}

/** `on-failure: rollback`'s outcome on the cluster, after its status: '' when it was not rolled back. */
export function rollbackLabel(cluster: ClusterChanges): string {
  const rollback = cluster.rollback;
  if (!rollback) return '';
  const wave = rollback.wave ? ` (${code(rollback.wave.failed)} of its wave failed)` : '';
  return rollback.outcome === 'rolled back' ? ` · ↩️ rolled back${wave}` : ` · ⚠️ rollback failed${wave}`;
}

/**
 * What the rollback did on the cluster: each instance put back (restored to its module and
 * version, or deleted when this run installed it), and a failed rollback's error in a
 * fenced block (capped); '' when it was not rolled back.
 */
export function renderRollbackBlock(cluster: ClusterChanges, options: RollbackBlockOptions): string {
  const rollback = cluster.rollback;
  if (!rollback) return '';
  const why = rollback.wave ? `cluster ${code(rollback.wave.failed)} of its wave failed, so` : 'the cluster failed, so';
  const done = cluster.instances
    .filter((instance) => instance.rollback)
    .map((instance) => {
      const result = instance.rollback!;
      if (result.action === 'restored')
        return `${code(instance.name)} restored to ${code(result.module?.url ?? '')} ${code(result.module?.version ?? '')}`;
      if (result.action === 'deleted') return `${code(instance.name)} deleted (installed by this run)`;
      return `${code(instance.name)} not put back (failed at ${code(result.error?.step ?? 'rollback')})`;
    });
  const list = done.length > 0 ? `: ${done.join('; ')}` : '';
  if (rollback.outcome === 'rolled back')
    return `↩️ **Rolled back**: ${why} every instance this run changed on it was put back as it was before the run${list}.

`;
  const error = rollback.error ?? { message: 'unknown error' };
  const where = [
    error.instance ? `instance ${code(error.instance)}` : '',
    error.object ? `object ${code(error.object)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const message = truncateLines(error.message, options.cap, options.measure);
  const cut = message.cut ? `${options.cutNote(message.keptLines, message.totalLines)}\n` : '';
  return `⚠️ **Rollback failed**${where ? ` (${where})` : ''}: ${why} the instances this run changed on it were being put back${list}.

${codeBlock(message.text, 'text')}${cut}
`;
}

/** The clusters rolled back, and those whose rollback failed, as the end of the rollout's sentence. */
export function rollbackOutcome(clusters: readonly ClusterChanges[]): string {
  const named = (outcome: string) =>
    clusters.filter((cluster) => cluster.rollback?.outcome === outcome).map((cluster) => code(cluster.name));
  const rolledBack = named('rolled back');
  const failed = named('rollback failed');
  return (
    (rolledBack.length > 0 ? `; ↩️ rolled back ${rolledBack.join(', ')}` : '') +
    (failed.length > 0 ? `; ⚠️ rollback failed on ${failed.join(', ')}` : '')
  );
}

/** The run's name in a headline: `rollback` (or `rollback --dry-run`) for a rollback to a revision, else the mode. */
export function runName(changeSet: Pick<ChangeSet, 'mode' | 'rollback'>): string {
  if (!changeSet.rollback) return changeSet.mode;
  return changeSet.mode === 'diff' ? 'rollback (dry-run)' : 'rollback';
}

/** What a rollback to a revision asked for, as a sentence; '' for any other run. */
export function rollbackTargetSentence(changeSet: Pick<ChangeSet, 'rollback'>): string {
  const target = changeSet.rollback;
  if (!target) return '';
  const instances = target.instance ? `instance ${code(target.instance)}` : 'every instance of the bundle';
  const revision =
    target.revision !== undefined
      ? `revision ${target.revision} of its history`
      : 'its previous revision (the one before the live one)';
  return `↩️ Rollback of ${instances} to ${revision}.\n\n`;
}

/** After an instance's name: the revision a rollback to a revision put back (and the live one before); '' otherwise. */
export function revisionLabel(instance: Pick<InstanceChanges, 'revision'>): string {
  const revision = instance.revision;
  if (!revision) return '';
  return revision.from !== undefined
    ? ` ↩️ revision ${revision.from} → ${revision.to}`
    : ` ↩️ to revision ${revision.to}`;
}
