// The state of the fleet on real clusters (issue 14, part 4), through `timoni-fleet status
// -o json|text`: one bundle whose instances are, on the third cluster of the fleet, deployed
// (applied and ready), stale (a ConfigMap edited out of band; a stored module version older
// than the bundle's), failed (a Deployment never ready) and not installed (added to the
// bundle, never applied); and unknown on a cluster whose context points at a closed port.
// Plain `status` still prints Timoni's lines for the same bundle.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, inject, it } from 'vitest';
import { moduleDiffers, type FleetState } from '../../src/fleet/instance-state.js';
import { runCliCaptured } from '../cli/run-cli.js';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { markReady } from '../harness/fleet/readiness.js';
import { clusterClient, scratchDir, testNamespace } from '../harness/fleet/test-context.js';
import { fixtures } from './fleet-layer-cli.js';

const cluster = 'fleet-3';

/** The fleet's kubeconfig with one more context, `unreachable`, pointing at a port nothing listens on. */
function kubeconfigWithUnreachable(): string {
  const config = parse(readFileSync(inject('fleet').kubeconfigPath, 'utf8')) as {
    clusters: Array<Record<string, unknown>>;
    contexts: Array<{ name: string; context: Record<string, string> }>;
  };
  const user = config.contexts[0]?.context.user ?? '';
  config.clusters.push({
    name: 'unreachable',
    cluster: { server: 'https://127.0.0.1:9', 'insecure-skip-tls-verify': true },
  });
  config.contexts.push({ name: 'unreachable', context: { cluster: 'unreachable', user } });
  const path = join(scratchDir('fleet-state'), 'kubeconfig');
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}

/** The stored instance's module version rewritten, as an apply of an older module would have left it. */
async function storeModuleVersion(namespace: string, instance: string, version: string): Promise<void> {
  const client = clusterClient(cluster);
  const secret = await client.get<KubeObject & { data: Record<string, string> }>({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace,
    name: `timoni.${instance}`,
  });
  const record = JSON.parse(Buffer.from(secret.data.instance ?? '', 'base64').toString('utf8')) as {
    module: { version: string };
  };
  record.module.version = version;
  await client.requestJson('PATCH', `/api/v1/namespaces/${namespace}/secrets/timoni.${instance}`, {
    contentType: 'application/merge-patch+json',
    body: JSON.stringify({ data: { instance: Buffer.from(JSON.stringify(record)).toString('base64') } }),
  });
}

describe('status -o json|text: the state of every cluster x instance', () => {
  it('shows deployed, stale (drifted and older module), failed, not installed and unknown', async () => {
    const ns = (await testNamespace(cluster, 'state')).name;
    const kubeconfig = kubeconfigWithUnreachable();
    const cli = (...args: string[]) =>
      runCliCaptured([...args, '-r', 'runtime-state.cue', '--kubeconfig', kubeconfig, '--runtime-from-env'], {
        cwd: fixtures,
        env: { FLEET_STATE_NS: ns },
      });

    const applied = await cli('apply', '-f', 'state-bundle.cue', '--runtime-cluster', 'third', '--wait=false');
    expect(applied.code, applied.stderr).toBe(0);
    const client = clusterClient(cluster);
    for (const name of ['ok', 'drifted', 'old'])
      await markReady(client, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
    // `kubectl edit configmap drifted`: the message changed out of band.
    await client.requestJson('PATCH', `/api/v1/namespaces/${ns}/configmaps/drifted`, {
      query: { fieldManager: 'kubectl-edit' },
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ data: { message: 'edited by hand' } }),
    });
    await storeModuleVersion(ns, 'old', '0.0.0-old');

    const result = await cli('status', '-f', 'state-bundle.cue', '-f', 'state-added.cue', '-o', 'json');
    // 2, not 1: cluster gone's states are unknown (not read), a failure rather than "not deployed".
    expect(result.code, result.stderr).toBe(2);
    const state = JSON.parse(result.stdout) as FleetState;
    expect(state.format).toBe(1);
    expect(state.bundle).toBe('fleet-state');
    const byRow = Object.fromEntries(state.instances.map((row) => [`${row.cluster}/${row.instance}`, row]));
    // Clusters in runtime order, instances in the bundle's CUE field order (the added file's first).
    expect(state.instances.map((row) => [row.cluster, row.instance, row.state])).toEqual([
      ['third', 'missing', 'not installed'],
      ['third', 'ok', 'deployed'],
      ['third', 'drifted', 'stale'],
      ['third', 'old', 'stale'],
      ['third', 'broken', 'failed'],
      ['gone', 'missing', 'unknown'],
      ['gone', 'ok', 'unknown'],
      ['gone', 'drifted', 'unknown'],
      ['gone', 'old', 'unknown'],
      ['gone', 'broken', 'unknown'],
    ]);
    expect(state.counts).toEqual({ deployed: 1, stale: 2, 'not installed': 1, failed: 1, unknown: 5, orphaned: 0 });

    const ok = byRow['third/ok']!;
    expect(ok).toMatchObject({
      group: 'staging',
      namespace: ns,
      reason: '',
      module: { version: '0.0.0-devel' },
      desired: { version: '0.0.0-devel' },
    });
    expect(ok.readiness?.ready).toBe(ok.readiness?.total);
    expect(ok.readiness?.total).toBeGreaterThan(1);
    expect(Date.parse(ok.lastApplied ?? '')).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(byRow['third/drifted']!.reason).toBe(`drifted: ConfigMap/${ns}/drifted configured`);
    expect(byRow['third/old']!.reason).toBe('module 0.0.0-old applied, the bundle asks for 0.0.0-devel');
    expect(byRow['third/old']!.module?.version).toBe('0.0.0-old');
    const broken = byRow['third/broken']!;
    expect(broken.reason).toMatch(new RegExp(`^not ready: Deployment/${ns}/broken InProgress`));
    expect(broken.readiness?.notReady).toHaveLength(1);
    expect(byRow['third/missing']).toMatchObject({
      module: null,
      lastApplied: null,
      readiness: null,
      desired: { version: '0.0.0-devel' },
      reason: `no instance missing in namespace ${ns}`,
    });
    expect(byRow['gone/ok']!.reason).toMatch(/^cannot reach the API server at /);
    expect(byRow['gone/ok']).toMatchObject({ group: 'production', namespace: ns, module: null, readiness: null });

    // The same as a table, and the counts on stderr.
    const text = await cli('status', '-f', 'state-bundle.cue', '-f', 'state-added.cue', '-o', 'text');
    expect(text.code, text.stderr).toBe(2);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^CLUSTER +GROUP +INSTANCE +NAMESPACE +STATE +MODULE +DIGEST +LAST APPLIED +READY +REASON$/,
    );
    expect(lines).toHaveLength(11);
    expect(lines[2]).toMatch(
      new RegExp(`^third +staging +ok +${ns} +deployed +0\\.0\\.0-devel +\\S+ +\\S+ +(\\d+)/\\1 +-$`),
    );
    expect(lines[1]).toMatch(/^third +staging +missing +\S+ +not installed +0\.0\.0-devel +/);
    expect(text.stderr).toContain('1 deployed, 2 stale, 1 not installed, 1 failed, 5 unknown');

    // Without -o: Timoni's bundle status lines, as before.
    const timoni = await cli('status', '-f', 'state-bundle.cue', '--runtime-cluster', 'third');
    expect(timoni.stdout).toContain(
      'b:fleet-state > c:third > i:ok > module ../../../examples/modules/webapp:0.0.0-devel',
    );
    expect(timoni.stdout).toMatch(
      new RegExp(`b:fleet-state > c:third > i:broken > Deployment/${ns}/broken InProgress`),
    );

    // Once the drift is applied away, the old module replaced and the Deployments ready, only the missing instance is left.
    const reapplied = await cli('apply', '-f', 'state-bundle.cue', '--runtime-cluster', 'third', '--wait=false');
    expect(reapplied.code, reapplied.stderr).toBe(0);
    for (const name of ['ok', 'drifted', 'old', 'broken'])
      await markReady(client, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
    const after = await cli('status', '-f', 'state-bundle.cue', '--runtime-cluster', 'third', '-o', 'json');
    expect(after.code, after.stderr).toBe(0);
    expect((JSON.parse(after.stdout) as FleetState).instances.map((row) => row.state)).toEqual([
      'deployed',
      'deployed',
      'deployed',
      'deployed',
    ]);
  });
});

describe('moduleDiffers', () => {
  const module = { url: 'oci://example.com/podinfo', version: '6.5.4', digest: 'sha256:aaa' };
  it('compares versions, and digests when both are known', () => {
    expect(moduleDiffers(module, module)).toBe(false);
    expect(moduleDiffers(module, { ...module, version: '6.5.5' })).toBe(true);
    expect(moduleDiffers(module, { ...module, digest: 'sha256:bbb' })).toBe(true);
    expect(moduleDiffers({ ...module, digest: 'unknown' }, { ...module, digest: 'sha256:bbb' })).toBe(false);
  });
});
