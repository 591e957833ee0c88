// The fleet's side of instances removed from the bundle: after the bundle's instances are
// diffed (or applied) on a cluster, the instances it stores under the bundle's label but no
// longer lists become ChangeSet instances marked `removed`, with what deleting them would
// do (plan) or did (rollout). Only with `prune` and `pruneRemovedInstances`.
import {
  type DecodedInstanceSecret,
  deletedCount,
  deleteRemovedInstance,
  diffRemovedInstance,
  findRemovedInstances,
  InstanceStepError,
  inventoryEntryId,
  type RemovedInstanceScan,
} from '../kube/instance/index.js';
import type { KubeCluster } from '../kube/connect/index.js';
import type { InstanceChanges, ModuleInfo, ObjectChange } from '../changeset.js';
import { ClusterStepError } from './outcome.js';
import type { ClusterInstanceBuild } from './session.js';

/** The module of a stored instance, as the ChangeSet names modules. */
function storedModule(stored: DecodedInstanceSecret): ModuleInfo {
  const { module } = stored.instance;
  return { url: module.repository, version: module.version, digest: module.digest };
}

function removedEntry(stored: DecodedInstanceSecret, changes: ObjectChange[]): InstanceChanges {
  return {
    name: stored.instance.name,
    namespace: stored.instance.namespace,
    module: storedModule(stored),
    changes,
    removed: true,
  };
}

function objects(count: number): string {
  return count === 1 ? '1 object' : `${count} objects`;
}

async function scan(
  kube: KubeCluster,
  bundle: string,
  builds: readonly ClusterInstanceBuild[],
  log: (text: string) => void,
  warn: (text: string) => void,
): Promise<RemovedInstanceScan> {
  let found: RemovedInstanceScan;
  try {
    found = await findRemovedInstances(kube, bundle, builds);
  } catch (error) {
    throw new ClusterStepError(
      'prune',
      new Error(
        `listing the instances of bundle ${bundle}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      ),
    );
  }
  // A Secret under the bundle's labels that Timoni would not have written there is never
  // acted on (../kube/instance/record-checks.ts): a warning names it and why.
  for (const message of found.ignored) warn(message);
  if (found.scope === 'bundle-namespaces') {
    log(
      'cannot list Secrets or Namespaces across the cluster: instances removed from the bundle are looked for in its own namespaces only',
    );
  }
  if (found.unchecked.length > 0) {
    const shown =
      found.unchecked.slice(0, 5).join(', ') +
      (found.unchecked.length > 5 ? `, and ${found.unchecked.length - 5} more` : '');
    log(
      `cannot list Secrets in ${found.unchecked.length === 1 ? 'namespace' : `${found.unchecked.length} namespaces`} ${shown}: instances removed from the bundle there are not checked`,
    );
  }
  return found;
}

/** Inventory ids of every object the bundle's instances build on this cluster. */
async function builtIds(kube: KubeCluster, builds: readonly ClusterInstanceBuild[]): Promise<Set<string>> {
  const objects = builds.flatMap((build) => build.built.sets.flatMap((set) => set.objects));
  const refs = await Promise.all(objects.map((object) => kube.scopedRef(object)));
  return new Set(refs.map(inventoryEntryId));
}

/** The removed instances with what deleting them would do; nothing is written. */
export async function removedInstancesPlan(
  kube: KubeCluster,
  bundle: string,
  builds: readonly ClusterInstanceBuild[],
  log: (text: string) => void,
  warn: (text: string) => void = log,
): Promise<InstanceChanges[]> {
  const { removed } = await scan(kube, bundle, builds, log, warn);
  if (removed.length === 0) return [];
  const built = await builtIds(kube, builds);
  const entries: InstanceChanges[] = [];
  for (const stored of removed) {
    let changes: ObjectChange[];
    try {
      changes = await diffRemovedInstance(kube, stored, built);
    } catch (error) {
      const object = (error as { object?: unknown }).object;
      throw new ClusterStepError('prune', error, stored.instance.name, typeof object === 'string' ? object : undefined);
    }
    log(
      `i:${stored.instance.name} > instance removed from the bundle: ${objects(deletedCount(changes))} would be deleted`,
    );
    entries.push(removedEntry(stored, changes));
  }
  return entries;
}

export interface RemovedInstancesApply {
  wait: boolean;
  timeoutMs: number;
  /** The cluster's deadline (epoch ms) that the waits end by. */
  deadline: number;
  log: (text: string) => void;
  /** A warning line (a record ignored), unprefixed; default `log`. */
  warn?: (text: string) => void;
}

/**
 * Deletes the removed instances, newest first, as `bundle delete` does; each one is added to
 * `into` as it goes (with what was deleted before a failure), and the first failure stops.
 */
export async function removedInstancesApply(
  kube: KubeCluster,
  bundle: string,
  builds: readonly ClusterInstanceBuild[],
  options: RemovedInstancesApply,
  into: InstanceChanges[],
): Promise<void> {
  const { removed } = await scan(kube, bundle, builds, options.log, options.warn ?? options.log);
  for (const stored of removed) {
    const name = stored.instance.name;
    const log = (text: string) => options.log(`i:${name} > ${text}`);
    log('instance removed from the bundle: deleting it');
    try {
      const deleted = await deleteRemovedInstance(
        kube,
        stored,
        { wait: options.wait, timeoutMs: options.timeoutMs, log },
        options.deadline,
      );
      log(`instance removed from the bundle: ${objects(deletedCount(deleted.changes))} deleted`);
      into.push(removedEntry(stored, deleted.changes));
    } catch (error) {
      if (error instanceof InstanceStepError) {
        into.push(removedEntry(stored, error.changes));
        throw new ClusterStepError(error.step, error, name, error.object);
      }
      throw new ClusterStepError('prune', error, name);
    }
  }
}
