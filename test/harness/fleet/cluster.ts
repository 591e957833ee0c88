// Starts one cluster of the fleet: key material, etcd, kube-apiserver, then
// kube-controller-manager, each waited for before the next.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FleetBinaries, KwokBinaries } from './binaries.js';
import { startEtcd } from './etcd.js';
import { kubernetesServiceIp, startKubeApiserver } from './kube-apiserver.js';
import { KubeClient } from './kube-client.js';
import { defaultControllers, startKubeControllerManager } from './kube-controller-manager.js';
import { startKwok, workloadControllers } from './kwok.js';
import { generateClusterPki, type ClusterPki } from './pki.js';
import { freePorts, loopback } from './ports.js';
import type { ClusterState } from './state.js';
import type { ProgressLog } from '../support/go-binary.js';

export interface StartClusterOptions {
  binaries: FleetBinaries;
  name: string;
  /** DIR/<name>; created. */
  dir: string;
  /** Called whenever the cluster's state changes (a process started, the server answered). */
  onChange: (cluster: ClusterState) => void;
  log: ProgressLog;
  controllers?: string[];
  /** Given: run kube-scheduler, kwok with one fake Node, and the workload controllers. */
  kwokBinaries?: KwokBinaries;
  /** Ports to use instead of free ones picked now (tests of what happens when one is taken). */
  ports?: ClusterState['ports'];
}

/** A client for the cluster's admin user (system:masters), straight from its key material. */
export function adminClient(name: string, server: string, pki: ClusterPki): KubeClient {
  return new KubeClient({
    contextName: name,
    server,
    ca: readFileSync(pki.caCert),
    cert: readFileSync(pki.adminCert),
    key: readFileSync(pki.adminKey),
  });
}

export async function startCluster(options: StartClusterOptions): Promise<ClusterState> {
  const { binaries, name, dir, log } = options;
  const started = Date.now();
  mkdirSync(dir, { recursive: true });
  const pki = await generateClusterPki(binaries.pki, join(dir, 'pki'), kubernetesServiceIp);
  const [etcdClient, etcdPeer, apiserver] = options.ports
    ? [options.ports.etcdClient, options.ports.etcdPeer, options.ports.apiserver]
    : ((await freePorts(3)) as [number, number, number]);
  const cluster: ClusterState = {
    name,
    contextName: name,
    server: `https://${loopback}:${apiserver}`,
    version: '',
    dir,
    pki,
    ports: { etcdClient, etcdPeer, apiserver },
    processes: [],
  };
  const track = (): void => options.onChange(cluster);
  const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

  const etcd = await startEtcd({
    binary: binaries.etcd,
    clusterName: name,
    clusterDir: dir,
    clientPort: etcdClient,
    peerPort: etcdPeer,
    onStart: (record) => {
      cluster.processes.push(record);
      track();
    },
  });
  log(`${name}: etcd ready on ${etcd.clientUrl} (${seconds()})`);

  const admin = adminClient(name, cluster.server, pki);
  try {
    await startKubeApiserver(
      {
        binary: binaries.kubeApiserver,
        clusterName: name,
        clusterDir: dir,
        pki,
        etcdUrl: etcd.clientUrl,
        securePort: apiserver,
        onStart: (record) => {
          cluster.processes.push(record);
          track();
        },
      },
      admin,
    );
    cluster.version = (await admin.version()).gitVersion;
    track();
    log(`${name}: kube-apiserver ${cluster.version} ready on ${cluster.server} (${seconds()})`);

    await startKubeControllerManager(
      {
        binary: binaries.kubeControllerManager,
        clusterName: name,
        clusterDir: dir,
        pki,
        server: cluster.server,
        controllers:
          options.controllers ??
          (options.kwokBinaries ? [...defaultControllers, ...workloadControllers] : defaultControllers),
        onStart: (record) => {
          cluster.processes.push(record);
          track();
        },
      },
      admin,
    );
    log(`${name}: kube-controller-manager ready (${seconds()})`);

    if (options.kwokBinaries) {
      await startKwok(
        {
          binaries: options.kwokBinaries,
          clusterName: name,
          clusterDir: dir,
          pki,
          server: cluster.server,
          onStart: (record) => {
            cluster.processes.push(record);
            track();
          },
        },
        admin,
      );
      log(`${name}: kube-scheduler and kwok ready, fake node Ready (${seconds()})`);
    }
  } finally {
    admin.close();
  }
  return cluster;
}
