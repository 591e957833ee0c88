// The callout of a run that overran its deadline: for each cluster whose work the deadline
// stopped (step `deadline`, fleet/fleet-run.ts `deadlineError`), one line saying that this
// commit could not be diffed (or applied) there, with the step it was at, for how long and
// which deadline. It stands under the headline of the PR comment and of the job summary, so
// that no earlier commit's diff is taken for this one's.
import type { ChangeSet } from '../changeset.js';
import { code, commitLink, escapeInline, type ReportContext } from './markdown.js';

/** The step of a cluster error written when the run's deadline stopped the cluster's work. */
export const DEADLINE_STEP = 'deadline';

/** A CAUTION block, one line per cluster the deadline stopped; '' when none. Give it the masked ChangeSet. */
export function deadlineCallout(changeSet: ChangeSet, context: ReportContext): string {
  const stopped = changeSet.clusters.filter(
    (cluster) => cluster.status === 'failed' && cluster.error?.step === DEADLINE_STEP,
  );
  if (stopped.length === 0) return '';
  const verb = changeSet.mode === 'apply' ? 'applied' : 'diffed';
  const lines = stopped.map(
    (cluster) =>
      `> Commit ${commitLink(context)} could not be ${verb} on cluster ${code(cluster.name)}: ${escapeInline(cluster.error?.message ?? '')}.`,
  );
  const after =
    changeSet.mode === 'apply'
      ? '> What was applied before the deadline is listed below.'
      : "> An earlier commit's diff no longer stands for it: whatever is shown here is this commit's.";
  return `> [!CAUTION]\n${lines.join('\n>\n')}\n>\n${after}\n\n`;
}
