// One kube-controller-manager per cluster, running only the controllers that give a
// cluster without nodes the behaviour tests rely on: default ServiceAccounts and the
// kube-root-ca.crt ConfigMap in every namespace, namespace deletion, garbage collection,
// aggregated ClusterRoles, PV/PVC finalizer removal. Workload controllers (Deployment,
// ReplicaSet, StatefulSet, DaemonSet, Job, CronJob) are left out on purpose: no Pod can run
// without nodes, and the readiness helper (readiness.ts) sets their status instead, which
// a running workload controller would overwrite.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeClient } from './kube-client.js';
import { renderKubeconfig } from './kubeconfig.js';
import type { ClusterPki } from './pki.js';
import { startProcess, type ProcessRecord } from './processes.js';
import { waitForComponent } from './wait-for-component.js';

export const defaultControllers = [
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'namespace-controller',
  'garbage-collector-controller',
  'clusterrole-aggregation-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
];

export interface KubeControllerManagerOptions {
  binary: string;
  clusterName: string;
  clusterDir: string;
  pki: ClusterPki;
  server: string;
  /** Controllers to run; `defaultControllers` unless given. */
  controllers?: string[];
  startTimeoutMs?: number;
  /** Called as soon as the process exists, before it is ready, so that it can be stopped if waiting fails. */
  onStart?: (record: ProcessRecord) => void;
}

export async function startKubeControllerManager(
  options: KubeControllerManagerOptions,
  admin: KubeClient,
): Promise<ProcessRecord> {
  const { pki } = options;
  const kubeconfigPath = join(options.clusterDir, 'kube-controller-manager.kubeconfig');
  writeFileSync(
    kubeconfigPath,
    renderKubeconfig([
      {
        contextName: options.clusterName,
        userName: 'system:kube-controller-manager',
        server: options.server,
        caCertPem: readFileSync(pki.caCert, 'utf8'),
        clientCertPem: readFileSync(pki.controllerManagerCert, 'utf8'),
        clientKeyPem: readFileSync(pki.controllerManagerKey, 'utf8'),
      },
    ]),
    { mode: 0o600 },
  );
  const record = startProcess({
    component: 'kube-controller-manager',
    binary: options.binary,
    marker: kubeconfigPath,
    logPath: join(options.clusterDir, 'kube-controller-manager.log'),
    args: [
      `--kubeconfig=${kubeconfigPath}`,
      // No HTTPS endpoint of its own: nothing scrapes it, and it would need delegated authentication.
      '--secure-port=0',
      '--leader-elect=false',
      `--controllers=${(options.controllers ?? defaultControllers).join(',')}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--root-ca-file=${pki.caCert}`,
      // Each controller acts as its own ServiceAccount with its bootstrap role, as in kubeadm clusters.
      '--use-service-account-credentials=true',
      '--v=1',
    ],
  });
  options.onStart?.(record);
  await waitForComponent(
    record,
    async () => {
      const account = await admin.getOrNull({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        namespace: 'default',
        name: 'default',
      });
      return account !== null;
    },
    {
      description: `kube-controller-manager of ${options.clusterName} to create the default ServiceAccount`,
      timeoutMs: options.startTimeoutMs ?? 120_000,
      intervalMs: 300,
    },
  );
  return record;
}
