// Clear errors: a port already taken, a binary missing, a component that fails to start
// (its last log lines are in the error); and a cluster whose port was taken starts again
// on other ports.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBinaries } from './binaries.js';
import { startEtcd } from './etcd.js';
import { assertPortFree, freePorts, loopback } from './ports.js';
import { startClusterRetryingPorts } from './fleet.js';
import { isRunning, startProcess, stopProcessesSync, type ProcessRecord } from './processes.js';
import type { ClusterState } from './state.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: loopback, port }, () => resolve(server));
    cleanups.push(() => server.close());
  });
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-errors-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('fleet errors', () => {
  it('says which port is taken', async () => {
    const [port] = (await freePorts(1)) as [number];
    await assertPortFree(port, 'a test');
    await holdPort(port);
    await expect(assertPortFree(port, 'the etcd of fleet-9')).rejects.toThrow(
      `port ${loopback}:${port} for the etcd of fleet-9 is already in use by another process`,
    );
  });

  it('says which binary is missing and how to build it', () => {
    const dir = tempDir();
    expect(() =>
      startProcess({
        component: 'etcd',
        binary: join(dir, 'no-such-etcd'),
        args: [],
        logPath: join(dir, 'etcd.log'),
        marker: dir,
      }),
    ).toThrow(
      `cannot start etcd: binary ${join(dir, 'no-such-etcd')} is missing (run \`npx tsx test/harness/fleet/build.ts\`)`,
    );
  });

  it('reports a component that exits at start with the end of its log', { timeout: 120_000 }, async () => {
    const binaries = await ensureBinaries(() => undefined);
    const dir = tempDir();
    const [clientPort, peerPort] = (await freePorts(2)) as [number, number];
    await holdPort(clientPort);
    let started: ProcessRecord | undefined;
    const error = await startEtcd({
      binary: binaries.etcd,
      clusterName: 'broken',
      clusterDir: dir,
      clientPort,
      peerPort,
      onStart: (record) => (started = record),
    }).then(
      () => null,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toMatch(/^etcd \(pid \d+\) exited while waiting for etcd of broken to answer/);
    expect(error?.message).toContain('a port it was given is in use by another process');
    expect(error?.message).toContain(`last lines of ${join(dir, 'etcd.log')}:`);
    expect(error?.message).toContain(`${clientPort}`);
    expect(started && isRunning(started)).toBe(false);
  });
});

describe('fleet start', () => {
  it('starts a cluster again on other ports when one of its ports is taken', { timeout: 240_000 }, async () => {
    const binaries = await ensureBinaries(() => undefined);
    const dir = join(tempDir(), 'port-1');
    const [etcdClient, etcdPeer, apiserver] = (await freePorts(3)) as [number, number, number];
    await holdPort(apiserver);
    const lines: string[] = [];
    let latest: ClusterState | undefined;
    const cluster = await startClusterRetryingPorts(
      {
        binaries,
        name: 'port-1',
        dir,
        ports: { etcdClient, etcdPeer, apiserver },
        onChange: (state) => (latest = state),
        log: (line) => lines.push(line),
      },
      () => latest,
    );
    cleanups.push(() => stopProcessesSync(cluster.processes.slice().reverse()));
    expect(lines).toContain('port-1: a port was taken by another process meanwhile; starting again on other ports');
    expect(cluster.ports.apiserver).not.toBe(apiserver);
    expect(cluster.version).toBe('v1.36.3');
    expect(cluster.processes.map((record) => [record.component, isRunning(record)])).toEqual([
      ['etcd', true],
      ['kube-apiserver', true],
      ['kube-controller-manager', true],
    ]);
  });
});
