// One kube-apiserver per cluster: TLS on 127.0.0.1 with the cluster's own CA, client
// certificates for authentication (anonymous requests refused), Node and RBAC authorization,
// service-account tokens signed with the cluster's key. Features a test cluster without
// nodes does not use are turned off to save memory and start faster.
import { join } from 'node:path';
import type { KubeClient } from './kube-client.js';
import type { ClusterPki } from './pki.js';
import { loopback } from './ports.js';
import { startProcess, type ProcessRecord } from './processes.js';
import { waitForComponent } from './wait-for-component.js';

/** Service range of every cluster; the `kubernetes` Service gets its first address. */
export const serviceClusterIpRange = '10.0.0.0/24';
export const kubernetesServiceIp = '10.0.0.1';

export interface KubeApiserverOptions {
  binary: string;
  clusterName: string;
  clusterDir: string;
  pki: ClusterPki;
  etcdUrl: string;
  securePort: number;
  /** Extra flags, appended last (a later flag wins). */
  extraArgs?: string[];
  startTimeoutMs?: number;
  /** Called as soon as the process exists, before it is ready, so that it can be stopped if waiting fails. */
  onStart?: (record: ProcessRecord) => void;
}

export interface RunningKubeApiserver {
  record: ProcessRecord;
  /** https://127.0.0.1:PORT */
  server: string;
}

export function kubeApiserverArgs(options: KubeApiserverOptions): string[] {
  const { pki } = options;
  return [
    `--etcd-servers=${options.etcdUrl}`,
    // Each cluster has its own etcd, but a prefix named for the cluster makes a mix-up visible.
    `--etcd-prefix=/registry/${options.clusterName}`,
    `--bind-address=${loopback}`,
    `--advertise-address=${loopback}`,
    `--secure-port=${options.securePort}`,
    `--cert-dir=${join(options.clusterDir, 'kube-apiserver-certs')}`,
    `--tls-cert-file=${pki.apiserverCert}`,
    `--tls-private-key-file=${pki.apiserverKey}`,
    `--client-ca-file=${pki.caCert}`,
    '--anonymous-auth=false',
    '--authorization-mode=Node,RBAC',
    `--service-account-issuer=https://kubernetes.default.svc.cluster.local`,
    `--service-account-key-file=${pki.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${serviceClusterIpRange}`,
    // Endpoints may not hold a loopback address, so the `kubernetes` Service gets none
    // (nothing runs inside these clusters to use it).
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    '--profiling=false',
    '--enable-priority-and-fairness=false',
    '--enable-garbage-collector=true',
    '--event-ttl=10m',
    '--max-requests-inflight=200',
    '--max-mutating-requests-inflight=100',
    '--shutdown-delay-duration=0s',
    '--v=1',
    ...(options.extraArgs ?? []),
  ];
}

export async function startKubeApiserver(
  options: KubeApiserverOptions,
  admin: KubeClient,
): Promise<RunningKubeApiserver> {
  const record = startProcess({
    component: 'kube-apiserver',
    binary: options.binary,
    marker: options.pki.dir,
    logPath: join(options.clusterDir, 'kube-apiserver.log'),
    args: kubeApiserverArgs(options),
  });
  options.onStart?.(record);
  await waitForComponent(
    record,
    async () => {
      const response = await admin.request('GET', '/readyz', { timeoutMs: 5_000 });
      return response.status === 200;
    },
    {
      description: `kube-apiserver of ${options.clusterName} to answer /readyz`,
      timeoutMs: options.startTimeoutMs ?? 180_000,
      intervalMs: 300,
    },
  );
  return { record, server: `https://${loopback}:${options.securePort}` };
}
