// Stopping and starting one cluster's kube-apiserver (apiserver-outage.ts), on a fleet of
// one cluster started here, so that the outage reaches no other test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiserverRunning, startApiserver, stopApiserver } from './apiserver-outage.js';
import { fleetClient, fleetStatus, startFleet, stopFleet, type Fleet } from './fleet.js';
import type { KubeObject } from './kube-client.js';
import { isRunning } from './processes.js';
import { readState } from './state.js';
import { scratchDir } from './test-context.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet({ clusters: 1, dir: scratchDir('outage-fleet'), namePrefix: 'down' });
});

afterAll(async () => {
  await fleet?.stop();
});

describe('apiserver outage of one cluster', () => {
  it('stops the kube-apiserver only, then starts it again on the same address with the data kept', async () => {
    const client = fleetClient(fleet, 'down-1');
    await client.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'default' }, data: { a: '1' } },
      { fieldManager: 'test' },
    );
    const before = readState(fleet.dir)!.clusters[0]!.processes.find((p) => p.component === 'kube-apiserver')!;

    await stopApiserver(fleet.dir, 'down-1');
    expect(apiserverRunning(fleet.dir, 'down-1')).toBe(false);
    await expect(client.version()).rejects.toThrow(/ECONNREFUSED|connect|socket/i);
    const status = await fleetStatus(fleet.dir);
    expect(status?.clusters[0]?.ready).toBe(false);
    expect(status?.clusters[0]?.components.filter((c) => c.running).map((c) => c.component)).toEqual([
      'etcd',
      'kube-controller-manager',
    ]);
    await expect(startApiserver(fleet.dir, 'nope')).rejects.toThrow(/has no cluster nope \(it has down-1\)/);

    const record = await startApiserver(fleet.dir, 'down-1');
    expect(record.pid).not.toBe(before.pid);
    expect(apiserverRunning(fleet.dir, 'down-1')).toBe(true);
    expect(readState(fleet.dir)!.clusters[0]!.processes.map((p) => p.component)).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
    ]);
    expect(readState(fleet.dir)!.clusters[0]!.processes.find((p) => p.component === 'kube-apiserver')?.pid).toBe(
      record.pid,
    );
    const again = fleetClient(fleet, 'down-1');
    expect((await again.version()).gitVersion).toBe('v1.36.3');
    expect(
      (
        await again.get<KubeObject & { data: Record<string, string> }>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'default',
          name: 'kept',
        })
      ).data,
    ).toEqual({ a: '1' });
    client.close();
    again.close();
    await expect(startApiserver(fleet.dir, 'down-1')).rejects.toThrow(/still runs/);

    // The fleet's stop still finds the new process.
    await stopFleet(fleet.dir);
    expect(isRunning(record)).toBe(false);
  });
});
