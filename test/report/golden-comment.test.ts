// Renders a realistic 3-cluster PR comment and rollout comment to test/report/__output__/
// (not committed) so that a human can look at them, and checks their structure.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { findMarker } from '../../src/report/marker.js';
import { renderJobSummary } from '../../src/report/job-summary.js';
import { renderPullRequestComment } from '../../src/report/pull-request-comment.js';
import { renderRolloutComment } from '../../src/report/rollout-comment.js';
import { changeSet, cluster, created, deploymentConfigured, instance, objectChange, podinfoInstance, REDIS_MODULE, unchanged, withAction } from './fixtures.js';

const outputDirectory = join(dirname(fileURLToPath(import.meta.url)), '__output__');

function write(name: string, text: string): void {
  mkdirSync(outputDirectory, { recursive: true });
  writeFileSync(join(outputDirectory, name), text);
}

const context = {
  commitSha: '3f2a9c1e0b7d4a5f8e6c2b1a0d9f8e7c6b5a4f3e',
  repository: 'acme/fleet-config',
  pullRequest: 128,
  runUrl: 'https://github.com/acme/fleet-config/actions/runs/9876543210',
  secrets: ['redis-password-4b1d'],
};

function pullRequestFleet(): ChangeSet {
  const redisSecret = objectChange({
    kind: 'Secret',
    name: 'redis',
    action: 'configured',
    diff: '--- live\n+++ desired\n@@ -3,3 +3,3 @@\n data:\n-  password: *** (before)\n+  password: *** (after)\n',
  });
  const redis = (changes = [unchanged('StatefulSet', 'redis', 'apps/v1'), redisSecret]) => instance('redis', changes, REDIS_MODULE);
  return changeSet([
    cluster('staging-eu-1', 'staging', [
      podinfoInstance([1, 2]),
      redis(),
      instance('ingress', [
        created('Namespace', 'ingress', []),
        objectChange({ kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', name: 'podinfo', action: 'recreated', diff: '--- live\n+++ desired\n@@ -5,1 +5,1 @@\n-  ingressClassName: nginx\n+  ingressClassName: `traefik` | <edge>\n' }),
      ]),
    ]),
    cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), redis()]),
    cluster('production-us-1', 'production', [instance('podinfo', [deploymentConfigured('podinfo', [3, 4], ['6.5.3', '6.5.4'])]), redis([unchanged('StatefulSet', 'redis', 'apps/v1')])], {
      status: 'failed',
      error: { step: 'diff', message: 'dry-run failed: admission webhook "validate.kyverno.svc" denied the request:\nresource Deployment/apps/podinfo was blocked' },
    }),
  ]);
}

function rolloutFleet(): ChangeSet {
  const plan = pullRequestFleet();
  const [staging, productionEu, productionUs] = plan.clusters;
  return changeSet(
    [
      { ...staging!, status: 'applied', durationMs: 41_200 },
      { ...productionEu!, status: 'failed', durationMs: 300_400, error: { step: 'wait', message: 'timeout waiting for Deployment/apps/podinfo: 2 of 4 replicas ready', instance: 'podinfo', object: 'Deployment/apps/podinfo' } },
      { ...productionUs!, status: 'skipped', error: null, instances: productionUs!.instances.map((item) => ({ ...item, changes: item.changes.map((change) => withAction(change, 'skipped')) })) },
    ],
    'apply',
  );
}

describe('golden PR comment (written to test/report/__output__/comment.md)', () => {
  const body = renderPullRequestComment(pullRequestFleet(), context);
  write('comment.md', body);

  it('starts with the marker, names the bundle and commit', () => {
    expect(findMarker(body)).toEqual({ bundle: 'apps' });
    const lines = body.split('\n');
    expect(lines[1]).toBe('### timoni-fleet diff · bundle <code>apps</code>');
    expect(lines[3]).toBe(
      'Changes on **3 of 3** clusters, **1 failed** for commit [<code>3f2a9c1</code>](https://github.com/acme/fleet-config/commit/3f2a9c1e0b7d4a5f8e6c2b1a0d9f8e7c6b5a4f3e) · [workflow run](https://github.com/acme/fleet-config/actions/runs/9876543210).',
    );
  });

  it('has, in order: secret notice, table, then one section per cluster', () => {
    const order = ['🔒 A secret value changed (hidden).', '| Cluster | Group |', '<summary><b>staging-eu-1</b>', '<summary><b>production-eu-1</b>', '<summary><b>production-us-1</b>'].map((text) =>
      body.indexOf(text),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
  });

  it('balances its HTML blocks and code fences', () => {
    expect(body.match(/<details( open)?>/g)?.length).toBe(body.match(/<\/details>/g)?.length);
    expect(body.match(/<summary>/g)?.length).toBe(body.match(/<\/summary>/g)?.length);
    const fences = body.split('\n').filter((line) => /^`{3,}/.test(line));
    expect(fences.length % 2).toBe(0);
  });

  it('shows each distinct diff once', () => {
    // staging podinfo Deployment, production Deployment (shared by eu and us), HPA (shared by
    // staging and eu), Redis Secret (shared by staging and eu), Namespace, Ingress
    expect(body.match(/```diff/g)).toHaveLength(6);
    expect(body).toContain('configured · also on <code>production-us-1</code>');
  });
});

describe('golden rollout comment and job summary (written beside it)', () => {
  const rollout = renderRolloutComment(rolloutFleet(), context);
  const summary = renderJobSummary(rolloutFleet(), { ...context, commentUrl: 'https://github.com/acme/fleet-config/pull/128#issuecomment-1' });
  write('rollout-comment.md', rollout);
  write('job-summary.md', summary);

  it('reports applied, failed and not reached clusters', () => {
    expect(rollout).toContain('❌ Rollout stopped at <code>production-eu-1</code> (failed at <code>wait</code>); applied to 1 of 3 clusters');
    expect(rollout).toContain('**Not reached** after <code>production-eu-1</code> failed: <code>production-us-1</code>.');
    expect(summary).toContain('### <code>staging-eu-1</code> · staging · ✅ applied · 41.2 s');
    expect(summary).toContain('### <code>production-eu-1</code> · production · ❌ failed at <code>wait</code> · 5 min 00 s');
    expect(summary).toContain('### <code>production-us-1</code> · production · ⏭️ not reached');
  });
});
