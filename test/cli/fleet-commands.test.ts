// The fleet commands of the CLI against the local fleet: diff (exit codes as Timoni's
// --diff), apply, status and delete, and a cluster that is down.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../fleet/kube-client.js';
import { clusterClient, scratchDir } from '../fleet/test-context.js';
import { keepWorkloadsReady } from '../action/kubelet-stand-in.js';
import { runCliCaptured } from './run-cli.js';

const cwd = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fleet');
let kubeconfigPath: string;
let ready: { stop(): Promise<void> };

beforeAll(() => {
  const fleet = inject('fleet');
  const kubeconfig = readFileSync(fleet.kubeconfigPath, 'utf8');
  // One more context, pointing at a port nothing listens on: a cluster that is down.
  const config = parse(kubeconfig) as { clusters: Array<Record<string, unknown>>; contexts: Array<{ name: string; context: Record<string, string> }> };
  const firstUser = config.contexts[0]?.context.user ?? '';
  config.clusters.push({ name: 'unreachable', cluster: { server: 'https://127.0.0.1:9', 'insecure-skip-tls-verify': true } });
  config.contexts.push({ name: 'unreachable', context: { cluster: 'unreachable', user: firstUser } });
  kubeconfigPath = join(scratchDir('cli-fleet'), 'kubeconfig');
  writeFileSync(kubeconfigPath, stringify(config), { mode: 0o600 });
  ready = keepWorkloadsReady(kubeconfig, ['fleet-1', 'fleet-2'], 'cli-fleet');
});

afterAll(async () => {
  await ready?.stop().catch(() => undefined);
});

const cli = (command: string, ...extra: string[]) => runCliCaptured([command, '-f', 'bundle.cue', '-r', 'runtime.cue', '--kubeconfig', kubeconfigPath, ...extra], { cwd });

describe('timoni-fleet diff, apply, status, delete', () => {
  it('diff exits 1 on drift and prints the ChangeSet', async () => {
    const result = await cli('diff', '-o', 'json');
    expect(result.code, result.stderr).toBe(1);
    const changeSet = JSON.parse(result.stdout) as { mode: string; clusters: Array<{ name: string; status: string }> };
    expect(changeSet.mode).toBe('diff');
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([['one', 'changed'], ['two', 'changed']]);
  });

  it('apply rolls out both clusters, then diff exits 0', async () => {
    const apply = await cli('apply', '--timeout', '60s');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('b:cli-fleet > c:one > i:web > Deployment/cli-fleet/web created');
    // The module by its name, as Timoni logs it (not by URL).
    expect(apply.stderr).toContain('b:cli-fleet > c:one > i:web > applying module example.com/webapp version 0.0.0-devel');
    const configMap = await clusterClient(1).getOrNull<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'cli-fleet', name: 'web' });
    expect(configMap?.data.message).toBe('on two');
    const diff = await cli('diff');
    expect(diff.code, diff.stderr).toBe(0);
  });

  it('diff prints clusters in runtime order', async () => {
    const diff = await cli('diff');
    const one = diff.stderr.indexOf('── cluster one (staging)');
    const two = diff.stderr.indexOf('── cluster two (production)');
    expect(one, diff.stderr).toBeGreaterThanOrEqual(0);
    expect(two).toBeGreaterThan(one);
  });

  it('an ownership conflict is printed once', async () => {
    const result = await runCliCaptured(['apply', '-f', 'bundle-other.cue', '-r', 'runtime.cue', '--kubeconfig', kubeconfigPath, '--timeout', '60s'], { cwd });
    expect(result.code).toBe(1);
    const mentions = result.stderr.split('\n').filter((line) => line.includes('cli-fleet-other') && /owned|ownership|belongs/i.test(line));
    expect(mentions, result.stderr).toHaveLength(1);
    expect(result.stderr.match(/not reached: two/g)).toHaveLength(1);
  });

  it('status lists the instance with its module and objects', async () => {
    const result = await cli('status');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('b:cli-fleet > c:one > i:web > module ../../../../examples/modules/webapp:0.0.0-devel');
    expect(result.stdout).toMatch(/b:cli-fleet > c:two > i:web > Deployment\/cli-fleet\/web Current/);
  });

  it('delete removes the objects and the inventory', async () => {
    const result = await cli('delete', '--timeout', '60s');
    expect(result.code, result.stderr).toBe(0);
    // Timoni's prefixes, one cluster after the other.
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toContain('b:cli-fleet > c:one > deleting instance web in namespace cli-fleet');
    expect(lines.filter((line) => line === 'b:cli-fleet > c:one > ConfigMap/cli-fleet/web deleted')).toHaveLength(1);
    expect(lines).toContain('b:cli-fleet > c:two > all resources have been deleted');
    const lastOfOne = lines.findLastIndex((line) => line.startsWith('b:cli-fleet > c:one > '));
    const firstOfTwo = lines.findIndex((line) => line.startsWith('b:cli-fleet > c:two > '));
    expect(lastOfOne).toBeLessThan(firstOfTwo);
    expect(await clusterClient(0).getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'cli-fleet', name: 'web' })).toBeNull();
    expect(await clusterClient(0).getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace: 'cli-fleet', name: 'timoni.web' })).toBeNull();
  });

  it('status and delete of a bundle without instances say so as Timoni: status fails (exit 1), delete does not', async () => {
    const status = await cli('status');
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout.split('\n')).toEqual(expect.arrayContaining(['b:cli-fleet > c:one > ✗ no instances found in bundle', 'b:cli-fleet > c:two > ✗ no instances found in bundle']));
    const deleted = await cli('delete', '--timeout', '60s');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr.split('\n')).toEqual(expect.arrayContaining(['b:cli-fleet > c:one > no instances found in bundle', 'b:cli-fleet > c:two > no instances found in bundle']));
  });

  it('diff reports a cluster that is down as failed, diffs the others, and exits 2', async () => {
    const result = await runCliCaptured(['diff', '-f', 'bundle.cue', '-r', 'runtime-with-down-cluster.cue', '--kubeconfig', kubeconfigPath, '-o', 'json'], { cwd });
    expect(result.code).toBe(2);
    const changeSet = JSON.parse(result.stdout) as { clusters: Array<{ name: string; status: string; error: { step: string } | null }> };
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([['one', 'changed'], ['gone', 'failed']]);
    expect(changeSet.clusters[1]?.error?.step).toBe('connect');
  });
});
