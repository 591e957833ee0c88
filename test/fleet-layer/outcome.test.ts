// A cluster's entry of the ChangeSet: the error keeps the step, instance and object that a
// ClusterStepError carries, any other error falls back to the step of the work; a cluster
// not reached is `skipped` without a duration. (Timoni-style log lines, also in
// src/fleet/outcome.ts, are tested in test/report/change-line.test.ts.)
import { describe, expect, it } from 'vitest';
import { clusterEntry, clusterError, ClusterStepError, skippedEntry } from '../../src/fleet/outcome.js';

const cluster = { name: 'staging-1', group: 'staging', kubeContext: 'kind-staging' };

describe('clusterError', () => {
  it('keeps the step, instance and object of a ClusterStepError, and its cause', () => {
    const cause = new Error('Deployment/apps/web status: InProgress');
    const error = new ClusterStepError('wait', cause, 'web', 'Deployment/apps/web');
    expect(error.cause).toBe(cause);
    expect(clusterError(error, 'apply')).toEqual({ step: 'wait', message: 'Deployment/apps/web status: InProgress', instance: 'web', object: 'Deployment/apps/web' });
  });

  it('leaves out an instance and object that the error does not name', () => {
    expect(clusterError(new ClusterStepError('evaluate', 'values: conflicting values'), 'diff')).toEqual({ step: 'evaluate', message: 'values: conflicting values' });
  });

  it('gives any other error the fallback step', () => {
    expect(clusterError(new Error('connection refused'), 'connect')).toEqual({ step: 'connect', message: 'connection refused' });
    expect(clusterError('plain text', 'diff')).toEqual({ step: 'diff', message: 'plain text' });
  });
});

describe('cluster entries', () => {
  it('names the cluster and measures its duration from its start', () => {
    const entry = clusterEntry(cluster, 'failed', [], { step: 'connect', message: 'down' }, Date.now() - 1_000);
    expect(entry).toMatchObject({ name: 'staging-1', group: 'staging', kubeContext: 'kind-staging', status: 'failed', error: { step: 'connect', message: 'down' }, instances: [] });
    expect(entry.durationMs).toBeGreaterThanOrEqual(1_000);
  });

  it('a cluster not reached is skipped, without error or duration', () => {
    expect(skippedEntry(cluster)).toEqual({ name: 'staging-1', group: 'staging', kubeContext: 'kind-staging', status: 'skipped', error: null, instances: [] });
  });
});
