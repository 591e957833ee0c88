// One build per distinct input in a run. A fleet of N clusters and M instances builds each
// instance for each cluster, but most clusters of a fleet give an instance the same values
// (all production clusters, say): those builds are the same CUE evaluation with the same
// result. Builds are remembered for the run by everything that decides their result (the
// module as resolved for the run, instance name and namespace, the values, the Kubernetes
// version, the package), so that the cost grows with the distinct inputs, not with N x M.
// Each caller gets its own copy of the result, so that nothing one cluster does to its
// objects reaches another. A failed build is remembered too: the same input fails the same way.
import type { CueEngine } from '../cue/index.js';
import { buildInstance, type BuiltInstance, type InstanceBuildInput } from './instance-build.js';
import type { ModuleSource } from './module-source.js';

type Outcome = { built: BuiltInstance } | { error: unknown };

export class InstanceBuilds {
  readonly #byModule = new WeakMap<ModuleSource, Map<string, Outcome>>();
  #builds = 0;
  #reused = 0;

  constructor(private readonly engine: CueEngine) {}

  build(module: ModuleSource, input: InstanceBuildInput): BuiltInstance {
    let outcomes = this.#byModule.get(module);
    if (!outcomes) {
      outcomes = new Map();
      this.#byModule.set(module, outcomes);
    }
    const key = JSON.stringify([input.name, input.namespace, input.kubeVersion, input.packageName ?? 'main', input.values]);
    let outcome = outcomes.get(key);
    if (outcome) {
      this.#reused += 1;
    } else {
      this.#builds += 1;
      try {
        outcome = { built: buildInstance(this.engine, module, input) };
      } catch (error) {
        outcome = { error };
      }
      outcomes.set(key, outcome);
    }
    if ('error' in outcome) throw outcome.error;
    return structuredClone(outcome.built);
  }

  /** How many builds ran, and how many were answered from an earlier one. */
  counts(): { builds: number; reused: number } {
    return { builds: this.#builds, reused: this.#reused };
  }
}
