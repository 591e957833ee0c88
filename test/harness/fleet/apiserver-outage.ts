// An outage of one cluster's control plane, for tests of what clients do meanwhile: its
// kube-apiserver is stopped (etcd and the rest keep running) and started again later on
// the same port with the same flags and key material, so kubeconfigs stay valid. Works from
// the fleet's state file, which records the new process, so that `down` still stops it.
import { adminClient } from './cluster.js';
import { startKubeApiserver } from './kube-apiserver.js';
import { loopback } from './ports.js';
import { isRunning, stopProcesses, type ProcessRecord } from './processes.js';
import { readState, writeState, type ClusterState, type FleetState } from './state.js';

const component = 'kube-apiserver';

function clusterOf(dir: string, cluster: string): { state: FleetState; entry: ClusterState; index: number } {
  const state = readState(dir);
  if (!state) throw new Error(`no fleet is recorded in ${dir}`);
  const entry = state.clusters.find((c) => c.name === cluster || c.contextName === cluster);
  if (!entry)
    throw new Error(
      `the fleet in ${dir} has no cluster ${cluster} (it has ${state.clusters.map((c) => c.name).join(', ')})`,
    );
  const index = entry.processes.findIndex((record) => record.component === component);
  if (index < 0) throw new Error(`cluster ${cluster} of the fleet in ${dir} has no ${component} recorded`);
  return { state, entry, index };
}

/** Stops the kube-apiserver of one cluster (SIGTERM, then SIGKILL after `graceMs`); resolves once it is gone. */
export async function stopApiserver(dir: string, cluster: string, graceMs = 5_000): Promise<void> {
  const { entry, index } = clusterOf(dir, cluster);
  await stopProcesses([entry.processes[index]!], graceMs);
}

/** True while the recorded kube-apiserver of the cluster runs. */
export function apiserverRunning(dir: string, cluster: string): boolean {
  const { entry, index } = clusterOf(dir, cluster);
  return isRunning(entry.processes[index]!);
}

/**
 * Starts the kube-apiserver of a cluster again, as it was started (same port, etcd and
 * certificates), once it no longer runs; resolves when it answers /readyz, with its new
 * process recorded in the state file.
 */
export async function startApiserver(dir: string, cluster: string): Promise<ProcessRecord> {
  const { state, entry, index } = clusterOf(dir, cluster);
  const previous = entry.processes[index]!;
  if (isRunning(previous))
    throw new Error(`the ${component} of cluster ${entry.name} still runs (pid ${previous.pid}); stop it first`);
  const admin = adminClient(entry.name, entry.server, entry.pki);
  let record: ProcessRecord | undefined;
  const remember = (started: ProcessRecord) => {
    record = started;
    entry.processes[index] = started;
    writeState(state);
  };
  try {
    await startKubeApiserver(
      {
        binary: previous.binary,
        clusterName: entry.name,
        clusterDir: entry.dir,
        pki: entry.pki,
        etcdUrl: `http://${loopback}:${entry.ports.etcdClient}`,
        securePort: entry.ports.apiserver,
        onStart: remember,
      },
      admin,
    );
  } finally {
    admin.close();
  }
  if (!record) throw new Error(`the ${component} of cluster ${entry.name} was not started`);
  return record;
}
