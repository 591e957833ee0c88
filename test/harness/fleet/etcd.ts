// One etcd member per cluster, on plain HTTP bound to 127.0.0.1, tuned for a small test
// cluster: a low backend quota, no fsync (the data is thrown away), frequent compaction.
import { request } from 'node:http';
import { join } from 'node:path';
import { loopback } from './ports.js';
import { startProcess, type ProcessRecord } from './processes.js';
import { waitForComponent } from './wait-for-component.js';

export interface EtcdOptions {
  binary: string;
  clusterName: string;
  /** The cluster's folder; etcd's data goes to `etcd/` inside, its log to `etcd.log`. */
  clusterDir: string;
  clientPort: number;
  peerPort: number;
  /** Backend quota in bytes; 256 MiB unless given. */
  quotaBackendBytes?: number;
  startTimeoutMs?: number;
  /** Called as soon as the process exists, before it is ready, so that it can be stopped if waiting fails. */
  onStart?: (record: ProcessRecord) => void;
}

export interface RunningEtcd {
  record: ProcessRecord;
  /** http://127.0.0.1:PORT */
  clientUrl: string;
}

function healthy(clientUrl: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(`${clientUrl}/health`, { timeout: 2_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(res.statusCode === 200 && /"health":\s*"true"/.test(body)));
    });
    req.on('timeout', () => req.destroy(new Error('etcd /health did not answer within 2 s')));
    req.on('error', reject);
    req.end();
  });
}

export async function startEtcd(options: EtcdOptions): Promise<RunningEtcd> {
  const clientUrl = `http://${loopback}:${options.clientPort}`;
  const peerUrl = `http://${loopback}:${options.peerPort}`;
  const dataDir = join(options.clusterDir, 'etcd');
  const record = startProcess({
    component: 'etcd',
    binary: options.binary,
    marker: dataDir,
    logPath: join(options.clusterDir, 'etcd.log'),
    args: [
      `--name=${options.clusterName}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${options.clusterName}=${peerUrl}`,
      '--initial-cluster-state=new',
      `--quota-backend-bytes=${options.quotaBackendBytes ?? 256 * 1024 * 1024}`,
      '--unsafe-no-fsync',
      '--snapshot-count=10000',
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=5m',
      '--log-level=warn',
    ],
  });
  options.onStart?.(record);
  await waitForComponent(record, () => healthy(clientUrl), {
    description: `etcd of ${options.clusterName} to answer ${clientUrl}/health`,
    timeoutMs: options.startTimeoutMs ?? 60_000,
  });
  return { record, clientUrl };
}
