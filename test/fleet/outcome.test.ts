// A cluster's entry of the ChangeSet: the error keeps the step, instance and object that a
// ClusterStepError carries, any other error falls back to the step of the work; a cluster
// not reached is `skipped` without a duration; and the Timoni-style log lines that the
// action log and the CLI print.
import { describe, expect, it } from 'vitest';
import {
  changeLine,
  clusterEntry,
  clusterError,
  ClusterStepError,
  logPrefix,
  skippedEntry,
} from '../../src/fleet/outcome.js';
import { objectChange } from '../report/fixtures.js';

const cluster = { name: 'staging-1', group: 'staging', kubeContext: 'kind-staging' };

describe('clusterError', () => {
  it('keeps the step, instance and object of a ClusterStepError, and its cause', () => {
    const cause = new Error('Deployment/apps/web status: InProgress');
    const error = new ClusterStepError('wait', cause, 'web', 'Deployment/apps/web');
    expect(error.cause).toBe(cause);
    expect(clusterError(error, 'apply')).toEqual({
      step: 'wait',
      message: 'Deployment/apps/web status: InProgress',
      instance: 'web',
      object: 'Deployment/apps/web',
    });
  });

  it('leaves out an instance and object that the error does not name', () => {
    expect(clusterError(new ClusterStepError('evaluate', 'values: conflicting values'), 'diff')).toEqual({
      step: 'evaluate',
      message: 'values: conflicting values',
    });
  });

  it('gives any other error the fallback step', () => {
    expect(clusterError(new Error('connection refused'), 'connect')).toEqual({
      step: 'connect',
      message: 'connection refused',
    });
    expect(clusterError('plain text', 'diff')).toEqual({ step: 'diff', message: 'plain text' });
  });
});

describe('cluster entries', () => {
  it('names the cluster and measures its duration from its start', () => {
    const entry = clusterEntry(cluster, 'failed', [], { step: 'connect', message: 'down' }, Date.now() - 1_000);
    expect(entry).toMatchObject({
      name: 'staging-1',
      group: 'staging',
      kubeContext: 'kind-staging',
      status: 'failed',
      error: { step: 'connect', message: 'down' },
      instances: [],
    });
    expect(entry.durationMs).toBeGreaterThanOrEqual(1_000);
  });

  it('a cluster not reached is skipped, without error or duration', () => {
    expect(skippedEntry(cluster)).toEqual({
      name: 'staging-1',
      group: 'staging',
      kubeContext: 'kind-staging',
      status: 'skipped',
      error: null,
      instances: [],
    });
  });
});

describe('changeLine', () => {
  it('writes Timoni-style lines for namespaced objects', () => {
    const change = objectChange({ kind: 'Deployment', apiVersion: 'apps/v1', name: 'podinfo', action: 'configured' });
    expect(changeLine('apps', 'staging-eu-1', 'podinfo', change)).toBe(
      'b:apps > c:staging-eu-1 > i:podinfo > Deployment/apps/podinfo configured',
    );
  });

  it('leaves out the namespace of cluster-scoped objects', () => {
    const change = objectChange({ kind: 'Namespace', name: 'apps', namespace: '', action: 'created' });
    expect(changeLine('apps', 'c', 'i', change)).toBe('b:apps > c:c > i:i > Namespace/apps created');
  });

  it('leaves out the default cluster, as Timoni does without a runtime', () => {
    expect(logPrefix('apps', '_default', 'podinfo')).toBe('b:apps > i:podinfo');
    expect(logPrefix('apps')).toBe('b:apps');
  });
});
