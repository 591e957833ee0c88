// A rollback to a revision of each instance's history (`timoni-fleet rollback`, the action's
// `mode: rollback`), as `helm rollback` puts a release back to one of its revisions, across
// the fleet in runtime order. It is a change like any other: the rollout (rollout.ts) or the
// plan (plan.ts, `rollback --dry-run`) takes these builds instead of the bundle's, so each
// cluster is connected and identity-checked, reviewed by its diff, applied with prune and
// waited for, soaked and, with `on-failure: rollback`, put back as it was when it fails.
//
// For each cluster, the bundle is evaluated for it (its name, its instances and their
// namespaces, the runtime's secret values to mask), and each instance it lists (or the one
// asked for) is matched with a revision of its history (../kube/instance/history-store.ts):
//   - `revision` asked: that revision; an instance without it fails the cluster (nothing is
//     applied to it), naming the revisions kept;
//   - none asked: the revision before the live one (the live record is found in the history
//     byte for byte). An instance with no history, or whose live revision is the oldest kept,
//     is left as it is and said so; one whose live record is none of the revisions kept
//     (applied since by another tool) fails the cluster: which revision is meant cannot be
//     told. With `instance` named, anything but a revision to go back to fails.
// Reviewed revisions (`target.unreviewed`, the action's `reviewed` input): a revision counts as
// reviewed when its history entry says so (HistoryEntry.reviewed: applied by a run whose
// review check matched that cluster, or a rollback to such a revision, which inherits the
// mark). Under `refuse` a chosen revision without the mark fails its cluster at step `review`
// before anything is applied there, so that a rollback puts back nothing that no one reviewed
// (a push, a dispatch, `reviewed: off`, a difference applied under `warn`); under `warn` it
// is put back with a warning line. The CLI sets neither: whoever holds the kubeconfig decides.
// A rollback on failure (rollback.ts) puts back the state before its own run, not a revision
// chosen here: this rule does not apply to it.
// The revision's module is pulled again by its digest and built with the revision's values
// for the cluster's Kubernetes version. The apply writes a new record, and the history a new
// revision (`rollbackTo`: the one put back), as `helm rollback` adds one. Instances the bundle
// does not list are not looked for, and none is deleted: a rollback prunes objects within
// the instances it puts back, never whole instances.
//
// Secrets: the values of a revision are never printed. The runtime's secret values that they
// held when it was applied (HistoryEntry.secrets) are registered before anything is built, so
// that a value since rotated is masked in the diff as the current one is. A build that fails
// says which revision did not build, not the engine's words (they may quote the values).
import type { BundleInstance, ClusterBundle } from '../bundle/index.js';
import type { ChangeSet, InstanceRevision } from '../changeset.js';
import { currentRevision, readHistory, readLiveRecordText, type HistoryEntry } from '../kube/instance/index.js';
import type { InstanceBuilds } from '../module/build.js';
import { WARNING_MARK, type FleetRun, type RevisionTarget } from './fleet-run.js';
import { ClusterStepError, logPrefix } from './outcome.js';
import {
  evaluateOnCluster,
  startClusterBuilds,
  type ClusterInstanceBuild,
  type ClusterSession,
  type StartedClusterBuild,
} from './session.js';

/**
 * The revision chosen for one instance, or why it is left as it is. `unreviewed` (under
 * `target.unreviewed: warn`): why the revision does not count as reviewed.
 */
export type RevisionChoice = { entry: HistoryEntry; from?: number; unreviewed?: string } | { leave: string };

/** A revision refused because its history does not say it was reviewed (`target.unreviewed: refuse`): step `review`. */
export class UnreviewedRevisionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreviewedRevisionError';
  }
}

/** Why a revision does not count as reviewed (it carries no `reviewed` mark). */
function unreviewedReason(entry: HistoryEntry): string {
  const putBack =
    entry.rollbackTo !== undefined
      ? ` (it put back revision ${entry.rollbackTo}, which was not applied by a reviewed run either)`
      : '';
  return `revision ${entry.revision} was not applied by a reviewed run${putBack}: its history entry records no review`;
}

/** How a revision was reviewed, for the log: the pull request and the commit whose diff matched. */
export function reviewedText(entry: HistoryEntry): string {
  const { reviewed } = entry;
  if (!reviewed) return 'not applied by a reviewed run';
  const where = [
    reviewed.pullRequest !== undefined ? `pull request #${reviewed.pullRequest}` : '',
    reviewed.commit ? `diff of commit ${reviewed.commit.slice(0, 7)}` : '',
  ].filter((part) => part !== '');
  return `reviewed${where.length > 0 ? ` (${where.join(', ')})` : ''}`;
}

const revisionList = (entries: readonly HistoryEntry[]): string =>
  entries.length > 0 ? entries.map((entry) => entry.revision).join(', ') : 'none';

/**
 * The revision of one instance's history (newest first) to put back, given its live record
 * (null: not installed). Throws (the message naming what is missing) when the target cannot
 * be met; answers `leave` when the instance has nothing to go back to and the target allows
 * leaving it (every instance, the previous revision of each). A revision chosen that does not
 * count as reviewed throws UnreviewedRevisionError under `target.unreviewed: refuse`, and is
 * answered with the reason under `warn`.
 */
export function chooseRevision(
  entries: readonly HistoryEntry[],
  live: string | null,
  target: RevisionTarget,
): RevisionChoice {
  const choice = revisionOf(entries, live, target);
  if ('leave' in choice || choice.entry.reviewed || target.unreviewed === undefined) return choice;
  const reason = unreviewedReason(choice.entry);
  if (target.unreviewed === 'refuse') {
    const advice = target.unreviewedAdvice ? `. ${target.unreviewedAdvice}` : '';
    throw new UnreviewedRevisionError(`${reason}; nothing was applied to this cluster${advice}`);
  }
  return { ...choice, unreviewed: reason };
}

/** The revision the target names, or the one before the live one (chooseRevision, before the review rule). */
function revisionOf(entries: readonly HistoryEntry[], live: string | null, target: RevisionTarget): RevisionChoice {
  const current = currentRevision(entries, live);
  const from = current !== undefined ? { from: current } : {};
  if (target.revision !== undefined) {
    const entry = entries.find((e) => e.revision === target.revision);
    if (!entry)
      throw new Error(`has no revision ${target.revision} in its history (revisions kept: ${revisionList(entries)})`);
    return { entry, ...from };
  }
  const named = target.instance !== '';
  const leave = (reason: string): RevisionChoice => {
    if (named) throw new Error(reason);
    return { leave: reason };
  };
  if (entries.length === 0)
    return leave('no history is kept for it (never applied by timoni-fleet with history, or history: 0)');
  if (live === null) return leave('it is not installed');
  if (current === undefined)
    throw new Error(
      `its live record is none of the revisions kept (${revisionList(entries)}): it was applied since by another tool; name the revision to put back`,
    );
  const previous = entries.find((e) => e.revision < current);
  if (!previous) return leave(`revision ${current} is the oldest kept: there is none before it`);
  return { entry: previous, from: current };
}

/** The module a revision applied, as the bundle would reference it (pinned by digest). */
function revisionInstance(instance: BundleInstance, entry: HistoryEntry): BundleInstance {
  return { ...instance, module: { ...entry.module }, valuesCue: entry.values };
}

/**
 * The rollback's builds for one cluster, in the shape of the bundle's (session.ts
 * `startClusterBuilds`): the bundle evaluated for the cluster, narrowed to the instances put
 * back (each listed with its revision's module), and each one's build under way.
 */
export async function startRevisionBuilds(
  run: FleetRun,
  target: RevisionTarget,
  session: ClusterSession,
  builds: InstanceBuilds,
  line: (text: string) => void,
): Promise<StartedClusterBuild> {
  const evaluated = await evaluateOnCluster(run.engine, run.evaluation, session, (value) =>
    run.secrets.register(value),
  );
  const bundle = evaluated.bundle.name;
  const cluster = session.runtimeCluster.name;
  const listed = evaluated.bundle.instances.filter((i) => target.instance === '' || i.name === target.instance);
  if (listed.length === 0)
    throw new ClusterStepError(
      'rollback',
      `the bundle lists no instance ${target.instance} for cluster ${cluster} (it lists ${evaluated.bundle.instances.map((i) => i.name).join(', ') || 'none'})`,
    );
  const chosen: Array<{ instance: BundleInstance; entry: HistoryEntry; revision: InstanceRevision }> = [];
  for (const instance of listed) {
    const where = `instance ${instance.namespace}/${instance.name}`;
    let choice: RevisionChoice;
    try {
      const entries = await readHistory(session.kube, instance.name, instance.namespace);
      const live = await readLiveRecordText(session.kube, instance.name, instance.namespace);
      choice = chooseRevision(entries, live, target);
    } catch (error) {
      throw new ClusterStepError(
        error instanceof UnreviewedRevisionError ? 'review' : 'rollback',
        `${where}: ${error instanceof Error ? error.message : String(error)}`,
        instance.name,
      );
    }
    const prefix = `${logPrefix(bundle, cluster, instance.name)} >`;
    if ('leave' in choice) {
      line(`${prefix} left as it is: ${choice.leave}`);
      continue;
    }
    const { entry } = choice;
    // A rotated runtime secret that the revision's values held is masked like a current one.
    for (const value of entry.secrets ?? []) run.secrets.register(value);
    const revision: InstanceRevision = {
      to: entry.revision,
      ...(choice.from !== undefined ? { from: choice.from } : {}),
    };
    if (choice.unreviewed)
      line(`${WARNING_MARK}cluster ${cluster}: ${where}: ${choice.unreviewed}; it is put back all the same`);
    line(
      `${prefix} rolling back to revision ${entry.revision}${choice.from !== undefined ? ` (live: revision ${choice.from})` : ''}: module ${entry.module.url} version ${entry.module.version}, applied ${entry.appliedAt}${entry.commit ? ` from commit ${entry.commit.slice(0, 7)}` : ''}, ${reviewedText(entry)}`,
    );
    chosen.push({ instance: revisionInstance(instance, entry), entry, revision });
  }
  if (chosen.length === 0) line(`${logPrefix(bundle, cluster)} > nothing to roll back on this cluster`);
  const instances = chosen.map(({ instance, entry, revision }) =>
    buildRevision(run, session, builds, instance, entry, revision),
  );
  // Whoever awaits them does so in order; a later failure waits for its turn, unreported meanwhile.
  for (const pending of instances) pending.catch(() => undefined);
  const narrowed: ClusterBundle = {
    ...evaluated,
    bundle: { ...evaluated.bundle, instances: chosen.map((c) => c.instance) },
  };
  return { evaluated: narrowed, instances };
}

/** One revision pulled by digest and built with its values; failures name the revision, never the values. */
async function buildRevision(
  run: FleetRun,
  session: ClusterSession,
  builds: InstanceBuilds,
  instance: BundleInstance,
  entry: HistoryEntry,
  revision: InstanceRevision,
): Promise<ClusterInstanceBuild> {
  const { url, version, digest } = entry.module;
  const what = `revision ${entry.revision} (module ${url} version ${version})`;
  if (!url.startsWith('oci://') || !digest || digest === 'unknown')
    throw new ClusterStepError(
      'build',
      `${what}: the module is local (no digest): its files at that revision cannot be fetched again`,
      instance.name,
    );
  let module;
  try {
    module = await run.resolver.resolve({ url, version, digest });
  } catch (error) {
    throw new ClusterStepError(
      'build',
      `${what}: pulling ${url}@${digest}: ${error instanceof Error ? error.message : String(error)}`,
      instance.name,
    );
  }
  let built;
  try {
    built = await builds.build(module, {
      name: instance.name,
      namespace: instance.namespace,
      values: entry.values,
      kubeVersion: session.kubeVersion,
    });
  } catch {
    throw new ClusterStepError(
      'build',
      `${what} did not build with its values for Kubernetes ${session.kubeVersion} (the engine's words are not printed: they may quote the values, which may hold secrets)`,
      instance.name,
    );
  }
  return { name: instance.name, namespace: instance.namespace, module, built, revision };
}

/** A cluster's builds for the run: the bundle's, or, for a rollback to a revision (`run.rollbackTo`), its history's. */
export function startRunBuilds(
  run: FleetRun,
  session: ClusterSession,
  builds: InstanceBuilds,
  line: (text: string) => void,
): Promise<StartedClusterBuild> {
  if (run.rollbackTo) return startRevisionBuilds(run, run.rollbackTo, session, builds, line);
  return startClusterBuilds(
    run.engine,
    run.evaluation,
    run.resolver,
    session,
    (value) => run.secrets.register(value),
    builds,
  );
}

/** The ChangeSet's `rollback` of a rollback to a revision (nothing for any other run). */
export function rollbackOf(run: FleetRun): Pick<ChangeSet, 'rollback'> {
  const target = run.rollbackTo;
  if (!target) return {};
  return {
    rollback: {
      ...(target.instance ? { instance: target.instance } : {}),
      ...(target.revision !== undefined ? { revision: target.revision } : {}),
    },
  };
}
