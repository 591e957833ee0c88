// A diff, apply or rollback that failed before it reached any cluster (run-action.ts
// `runOnClusters`: the runtime not read or not evaluated, its evaluation stopped by the
// deadline watchdog, the bundle files not read, the base runtime not read). Before, the
// error was only annotated and the pull request kept the last commit's diff as this one's;
// now it is also published (publish.ts publishRunFailure).
import { isEngineStopped } from '../cue/index.js';
import { errorAnnotations } from '../error-annotations.js';
import { EVALUATION_ABANDONED } from '../fleet/fleet-run.js';
import { DEADLINE_STEP } from '../report/index.js';
import type { SecretRegistry } from '../secrets.js';
import type { RunPlan } from './event-plan.js';
import type { ActionLog } from './log.js';
import { publishRunFailure, type PublishTarget } from './publish.js';

/** What a run is doing before it reaches the clusters: reading the runtime, the bundle files, the base runtime. */
export interface SetupProgress {
  step: 'runtime' | 'bundle' | 'base runtime';
  since: number;
}

/**
 * A diff, apply or rollback that failed before it reached any cluster: the error annotated as
 * always (a CUE error on its lines), and published (publish.ts publishRunFailure): a pull
 * request's comment and the job summary say that this commit could not be diffed, at which
 * step and why, so that the last commit's diff does not stand for it. An evaluation stopped by
 * the deadline (deadline-watchdog.ts) is told as such: step `deadline`, which step it stopped,
 * for how long, which deadline. A drift or status run only annotates (their reports are not a
 * pull request's).
 */
export async function publishSetupFailure(
  write: (text: string) => void,
  failed: {
    error: unknown;
    plan: Extract<RunPlan, { mode: 'diff' | 'apply' | 'rollback' }>;
    progress: SetupProgress;
    /** The deadline as the reports name it (run-action.ts RunLimits `text`). */
    deadlineText: string;
    /** Ends the publishing: the run's deadline (or shortly after an apply's cancellation). */
    publishing: AbortSignal;
    /** The `comment` input. */
    comment: boolean;
    secrets: SecretRegistry;
    log: ActionLog;
    target: (signal: AbortSignal) => PublishTarget;
  },
): Promise<void> {
  const { error, plan, progress, secrets, log } = failed;
  const stopped = isEngineStopped(error);
  const seconds = (Math.max(0, Date.now() - progress.since) / 1000).toFixed(1);
  const failure = stopped
    ? {
        step: DEADLINE_STEP,
        message: `the run reached its deadline (${failed.deadlineText}) while it was at step ${progress.step} for ${seconds} s, before any cluster: ${EVALUATION_ABANDONED}`,
      }
    : { step: progress.step, message: error instanceof Error ? error.message : String(error) };
  // A CUE error is annotated on the user's own lines; a deadline stop says which deadline.
  if (stopped) log.annotate({ level: 'error', title: 'timoni-fleet deadline', message: failure.message });
  else write(secrets.redact(errorAnnotations(error)));
  try {
    await publishRunFailure({
      ...failed.target(failed.publishing),
      failure: { ...failure, message: secrets.redact(failure.message) },
      // A rollback is published as an apply: in the job summary only.
      plan: plan.mode === 'rollback' ? { ...plan, mode: 'apply' } : plan,
      comment: failed.comment,
    });
  } catch (publishError) {
    // The run fails anyway; what could not be published is said, never swallowed.
    log.annotate({
      level: 'error',
      title: 'timoni-fleet report not published',
      message: `the report of the failure above could not be published: ${publishError instanceof Error ? publishError.message : String(publishError)}`,
    });
  }
}
