// DIR/fleet.json: what a running fleet consists of, written while it starts (so that a
// half-started fleet can still be stopped) and read by `down`, `status` and the tests.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryState } from './fleet-registry.js';
import type { ClusterPki } from './pki.js';
import type { ProcessRecord } from './processes.js';

export interface ClusterState {
  name: string;
  contextName: string;
  /** https://127.0.0.1:PORT; empty until the API server was started. */
  server: string;
  /** gitVersion from /version; empty until the API server answered. */
  version: string;
  /** DIR/<name>: logs, etcd data, key material. */
  dir: string;
  pki: ClusterPki;
  ports: { etcdClient: number; etcdPeer: number; apiserver: number };
  /** In start order; stopped in reverse. */
  processes: ProcessRecord[];
}

export interface FleetState {
  format: 1;
  dir: string;
  /** Process that started the fleet (the CLI's `up`, or the test run). */
  startedBy: number;
  startedAt: string;
  kubeVersion: string;
  kubeconfigPath: string;
  envPath: string;
  /** The folder was created for this fleet (a temporary one): `stop` removes it with all it holds. */
  ownsDir: boolean;
  /** Fake nodes and workload controllers run (kwok.ts). */
  kwok: boolean;
  clusters: ClusterState[];
  /** Contexts per cluster in the kubeconfig (its own and aliases, kubeconfig.ts `contextAliases`); 1 when absent. */
  contextsPerCluster?: number;
  /** The OCI registry holding the example module (fleet-registry.ts); only when started with one. */
  registry?: RegistryState;
}

export const stateFileName = 'fleet.json';

export function statePath(dir: string): string {
  return join(dir, stateFileName);
}

export function writeState(state: FleetState): void {
  const path = statePath(state.dir);
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(partial, path);
}

/** The state of the fleet in `dir`, or null when no fleet was started there. */
export function readState(dir: string): FleetState | null {
  const path = statePath(dir);
  if (!existsSync(path)) return null;
  let state: FleetState;
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as FleetState;
  } catch (error) {
    throw new Error(`cannot read the fleet state ${path}: ${(error as Error).message}`);
  }
  if (state.format !== 1) throw new Error(`${path} has format ${String(state.format)}, this tooling reads format 1`);
  return state;
}

/** Every process of the fleet, in the order to stop them (each cluster's in the reverse of its start order, then the registry). */
export function processesToStop(state: FleetState): ProcessRecord[] {
  return [
    ...state.clusters.flatMap((cluster) => [...cluster.processes].reverse()),
    ...(state.registry?.processes ?? []),
  ];
}
