// The local fleet: N independent clusters started in parallel, a kubeconfig with one
// context per cluster (or several: aliases of its admin user, for many runtime clusters
// on a few API servers), an env file, and a state file from which everything started can be
// stopped again; on request (the CLI's `up`) an OCI registry holding the example module
// (fleet-registry.ts). Used by the CLI (cli.ts), the vitest global setup and scripts.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBinaries, ensureKwokBinaries } from './binaries.js';
import { adminClient, startCluster, type StartClusterOptions } from './cluster.js';
import { formatEnvFile, type EnvEntries } from './env-file.js';
import { registryEnv, servesApi, startFleetRegistry, type RegistryState } from './fleet-registry.js';
import { KubeClient } from './kube-client.js';
import { contextAliases, renderKubeconfig, spreadContextNames, type ContextAlias } from './kubeconfig.js';
import {
  isRunning,
  residentKiB,
  stopProcesses,
  stopProcessesSync,
  sweepProcessesSync,
  type ProcessRecord,
} from './processes.js';
import { processesToStop, readState, statePath, writeState, type ClusterState, type FleetState } from './state.js';
import { kubernetesVersion } from './versions.js';
import { portTakenHint } from './wait-for-component.js';
import type { ProgressLog } from '../support/go-binary.js';

export interface FleetOptions {
  /** Number of clusters; 3 unless given. */
  clusters?: number;
  /** Folder for state, logs, data, kubeconfig and env; a new temporary folder unless given. */
  dir?: string;
  /** Cluster and context names are `<prefix>-1`, `<prefix>-2`, ...; `fleet` unless given. */
  namePrefix?: string;
  /** Progress lines; silent unless given. */
  log?: ProgressLog;
  /** kube-controller-manager controllers; see kube-controller-manager.ts for the default. */
  controllers?: string[];
  /**
   * Fake nodes (kwok.ts): kube-scheduler, kwok and the workload controllers run, so that
   * workloads become ready by themselves. Off unless asked; then the readiness helper
   * (readiness.ts) stands in for them.
   */
  kwok?: boolean;
  /**
   * Also start an OCI registry (DIR/registry) holding the example module at the version
   * examples/bundle.cue names, and write its address to the env file (fleet-registry.ts).
   * Off unless asked: tests start registries of their own (test/harness/registry).
   */
  registry?: boolean;
  /**
   * Contexts per cluster in the kubeconfig: the cluster's own (`fleet-1`) and aliases
   * `fleet-1-2` ... `fleet-1-<n>` of the same admin user (kubeconfig.ts `contextAliases`),
   * so that a runtime of many clusters (bundles that put each cluster's instances in their
   * own namespaces) runs on a few API servers. 1 unless given.
   */
  contextsPerCluster?: number;
}

/** One cluster as tests see it. Plain data, so that it can cross process boundaries. */
export interface FleetCluster {
  name: string;
  contextName: string;
  /** https://127.0.0.1:PORT */
  server: string;
  /** What /version reports, e.g. v1.36.3. */
  version: string;
  /** DIR/<name>: component logs (etcd.log, kube-apiserver.log, kube-controller-manager.log). */
  dir: string;
  /** The cluster CA (PEM file). */
  caCertPath: string;
  /** Client certificate and key of `fleet-user`: authenticated, no groups, no roles. */
  userCertPath: string;
  userKeyPath: string;
}

/** The fleet as tests see it (what the global setup provides as `inject('fleet')`). */
export interface FleetDescription {
  dir: string;
  kubeconfigPath: string;
  envPath: string;
  kubeVersion: string;
  /** Each cluster has a Ready fake Node (`kwok-node-1`) and runs workloads (see FleetOptions.kwok). */
  kwok: boolean;
  clusters: FleetCluster[];
  /**
   * Every context of the kubeconfig: the clusters' own, then their aliases round-robin
   * over the clusters (FleetOptions.contextsPerCluster), so that the first N spread
   * evenly over the API servers.
   */
  contexts: string[];
  /** The fleet's registry, when started with one (FleetOptions.registry). */
  registry?: FleetRegistry;
}

/** The fleet's registry as tests see it. */
export interface FleetRegistry {
  /** http://127.0.0.1:PORT */
  url: string;
  /** 127.0.0.1:PORT */
  host: string;
  /** The example module: `oci://127.0.0.1:PORT/modules/webapp`, its version and manifest digest. */
  module?: { url: string; version: string; digest: string };
}

export interface Fleet extends FleetDescription {
  /** The kubeconfig's text. */
  kubeconfig: string;
  /** Stops every process and removes what the fleet wrote into its folder. */
  stop(): Promise<void>;
  /** The same, blocking: for `exit` and signal handlers. */
  stopSync(): void;
}

export function describeState(state: FleetState): FleetDescription {
  return {
    dir: state.dir,
    kubeconfigPath: state.kubeconfigPath,
    envPath: state.envPath,
    kubeVersion: state.kubeVersion,
    kwok: state.kwok ?? false,
    clusters: state.clusters.map((cluster) => ({
      name: cluster.name,
      contextName: cluster.contextName,
      server: cluster.server,
      version: cluster.version,
      dir: cluster.dir,
      caCertPath: cluster.pki.caCert,
      userCertPath: cluster.pki.userCert,
      userKeyPath: cluster.pki.userKey,
    })),
    contexts: spreadContextNames(
      state.clusters.map((cluster) => cluster.contextName),
      aliasesOf(state),
    ),
    ...(state.registry ? { registry: describeRegistry(state.registry) } : {}),
  };
}

function aliasesOf(state: FleetState): ContextAlias[] {
  return contextAliases(
    state.clusters.map((cluster) => cluster.contextName),
    state.contextsPerCluster ?? 1,
  );
}

function describeRegistry(registry: RegistryState): FleetRegistry {
  const module = registry.module
    ? { url: registry.module.url, version: registry.module.version, digest: registry.module.digest }
    : undefined;
  return { url: registry.url, host: registry.host, ...(module ? { module } : {}) };
}

/** A test client for one cluster of a fleet, as its admin (the kubeconfig's user). */
export function fleetClient(fleet: FleetDescription, cluster: number | string = 0): KubeClient {
  const found =
    typeof cluster === 'number' ? fleet.clusters[cluster] : fleet.clusters.find((entry) => entry.name === cluster);
  if (!found)
    throw new Error(
      `the fleet in ${fleet.dir} has no cluster ${JSON.stringify(cluster)} (it has ${fleet.clusters.map((entry) => entry.name).join(', ')})`,
    );
  return KubeClient.fromKubeconfig(readFileSync(fleet.kubeconfigPath, 'utf8'), found.contextName, fleet.kubeconfigPath);
}

function fleetEnv(state: FleetState): EnvEntries {
  const env: EnvEntries = {
    FLEET_DIR: state.dir,
    KUBECONFIG: state.kubeconfigPath,
    FLEET_KUBE_VERSION: state.kubeVersion,
    FLEET_KWOK: String(state.kwok),
    FLEET_CLUSTERS: state.clusters.map((cluster) => cluster.name).join(','),
    FLEET_CONTEXTS: state.clusters.map((cluster) => cluster.contextName).join(','),
  };
  if ((state.contextsPerCluster ?? 1) > 1)
    env.FLEET_ALL_CONTEXTS = spreadContextNames(
      state.clusters.map((cluster) => cluster.contextName),
      aliasesOf(state),
    ).join(',');
  state.clusters.forEach((cluster, index) => {
    env[`FLEET_CLUSTER_${index + 1}_NAME`] = cluster.name;
    env[`FLEET_CLUSTER_${index + 1}_CONTEXT`] = cluster.contextName;
    env[`FLEET_CLUSTER_${index + 1}_SERVER`] = cluster.server;
  });
  return state.registry ? { ...env, ...registryEnv(state.registry) } : env;
}

function writeKubeconfig(state: FleetState): string {
  const text = renderKubeconfig(
    state.clusters.map((cluster) => ({
      contextName: cluster.contextName,
      userName: `${cluster.name}-admin`,
      server: cluster.server,
      caCertPem: readFileSync(cluster.pki.caCert, 'utf8'),
      clientCertPem: readFileSync(cluster.pki.adminCert, 'utf8'),
      clientKeyPem: readFileSync(cluster.pki.adminKey, 'utf8'),
    })),
    undefined,
    aliasesOf(state),
  );
  writeFileSync(state.kubeconfigPath, text, { mode: 0o600 });
  return text;
}

/** Throws when a fleet whose processes still run is recorded in `dir`; clears a dead one. */
function claimDir(dir: string): void {
  const previous = readState(dir);
  if (!previous) return;
  const running = processesToStop(previous).filter(isRunning);
  if (running.length > 0) {
    throw new Error(
      `a fleet is already running in ${dir} (${running.map((record) => `${record.component} pid ${record.pid}`).join(', ')}); ` +
        `stop it first with \`npm run fleet -- down --dir ${dir}\``,
    );
  }
  removeFleetFiles(previous);
}

/**
 * Removes what the fleet wrote into its folder, and the folder itself when nothing else is
 * left; a temporary folder made for the fleet goes with everything in it.
 */
function removeFleetFiles(state: FleetState): void {
  if (state.ownsDir) {
    rmSync(state.dir, { recursive: true, force: true });
    return;
  }
  for (const cluster of state.clusters) rmSync(cluster.dir, { recursive: true, force: true });
  if (state.registry) rmSync(state.registry.dir, { recursive: true, force: true });
  rmSync(state.kubeconfigPath, { force: true });
  rmSync(state.envPath, { force: true });
  rmSync(statePath(state.dir), { force: true });
  if (existsSync(state.dir) && readdirSync(state.dir).length === 0) rmdirSync(state.dir);
}

/** Processes of other fleets started inside this one's folder (see test-context.ts `scratchDir`) are swept too. */
function sweepMarker(state: FleetState): string {
  return `${state.dir}/`;
}

function stopSync(state: FleetState): void {
  stopProcessesSync(processesToStop(state));
  sweepProcessesSync(sweepMarker(state));
  removeFleetFiles(state);
}

async function stopAsync(state: FleetState): Promise<void> {
  await Promise.all([
    ...state.clusters.map((cluster) => stopProcesses([...cluster.processes].reverse())),
    stopProcesses(state.registry?.processes ?? []),
  ]);
  sweepProcessesSync(sweepMarker(state));
  removeFleetFiles(state);
}

/**
 * Starts one cluster; when a component fails because another process took one of its
 * ports between picking and binding it, starts the cluster again on other ports (twice at most).
 */
export async function startClusterRetryingPorts(
  options: StartClusterOptions,
  slot: () => ClusterState | undefined,
): Promise<ClusterState> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startCluster(attempt === 1 ? options : { ...options, ports: undefined });
    } catch (error) {
      if (attempt >= 3 || !(error as Error).message.includes(portTakenHint)) throw error;
      options.log(`${options.name}: a port was taken by another process meanwhile; starting again on other ports`);
      await stopProcesses([...(slot()?.processes ?? [])].reverse());
      rmSync(options.dir, { recursive: true, force: true });
    }
  }
}

/** Starts a fleet; on failure stops whatever had started and rethrows with the cause. */
export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const count = options.clusters ?? 3;
  if (!Number.isInteger(count) || count < 1 || count > 20)
    throw new Error(`clusters must be a whole number from 1 to 20, got ${count}`);
  const contextsPerCluster = options.contextsPerCluster ?? 1;
  if (!Number.isInteger(contextsPerCluster) || contextsPerCluster < 1 || contextsPerCluster > 100)
    throw new Error(`contexts per cluster must be a whole number from 1 to 100, got ${contextsPerCluster}`);
  const log = options.log ?? (() => undefined);
  const prefix = options.namePrefix ?? 'fleet';
  const ownsDir = !options.dir;
  const dir = options.dir ? resolve(options.dir) : mkdtempSync(join(tmpdir(), 'timoni-fleet-'));
  claimDir(dir);
  mkdirSync(dir, { recursive: true });

  const binaries = await ensureBinaries(log);
  const kwokBinaries = options.kwok ? await ensureKwokBinaries(log) : undefined;
  const started = Date.now();
  log(`starting ${count} cluster${count === 1 ? '' : 's'} in ${dir}`);

  const state: FleetState = {
    format: 1,
    dir,
    startedBy: process.pid,
    startedAt: new Date().toISOString(),
    kubeVersion: kubernetesVersion,
    kubeconfigPath: join(dir, 'kubeconfig'),
    envPath: join(dir, 'env'),
    ownsDir,
    kwok: options.kwok ?? false,
    clusters: [],
    ...(contextsPerCluster > 1 ? { contextsPerCluster } : {}),
  };
  writeState(state);
  const slots: Array<ClusterState | undefined> = new Array<ClusterState | undefined>(count).fill(undefined);
  const onChange = (index: number) => (cluster: ClusterState) => {
    slots[index] = cluster;
    state.clusters = slots.filter((entry): entry is ClusterState => entry !== undefined);
    writeState(state);
  };

  const registry = options.registry
    ? startFleetRegistry({
        dir: join(dir, 'registry'),
        log,
        onChange: (registryState) => {
          state.registry = registryState;
          writeState(state);
        },
      })
    : undefined;
  const results = await Promise.allSettled<unknown>([
    ...Array.from({ length: count }, (_, index) => {
      const name = `${prefix}-${index + 1}`;
      return startClusterRetryingPorts(
        {
          binaries,
          kwokBinaries,
          name,
          dir: join(dir, name),
          onChange: onChange(index),
          log,
          controllers: options.controllers,
        },
        () => slots[index],
      );
    }),
    ...(registry ? [registry] : []),
  ]);
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  if (failures.length > 0) {
    await Promise.all([
      ...state.clusters.map((cluster) => stopProcesses([...cluster.processes].reverse())),
      stopProcesses(state.registry?.processes ?? []),
    ]);
    throw new Error(
      `starting the fleet in ${dir} failed (everything started was stopped; logs are kept there):\n${failures.map((error) => error.message).join('\n\n')}`,
    );
  }

  const kubeconfig = writeKubeconfig(state);
  writeFileSync(
    state.envPath,
    formatEnvFile(fleetEnv(state), 'timoni-fleet local fleet; format: see test/harness/fleet/env-file.ts'),
  );
  writeState(state);
  log(
    `fleet of ${count} ready in ${((Date.now() - started) / 1000).toFixed(1)}s; KUBECONFIG=${state.kubeconfigPath}, env: ${state.envPath}`,
  );

  let stopped = false;
  return {
    ...describeState(state),
    kubeconfig,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopAsync(state);
    },
    stopSync() {
      if (stopped) return;
      stopped = true;
      stopSync(state);
    },
  };
}

/** Stops the fleet recorded in `dir`; resolves false when there was none. */
export async function stopFleet(dir: string): Promise<boolean> {
  const state = readState(resolve(dir));
  if (!state) return false;
  await stopAsync(state);
  return true;
}

export interface ComponentStatus {
  component: string;
  pid: number;
  running: boolean;
  /** Resident memory in KiB (0 when not running). */
  rssKiB: number;
  logPath: string;
}

export interface ClusterStatus {
  name: string;
  contextName: string;
  server: string;
  version: string;
  /** /readyz answered 200 to the admin user. */
  ready: boolean;
  problem?: string;
  components: ComponentStatus[];
}

export interface RegistryStatus extends FleetRegistry {
  /** GET /v2/ answered 200. */
  ready: boolean;
  problem?: string;
  components: ComponentStatus[];
}

function componentStatus(record: ProcessRecord): ComponentStatus {
  return {
    component: record.component,
    pid: record.pid,
    running: isRunning(record),
    rssKiB: residentKiB(record),
    logPath: record.logPath,
  };
}

async function registryStatus(registry: RegistryState): Promise<RegistryStatus> {
  let ready = false;
  let problem: string | undefined;
  try {
    ready = await servesApi(registry.url);
    if (!ready) problem = `${registry.url}/v2/ did not answer 200`;
  } catch (error) {
    problem = `${registry.url}/v2/: ${(error as Error).message}`;
  }
  return {
    ...describeRegistry(registry),
    ready,
    ...(problem ? { problem } : {}),
    components: registry.processes.map(componentStatus),
  };
}

/** What runs of the fleet recorded in `dir`, or null when there is none. */
export async function fleetStatus(
  dir: string,
): Promise<{ description: FleetDescription; clusters: ClusterStatus[]; registry?: RegistryStatus } | null> {
  const state = readState(resolve(dir));
  if (!state) return null;
  const clusters = await Promise.all(
    state.clusters.map(async (cluster): Promise<ClusterStatus> => {
      const components = cluster.processes.map(componentStatus);
      let ready = false;
      let problem: string | undefined;
      const client = adminClient(cluster.name, cluster.server, cluster.pki);
      try {
        const response = await client.request('GET', '/readyz', { timeoutMs: 5_000 });
        ready = response.status === 200;
        if (!ready) problem = `/readyz answered HTTP ${response.status}: ${response.body.trim().slice(-300)}`;
      } catch (error) {
        problem = (error as Error).message;
      } finally {
        client.close();
      }
      return {
        name: cluster.name,
        contextName: cluster.contextName,
        server: cluster.server,
        version: cluster.version,
        ready,
        problem,
        components,
      };
    }),
  );
  const registry = state.registry ? await registryStatus(state.registry) : undefined;
  return { description: describeState(state), clusters, ...(registry ? { registry } : {}) };
}
