// Picks the clusters of a runtime that a command works on, as `--runtime-cluster` and
// `--runtime-group` select them in Timoni: `*` or empty matches all, other values are
// compared case-insensitively, and the runtime's order is kept.
import type { Runtime, RuntimeCluster } from './types.js';

export interface ClusterSelector {
  cluster?: string;
  group?: string;
}

function matches(wanted: string | undefined, actual: string): boolean {
  if (wanted === undefined || wanted === '' || wanted === '*') return true;
  return wanted.toLowerCase() === actual.toLowerCase();
}

export class NoClusterMatchesError extends Error {
  constructor(runtime: Runtime, selector: ClusterSelector) {
    const asked = [
      selector.cluster && selector.cluster !== '*' ? `cluster "${selector.cluster}"` : '',
      selector.group && selector.group !== '*' ? `group "${selector.group}"` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    const known = runtime.clusters.map((c) => `${c.name} (group ${c.group})`).join(', ');
    super(`no cluster of runtime "${runtime.name}" matches ${asked || 'the selection'}; clusters: ${known || 'none'}`);
    this.name = 'NoClusterMatchesError';
  }
}

/** The selected clusters in runtime order; throws NoClusterMatchesError when none match. */
export function selectClusters(runtime: Runtime, selector: ClusterSelector): RuntimeCluster[] {
  const selected = runtime.clusters.filter(
    (cluster) => matches(selector.cluster, cluster.name) && matches(selector.group, cluster.group),
  );
  if (selected.length === 0) throw new NoClusterMatchesError(runtime, selector);
  return selected;
}
