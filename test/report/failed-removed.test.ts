// Reports of a failed object (the API server refused its dry-run; the others are still
// shown) and of an instance removed from the bundle, in the PR comment, the rollout
// comment and the job summary.
import { describe, expect, it } from 'vitest';
import type { ChangeSet, InstanceChanges, ObjectChange } from '../../src/changeset.js';
import { failedObjects } from '../../src/fleet/plan.js';
import { renderJobSummary } from '../../src/report/job-summary.js';
import { renderPullRequestComment } from '../../src/report/pull-request-comment.js';
import { renderRolloutComment } from '../../src/report/rollout-comment.js';
import { changeSet, cluster, deploymentConfigured, instance, objectChange, podinfoInstance, REDIS_MODULE } from './fixtures.js';

const context = { commitSha: '0123456789abcdef0123456789abcdef01234567', repository: 'acme/fleet', runUrl: 'https://github.com/acme/fleet/actions/runs/42', secrets: [] };

const serviceError =
  'cluster staging-eu-1: Service/apps/podinfo: PATCH /api/v1/namespaces/apps/services/podinfo failed: Service "podinfo" is invalid: spec.ports[1].name: Duplicate value: "http" (Invalid)';

function failedService(): ObjectChange {
  return objectChange({
    kind: 'Service',
    name: 'podinfo',
    action: 'failed',
    error: serviceError,
    diff: '--- live\n+++ desired\n@@ -9,3 +9,3 @@\n   ports:\n-    - port: 8080\n+    - port: 9898\n',
  });
}

/** The shape: a Service changed out of band fails, the Deployment still configured, a ServiceAccount gone from the build. */
function podinfoWithFailure(): InstanceChanges {
  return instance('podinfo', [
    objectChange({ kind: 'ServiceAccount', name: 'podinfo', action: 'deleted', diff: '--- live\n+++ desired\n@@ -1,4 +0,0 @@\n-apiVersion: v1\n-kind: ServiceAccount\n' }),
    failedService(),
    deploymentConfigured('podinfo', [1, 2], ['6.5.3', '6.5.4']),
  ]);
}

function removedRedis(action: 'deleted' | 'skipped' = 'deleted'): InstanceChanges {
  return {
    ...instance('redis', [
      objectChange({ kind: 'ConfigMap', name: 'redis', action: 'deleted', diff: '--- live\n+++ desired\n@@ -1,3 +0,0 @@\n-apiVersion: v1\n-kind: ConfigMap\n' }),
      objectChange({ kind: 'Service', name: 'redis', action, diff: action === 'deleted' ? '--- live\n+++ desired\n@@ -1,3 +0,0 @@\n-apiVersion: v1\n-kind: Service\n' : '' }),
      objectChange({ kind: 'StatefulSet', apiVersion: 'apps/v1', name: 'redis', action: 'deleted', diff: '--- live\n+++ desired\n@@ -1,3 +0,0 @@\n-apiVersion: apps/v1\n-kind: StatefulSet\n' }),
    ], REDIS_MODULE),
    removed: true,
  };
}

function planWithFailure(): ChangeSet {
  const instances = [podinfoWithFailure()];
  return changeSet([
    cluster('staging-eu-1', 'staging', instances, { status: 'failed', error: failedObjects('staging-eu-1', instances) }),
    cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), removedRedis()]),
  ]);
}

describe('a failed object among others', () => {
  it('the cluster error names each failed object with the server answer, the first as the object', () => {
    const error = failedObjects('staging-eu-1', [podinfoWithFailure()]);
    expect(error).toEqual({
      step: 'diff',
      instance: 'podinfo',
      object: 'Service/apps/podinfo',
      message:
        'cluster staging-eu-1: the API server refused one object in the dry-run (the other objects are diffed): instance podinfo: Service/apps/podinfo: PATCH /api/v1/namespaces/apps/services/podinfo failed: Service "podinfo" is invalid: spec.ports[1].name: Duplicate value: "http" (Invalid)',
    });
    expect(failedObjects('staging-eu-1', [podinfoInstance([1, 2])])).toBeNull();
    const two = failedObjects('c', [instance('a', [failedService()]), instance('b', [objectChange({ kind: 'Job', name: 'j', action: 'failed', error: 'cluster c: Job/apps/j: immutable' })])]);
    expect(two?.message).toBe(`cluster c: the API server refused 2 objects in the dry-run (the other objects are diffed): instance a: ${serviceError}; instance b: Job/apps/j: immutable`);
  });

  it('the PR comment shows the failed object with its error and field changes, and every other object', () => {
    const body = renderPullRequestComment(planWithFailure(), context);
    expect(body).toContain('Changes on **2 of 2** clusters, **1 failed**');
    // The staging section: counts with the failure, the error block, each object.
    expect(body).toContain('<summary><b>staging-eu-1</b> · staging · ❌ failed at <code>diff</code> · 1 configured, 1 deleted, 1 failed</summary>');
    const staging = body.slice(body.indexOf('<b>staging-eu-1</b>'), body.indexOf('<b>production-eu-1</b>'));
    expect(staging).toContain('- <code>Service/apps/podinfo</code> ❌ failed\n\n```text\n' + serviceError + '\n```\n');
    expect(staging).toContain('<summary>field changes</summary>\n\n```diff\n--- live\n+++ desired\n@@ -9,3 +9,3 @@\n   ports:\n-    - port: 8080\n+    - port: 9898\n```');
    expect(staging).toContain('<summary><code>ServiceAccount/apps/podinfo</code> deleted</summary>');
    expect(staging).toContain('<summary><code>Deployment/apps/podinfo</code> configured</summary>');
    // Apply order kept: deleted (as built here), failed, configured.
    expect(staging.indexOf('ServiceAccount/apps/podinfo')).toBeLessThan(staging.indexOf('Service/apps/podinfo</code> ❌'));
    expect(staging.indexOf('Service/apps/podinfo</code> ❌')).toBeLessThan(staging.indexOf('Deployment/apps/podinfo'));
  });

  it('when diffs do not fit, the failed object keeps its error: in a block, or on its line at the objects-only detail', () => {
    const hidden = renderPullRequestComment(planWithFailure(), { ...context, maxSize: 3_200 });
    expect(hidden).toContain(`- <code>Service/apps/podinfo</code> ❌ failed · ✂️ diff not shown (6 lines)\n\n\`\`\`text\n${serviceError}\n\`\`\`\n`);
    // The largest size at which only object lists fit.
    let objectsOnly = '';
    for (let size = 3_200; size > 1_500 && !objectsOnly; size -= 20) {
      const body = renderPullRequestComment(planWithFailure(), { ...context, maxSize: size });
      if (body.includes('diffs left out')) objectsOnly = body;
    }
    expect(objectsOnly).not.toContain('```diff');
    expect(objectsOnly).toContain('- <code>Service/apps/podinfo</code> ❌ failed: cluster staging-eu-1&#58; Service/apps/podinfo&#58; PATCH /api/v1/namespaces/apps/services/podinfo failed&#58; Service &#34;podinfo&#34; is invalid');
    expect(objectsOnly).toContain('- <code>ServiceAccount/apps/podinfo</code> deleted\n');
  });

  it('the job summary lists failed objects with their errors, and the action in the table', () => {
    const summary = renderJobSummary(planWithFailure(), context);
    expect(summary).toContain('| <code>podinfo</code> | <code>Service/apps/podinfo</code> | <code>v1</code> | ❌ failed |');
    expect(summary).toContain(`**Failed objects**\n\n- <code>podinfo</code> <code>Service/apps/podinfo</code>\n\n\`\`\`text\n${serviceError}\n\`\`\`\n`);
    expect(summary).toContain('| <code>podinfo</code> | <code>ServiceAccount/apps/podinfo</code> | <code>v1</code> | deleted |');
  });
});

describe('an instance removed from the bundle', () => {
  it('the PR comment says how many objects would be deleted, and lists them', () => {
    const body = renderPullRequestComment(planWithFailure(), context);
    const production = body.slice(body.indexOf('<b>production-eu-1</b>'));
    expect(production).toContain(
      '**Instance <code>redis</code>** in <code>apps</code> · module <code>oci&#58;//ghcr.io/stefanprodan/modules/redis</code> <code>7.2.3</code> <code>sha256&#58;0f9e8d7c6b5a</code> · 🗑️ instance removed from the bundle: 3 objects would be deleted\n',
    );
    expect(production).toContain('<summary><code>StatefulSet/apps/redis</code> deleted</summary>');
    // Its deletions count in the cluster's figures.
    expect(production).toContain('· 1 created, 1 configured, 3 deleted</summary>');
  });

  it('counts only objects that go: one kept by its labels is not counted', () => {
    const set = changeSet([cluster('production-eu-1', 'production', [removedRedis('skipped')])]);
    expect(renderPullRequestComment(set, context)).toContain('instance removed from the bundle: 2 objects would be deleted');
  });

  it('after an apply the comment and the summary say the objects were deleted', () => {
    const applied = changeSet([cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), removedRedis()], { status: 'applied' })], 'apply');
    expect(renderRolloutComment(applied, context)).toContain('🗑️ instance removed from the bundle: 3 objects deleted\n');
    const summary = renderJobSummary(applied, context);
    expect(summary).toContain('| <code>redis</code> 🗑️ instance removed from the bundle: 3 objects deleted | <code>apps</code> |');
    expect(summary).not.toContain('would be deleted');
  });
});
