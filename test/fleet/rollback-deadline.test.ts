// A rollback on failure that cannot start because the run's deadline has passed
// (src/fleet/rollback.ts rollBackCluster): nothing is connected to or put back, the cluster's
// rollback is `rollback failed` with the reason, and the log says it once as a failure line.
import { describe, expect, it } from 'vitest';
import type { FleetRun } from '../../src/fleet/fleet-run.js';
import { RestorePoint, rollBackCluster } from '../../src/fleet/rollback.js';
import type { InstanceBuilds } from '../../src/module/build.js';

describe('rollback on failure past the run deadline', () => {
  it('puts nothing back and says why, without reaching the cluster', async () => {
    let reached = false;
    // Only what rollBackCluster reads before it would connect; the kubeconfig throws if it is used.
    const run = {
      options: { timeoutMs: 60_000 },
      deadlineAt: Date.now() - 1,
      get kubeconfig(): never {
        reached = true;
        throw new Error('the cluster was reached');
      },
    } as unknown as FleetRun;
    const point = new RestorePoint({ name: 'staging-1', group: 'staging', kubeContext: 'fleet-1' });
    point.bundle = 'shop';
    point.touched.push({
      snapshot: { name: 'frontend', namespace: 'shop', secret: null, stored: null },
      module: { url: 'oci://registry.example/webapp', version: '1.5.0', digest: 'sha256:1' },
    });
    const lines: string[] = [];
    const result = await rollBackCluster(run, point, {} as InstanceBuilds, (line) => lines.push(line));
    const message =
      "cluster staging-1: the run's deadline passed before the rollback could start; nothing was put back";
    expect(result.rollback).toEqual({ outcome: 'rollback failed', error: { message } });
    expect(result.instances.size).toBe(0);
    expect(lines.filter((line) => line.includes(message))).toEqual([`✗ ${message}`]);
    expect(reached).toBe(false);
  });
});
