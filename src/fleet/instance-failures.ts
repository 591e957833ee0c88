// An instance that fails as a whole, and what its cluster makes of it. One broken instance
// does not hide the rest: a plan still builds and diffs the cluster's other instances and
// lists every one in bundle order, the broken one with its error (`InstanceChanges.error`),
// and the cluster is failed with the first failure in bundle order as its error (plan.ts).
// A rollout applies a cluster whole or not at all: when an instance does not build, nothing
// is applied to the cluster, its entry lists each instance that did not build with its
// error, and the cluster's error says that nothing was applied (rollout.ts).
import type { BundleInstance } from '../bundle/index.js';
import type { ClusterError, InstanceChanges, InstanceError, ObjectChange } from '../changeset.js';
import { refusedChange, reservedObjects, type ReservedObjectRules } from '../kube/instance/index.js';
import { formatRef } from '../kube/object.js';
import { FAILURE_MARK } from './fleet-run.js';
import { ClusterStepError } from './outcome.js';
import { moduleInfo, type ClusterInstanceBuild, type StartedClusterBuild } from './session.js';

/** The failure of an instance as a ClusterStepError naming it (what the builds throw already is one). */
export function instanceStepError(error: unknown, fallbackStep: string, instance: string): ClusterStepError {
  if (error instanceof ClusterStepError && error.instance === instance) return error;
  return new ClusterStepError(fallbackStep, error, instance);
}

/** The instance's own error, as the ChangeSet holds it. */
export function instanceError(failure: ClusterStepError): InstanceError {
  return { step: failure.step, message: failure.message, ...(failure.object ? { object: failure.object } : {}) };
}

/**
 * The ChangeSet entry of an instance that did not build: what the bundle says of it (name,
 * namespace, module as referenced; no digest unless the bundle pins one) and its error.
 */
export function unbuiltInstanceEntry(instance: BundleInstance, failure: ClusterStepError): InstanceChanges {
  const { url, version, digest } = instance.module;
  return {
    name: instance.name,
    namespace: instance.namespace,
    module: { url, version, digest: digest ?? '' },
    changes: [],
    error: instanceError(failure),
  };
}

/** The entry of an instance built but whose dry-run stopped: the changes found before, and its error. */
export function undiffedInstanceEntry(
  instance: Omit<InstanceChanges, 'changes' | 'error'>,
  failure: ClusterStepError,
  changes: ObjectChange[],
): InstanceChanges {
  return { ...instance, changes, error: instanceError(failure) };
}

/** An instance's error as its cluster's: the same step, message and object, naming the instance. */
export function clusterErrorOfInstance(instance: string, error: InstanceError): ClusterError {
  return { step: error.step, message: error.message, instance, ...(error.object ? { object: error.object } : {}) };
}

function instanceList(names: readonly string[]): string {
  return names.length === 1 ? `instance ${names[0]}` : `instances ${names.join(', ')}`;
}

/**
 * Every instance of the cluster built, in bundle order. When one or more did not build,
 * each is added to `into` (bundle order) with its error, each error is told once (to `tell`,
 * then as a failure line), and the
 * cluster fails at `build`, naming the first instance that did not build, with an error
 * that says nothing was applied (its cause is that instance's failure, for annotations).
 */
export async function builtOrNothing(
  cluster: string,
  started: StartedClusterBuild,
  into: InstanceChanges[],
  line: (text: string) => void,
  tell?: (failure: ClusterStepError) => void,
): Promise<ClusterInstanceBuild[]> {
  const settled = await Promise.allSettled(started.instances);
  const built: ClusterInstanceBuild[] = [];
  const failures: ClusterStepError[] = [];
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') {
      built.push(outcome.value);
      return;
    }
    const instance = started.evaluated.bundle.instances[index];
    if (!instance)
      throw new Error(`cluster ${cluster}: the build of instance ${index + 1} has no instance in the bundle`);
    const failure = instanceStepError(outcome.reason, 'build', instance.name);
    failures.push(failure);
    into.push(unbuiltInstanceEntry(instance, failure));
    tell?.(failure);
    line(`${FAILURE_MARK}${failure.message}`);
  });
  const first = failures[0];
  if (!first) return built;
  const names = failures.map((failure) => failure.instance ?? '');
  const notBuilt = `${instanceList(names)} did not build`;
  throw new ClusterStepError(
    'build',
    new Error(`nothing was applied to cluster ${cluster}: ${notBuilt} (an apply is all or nothing per cluster)`, {
      cause: first,
    }),
    first.instance,
  );
}

/**
 * No object of the cluster's builds is (or looks like) a record read back from clusters
 * (../kube/instance/reserved-objects.ts), checked once every instance is built and before
 * anything is written: otherwise each instance holding one is added to `into` with its
 * refused objects (`failed`, the reason as their error), each told as a failure line, and
 * the cluster fails at step `reserved`, its error saying that nothing was applied. A
 * rollback to a revision's build goes through here too.
 */
export function refuseReservedObjects(
  cluster: string,
  instances: readonly ClusterInstanceBuild[],
  rules: ReservedObjectRules,
  into: InstanceChanges[],
  line: (text: string) => void,
): void {
  const refused: Array<{ instance: string; object: string; message: string }> = [];
  for (const instance of instances) {
    const found = reservedObjects(
      instance.built.sets.flatMap((set) => set.objects),
      rules,
    );
    if (found.length === 0) continue;
    into.push({
      name: instance.name,
      namespace: instance.namespace,
      module: moduleInfo(instance),
      changes: found.map(({ object, message }) => refusedChange(object, message)),
    });
    for (const { object, message } of found) {
      refused.push({ instance: instance.name, object: formatRef(object), message });
      line(`${FAILURE_MARK}cluster ${cluster}: instance ${instance.name}: ${message}`);
    }
  }
  const first = refused[0];
  if (!first) return;
  const reasons = refused.map(({ instance, message }) => `instance ${instance}: ${message}`).join('; ');
  throw new ClusterStepError(
    'reserved',
    new Error(`nothing was applied to cluster ${cluster}: ${reasons}`),
    first.instance,
    first.object,
  );
}
