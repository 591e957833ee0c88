// "Could not be diffed": the one wording of a commit that a run could not diff (or apply),
// where no earlier commit's diff may stand for it.
// - The callout of a run that overran its deadline: for each cluster whose work the deadline
//   stopped (step `deadline`, fleet/fleet-run.ts `deadlineError`), one line saying that this
//   commit could not be diffed (or applied) there, with the step it was at, for how long and
//   which deadline. It stands under the headline of the PR comment and of the job summary.
// - The callout of a run that failed before it reached any cluster (`runFailureCallout`):
//   the runtime could not be read or evaluated (a CUE error, an evaluation stopped by the
//   deadline), the bundle files could not be read. Its comment and job summary are
//   run-failure.ts.
import type { ChangeSet } from '../changeset.js';
import { secretMasker } from '../secrets.js';
import { code, commitLink, escapeInline, type ReportContext } from './markdown.js';
import { showHiddenText } from './redaction.js';

/** The step of a cluster error written when the run's deadline stopped the cluster's work. */
export const DEADLINE_STEP = 'deadline';

type Verb = 'diffed' | 'applied';

/** One quoted line: "Commit X could not be diffed<where>: <why>." `why` is plain text, masked and escaped here. */
function couldNotLine(context: ReportContext, verb: Verb, where: string, why: string): string {
  const text = escapeInline(showHiddenText(secretMasker(context.secrets)(why)));
  return `> Commit ${commitLink(context)} could not be ${verb}${where}: ${text}.`;
}

/** What follows the lines: what the rest of the report is. */
function afterLine(verb: Verb, clustersFollow: boolean): string {
  if (verb === 'applied')
    return clustersFollow ? '> What was applied before the deadline is listed below.' : '> Nothing was applied.';
  return clustersFollow
    ? "> An earlier commit's diff no longer stands for it: whatever is shown here is this commit's."
    : "> No cluster was reached. An earlier commit's diff no longer stands for it.";
}

/** A CAUTION block, one line per cluster the deadline stopped; '' when none. Give it the masked ChangeSet. */
export function deadlineCallout(changeSet: ChangeSet, context: ReportContext): string {
  const stopped = changeSet.clusters.filter(
    (cluster) => cluster.status === 'failed' && cluster.error?.step === DEADLINE_STEP,
  );
  if (stopped.length === 0) return '';
  const verb = changeSet.mode === 'apply' ? 'applied' : 'diffed';
  const lines = stopped.map((cluster) =>
    couldNotLine(context, verb, ` on cluster ${code(cluster.name)}`, cluster.error?.message ?? ''),
  );
  return `> [!CAUTION]\n${lines.join('\n>\n')}\n>\n${afterLine(verb, true)}\n\n`;
}

/** Why a run failed before it reached any cluster: the step (`runtime`, `bundle`, `deadline`...) and the error. */
export interface RunFailure {
  step: string;
  /** Plain text, as the error said it; masked and escaped when rendered. */
  message: string;
}

/** How much of a run failure's message a callout shows (the comment's is shorter than the summary's). */
export interface CalloutLimit {
  chars: number;
  cutNote: string;
}

/** The CAUTION block of a run that failed before it reached any cluster: the commit, the step, the error. */
export function runFailureCallout(
  failure: RunFailure,
  context: ReportContext,
  mode: ChangeSet['mode'],
  limit?: CalloutLimit,
): string {
  const verb = mode === 'apply' ? 'applied' : 'diffed';
  const cut = limit !== undefined && failure.message.length > limit.chars;
  const message = cut ? `${failure.message.slice(0, limit.chars)}… (${limit.cutNote})` : failure.message;
  const line = couldNotLine(context, verb, ` (step ${code(failure.step)})`, message);
  return `> [!CAUTION]\n${line}\n>\n${afterLine(verb, false)}\n\n`;
}
