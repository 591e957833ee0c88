// Fake nodes for a cluster (optional, `kwok: true`): kube-scheduler binds Pods to a Node
// that kwok keeps Ready, and kwok moves the Pods through their lifecycle (Running and
// ready, or Succeeded for Jobs) without running containers. With the workload controllers
// of the controller-manager on, Deployments, StatefulSets, DaemonSets and Jobs then
// become ready by themselves, as on a real cluster.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KwokBinaries } from './binaries.js';
import type { KubeClient, KubeObject } from './kube-client.js';
import { renderKubeconfig } from './kubeconfig.js';
import type { ClusterPki } from './pki.js';
import { startProcess, type ProcessRecord } from './processes.js';
import { waitForComponent } from './wait-for-component.js';

/** Controllers that turn workloads into Pods and report their status; added to the defaults when kwok runs. */
export const workloadControllers = [
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'pod-garbage-collector-controller',
  // Removes the not-ready taint that admission puts on every new Node once kwok reports it Ready.
  'node-lifecycle-controller',
];

interface FakeNode extends KubeObject {
  spec?: { taints?: Array<{ key: string; effect: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/** Name of the fake Node of every kwok cluster. */
export const kwokNodeName = 'kwok-node-1';

export interface KwokOptions {
  binaries: KwokBinaries;
  clusterName: string;
  clusterDir: string;
  pki: ClusterPki;
  server: string;
  onStart: (record: ProcessRecord) => void;
  startTimeoutMs?: number;
}

function writeComponentKubeconfig(
  path: string,
  options: KwokOptions,
  userName: string,
  certPath: string,
  keyPath: string,
): void {
  writeFileSync(
    path,
    renderKubeconfig([
      {
        contextName: options.clusterName,
        userName,
        server: options.server,
        caCertPem: readFileSync(options.pki.caCert, 'utf8'),
        clientCertPem: readFileSync(certPath, 'utf8'),
        clientKeyPem: readFileSync(keyPath, 'utf8'),
      },
    ]),
    { mode: 0o600 },
  );
}

function writeStages(binary: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(binary, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${binary} failed to print kwok's default stages: ${stderr.trim() || error.message}`));
        return;
      }
      writeFileSync(path, stdout);
      resolve();
    });
  });
}

/** Starts kube-scheduler and kwok, registers the fake Node and waits until it is Ready. */
export async function startKwok(options: KwokOptions, admin: KubeClient): Promise<void> {
  const { clusterDir, pki } = options;
  const timeoutMs = options.startTimeoutMs ?? 120_000;

  const schedulerKubeconfig = join(clusterDir, 'kube-scheduler.kubeconfig');
  writeComponentKubeconfig(schedulerKubeconfig, options, 'system:kube-scheduler', pki.schedulerCert, pki.schedulerKey);
  const scheduler = startProcess({
    component: 'kube-scheduler',
    binary: options.binaries.kubeScheduler,
    marker: schedulerKubeconfig,
    logPath: join(clusterDir, 'kube-scheduler.log'),
    args: [`--kubeconfig=${schedulerKubeconfig}`, '--secure-port=0', '--leader-elect=false', '--v=1'],
  });
  options.onStart(scheduler);

  // kwok writes node and pod status and needs wide rights: it uses the admin identity.
  const kwokKubeconfig = join(clusterDir, 'kwok.kubeconfig');
  writeComponentKubeconfig(kwokKubeconfig, options, 'kwok', pki.adminCert, pki.adminKey);
  const stagesPath = join(clusterDir, 'kwok-stages.yaml');
  await writeStages(options.binaries.kwokStages, stagesPath);
  const kwok = startProcess({
    component: 'kwok',
    binary: options.binaries.kwok,
    marker: kwokKubeconfig,
    logPath: join(clusterDir, 'kwok.log'),
    args: [
      `--kubeconfig=${kwokKubeconfig}`,
      `--config=${stagesPath}`,
      '--manage-all-nodes=true',
      '--cidr=10.244.0.0/16',
      '--node-ip=127.0.0.1',
    ],
  });
  options.onStart(kwok);

  await admin.apply(
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: kwokNodeName,
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
        labels: {
          'kubernetes.io/hostname': kwokNodeName,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          type: 'kwok',
        },
      },
      spec: {},
    },
    { fieldManager: 'fleet-kwok' },
  );
  await waitForComponent(
    kwok,
    async () => {
      const node = await admin.get<FakeNode>({ apiVersion: 'v1', kind: 'Node', name: kwokNodeName });
      const ready = (node.status?.conditions ?? []).some(
        (condition) => condition.type === 'Ready' && condition.status === 'True',
      );
      return ready && (node.spec?.taints ?? []).length === 0;
    },
    { description: `kwok of ${options.clusterName} to make node ${kwokNodeName} Ready and untainted`, timeoutMs },
  );
  await waitForComponent(scheduler, async () => true, {
    description: `kube-scheduler of ${options.clusterName} to keep running`,
    timeoutMs,
  });
}
