// The commands against their fixtures: `build` with local modules (objects per cluster and
// instance, in apply order, as YAML with Timoni's comments or as JSON; byte for byte what
// the Timoni CLI v0.33.0 prints on the same bundle, fixtures/timoni-output/ captured by
// hand, with and without --mask-secrets); the text `diff` prints for a ChangeSet; and the
// fleet commands against the local fleet: diff (exit codes as Timoni's --diff), apply,
// status and delete, and a cluster that is down.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ClusterChanges } from '../../src/changeset.js';
import { clusterDiffText } from '../../src/cli/commands.js';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { clusterClient, scratchDir } from '../harness/fleet/test-context.js';
import { keepWorkloadsReady } from '../harness/demo/kubelet-stand-in.js';
import { runCliCaptured } from './run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface BuildDocument {
  clusters: Array<{
    name: string;
    instances: Array<{
      name: string;
      module: { version: string; digest: string; name: string };
      sets: Array<{
        name: string;
        objects: Array<{
          kind: string;
          metadata: { name: string };
          spec?: { replicas?: number };
          data?: Record<string, string>;
        }>;
      }>;
    }>;
  }>;
}

describe('build', () => {
  it('builds each instance for each cluster with its own values', async () => {
    const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue', '-o', 'json'], {
      cwd: fixtures,
    });
    expect(result.stderr).toBe('');
    const document = JSON.parse(result.stdout) as BuildDocument;
    expect(document.clusters.map((c) => c.name)).toEqual(['staging-1', 'production-1']);
    const [staging, production] = document.clusters;
    expect(staging?.instances.map((i) => i.name)).toEqual(['frontend', 'backend']);
    expect(staging?.instances[0]?.module).toEqual({
      url: 'file://../../../examples/modules/webapp',
      version: '0.0.0-devel',
      digest: 'unknown',
      name: 'example.com/webapp',
    });
    const deployment = (cluster: typeof staging) =>
      cluster?.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'Deployment');
    expect(deployment(staging)?.spec?.replicas).toBe(1);
    expect(deployment(production)?.spec?.replicas).toBe(3);
    const configMap = production?.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'ConfigMap');
    expect(configMap?.data?.message).toBe('served by production-1');
    expect(staging?.instances[1]?.sets.map((s) => [s.name, s.objects.length])).toEqual([
      ['app', 4],
      ['test', 0],
    ]);
  });

  it('prints YAML documents in apply order with cluster and instance comments', async () => {
    const result = await runCliCaptured(
      ['build', '-f', 'bundle.cue', '-r', 'runtime.cue', '--runtime-cluster', 'staging-1'],
      { cwd: fixtures },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('---\n# Cluster: staging-1\n# Instance: frontend\n---\n')).toBe(true);
    expect(result.stdout).toContain('\n---\n# Cluster: staging-1\n# Instance: backend\n---\n');
    const kinds = parseAllDocuments(result.stdout.split('# Instance: backend')[0] ?? '')
      .map((d) => d.toJS() as { kind?: string } | null)
      .filter((d): d is { kind: string } => Boolean(d?.kind))
      .map((d) => d.kind);
    expect(kinds).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'Deployment', 'Job']);
  });

  it('names the instance, the module and the field when values break the module', async () => {
    const result = await runCliCaptured(['build', '-f', 'bundle-bad-values.cue'], { cwd: fixtures });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('instance frontend (module file://../../../examples/modules/webapp)');
    expect(result.stderr).toContain('replicas');
  });
});

const timoniOutput = (name: string) => readFileSync(join(fixtures, 'timoni-output', name), 'utf8');

describe('build prints what Timoni v0.33.0 prints', () => {
  it('as timoni bundle build', async () => {
    const result = await runCliCaptured(['build', '-f', 'fidelity-bundle.cue'], { cwd: fixtures });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(timoniOutput('fidelity-build.yaml'));
    // The YAML 1.1 words are quoted, so that kubectl reads strings back.
    expect(result.stdout).toContain('  enabled: "yes"\n  legacy: "on"\n');
  });

  it('as timoni bundle build --mask-secrets', async () => {
    const result = await runCliCaptured(['build', '-f', 'fidelity-bundle.cue', '--mask-secrets'], { cwd: fixtures });
    expect(result.stdout).toBe(timoniOutput('fidelity-build-masked.yaml'));
    expect(result.stdout).not.toContain('cGFzcw==');
    expect(result.stdout).not.toContain('not-a-secret-default');
  });

  it('fails where Timoni fails, a value go-yaml refuses, naming the cluster, instance and object', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timoni-fleet-build-'));
    try {
      cpSync(join(fixtures, 'fidelity-module'), join(dir, 'fidelity-module'), { recursive: true });
      const bundle = join(dir, 'bundle.cue');
      writeFileSync(
        bundle,
        readFileSync(join(fixtures, 'fidelity-bundle.cue'), 'utf8').replace('message: "on"', 'message: "del\\u007f"'),
      );
      const result = await runCliCaptured(['build', '-f', bundle], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        'instance web: object 2 of 3 (ConfigMap fidelity/web-settings) cannot be printed as YAML: yaml: control characters are not allowed',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('masks Secrets in JSON output too, and nothing without the flag', async () => {
    const secretOf = async (extra: string[]) => {
      const result = await runCliCaptured(['build', '-f', 'fidelity-bundle.cue', '-o', 'json', ...extra], {
        cwd: fixtures,
      });
      const document = JSON.parse(result.stdout) as {
        clusters: Array<{
          instances: Array<{ sets: Array<{ objects: Array<{ kind: string; data?: unknown; stringData?: unknown }> }> }>;
        }>;
      };
      return document.clusters[0]?.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'Secret');
    };
    expect(await secretOf(['--mask-secrets'])).toMatchObject({
      data: { password: '***' },
      stringData: { token: '***' },
    });
    expect(await secretOf([])).toMatchObject({
      data: { password: 'cGFzcw==' },
      stringData: { token: 'not-a-secret-default' },
    });
  });
});

describe('the text diff prints', () => {
  const cluster = (changes: ClusterChanges['instances'][number]['changes']): ClusterChanges => ({
    name: 'staging-1',
    group: 'staging',
    kubeContext: 'staging-1',
    status: 'changed',
    error: null,
    instances: [
      {
        name: 'podinfo',
        namespace: 'apps',
        module: { url: 'oci://example.com/podinfo', version: '6.5.4', digest: 'sha256:0' },
        changes,
      },
    ],
  });
  const change = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'podinfo' } as const;

  it('each changed object under a header with its diff, nothing for unchanged objects', () => {
    const text = clusterDiffText(
      cluster([
        { ...change, action: 'configured', diff: '--- live\n+++ desired\n@@ -1 +1 @@\n-a\n+b' },
        { ...change, kind: 'Service', action: 'unchanged', diff: '' },
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          namespace: '',
          name: 'apps',
          action: 'created',
          diff: '--- live\n+++ desired\n+kind: Namespace',
        },
      ]),
    );
    expect(text).toBe(
      '# staging-1 · podinfo · Deployment/apps/podinfo configured\n--- live\n+++ desired\n@@ -1 +1 @@\n-a\n+b\n' +
        '# staging-1 · podinfo · Namespace/apps created\n--- live\n+++ desired\n+kind: Namespace\n',
    );
  });

  it('a line in place of a diff that was too large to compute', () => {
    const text = clusterDiffText(
      cluster([
        {
          ...change,
          kind: 'CustomResourceDefinition',
          action: 'configured',
          diff: '',
          diffTooLarge: { liveLines: 12_000, desiredLines: 1 },
        },
      ]),
    );
    expect(text).toBe(
      '# staging-1 · podinfo · CustomResourceDefinition/apps/podinfo configured\nCustomResourceDefinition/apps/podinfo diff too large to compute (12000 lines live, 1 line desired)\n',
    );
  });

  it('nothing for a changed object without a diff', () => {
    expect(clusterDiffText(cluster([{ ...change, action: 'configured', diff: '' }]))).toBe('');
  });
});

describe('timoni-fleet diff, apply, status, delete', () => {
  const cwd = join(fixtures, 'fleet');
  let kubeconfigPath: string;
  let ready: { stop(): Promise<void> };

  beforeAll(() => {
    const fleet = inject('fleet');
    const kubeconfig = readFileSync(fleet.kubeconfigPath, 'utf8');
    // One more context, pointing at a port nothing listens on: a cluster that is down.
    const config = parse(kubeconfig) as {
      clusters: Array<Record<string, unknown>>;
      contexts: Array<{ name: string; context: Record<string, string> }>;
    };
    const firstUser = config.contexts[0]?.context.user ?? '';
    config.clusters.push({
      name: 'unreachable',
      cluster: { server: 'https://127.0.0.1:9', 'insecure-skip-tls-verify': true },
    });
    config.contexts.push({ name: 'unreachable', context: { cluster: 'unreachable', user: firstUser } });
    kubeconfigPath = join(scratchDir('cli-fleet'), 'kubeconfig');
    writeFileSync(kubeconfigPath, stringify(config), { mode: 0o600 });
    ready = keepWorkloadsReady(kubeconfig, ['fleet-1', 'fleet-2'], 'cli-fleet');
  });

  afterAll(async () => {
    await ready?.stop().catch(() => undefined);
  });

  const cli = (command: string, ...extra: string[]) =>
    runCliCaptured([command, '-f', 'bundle.cue', '-r', 'runtime.cue', '--kubeconfig', kubeconfigPath, ...extra], {
      cwd,
    });

  it('diff exits 1 on drift and prints the ChangeSet', async () => {
    const result = await cli('diff', '-o', 'json');
    expect(result.code, result.stderr).toBe(1);
    const changeSet = JSON.parse(result.stdout) as { mode: string; clusters: Array<{ name: string; status: string }> };
    expect(changeSet.mode).toBe('diff');
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['one', 'changed'],
      ['two', 'changed'],
    ]);
  });

  it('diff --changes-file writes the ChangeSet that -o json prints (timings aside)', async () => {
    const path = join(scratchDir('cli-fleet-changes'), 'shard', 'changes.json');
    const [written, printed] = [await cli('diff', '--changes-file', path), await cli('diff', '-o', 'json')];
    expect(written.code, written.stderr).toBe(1);
    const withoutTimings = (text: string) => {
      const changeSet = JSON.parse(text) as { format: number; clusters: Array<Record<string, unknown>> };
      return {
        ...changeSet,
        clusters: changeSet.clusters.map(({ startedAt: _startedAt, durationMs: _durationMs, ...cluster }) => cluster),
      };
    };
    expect(withoutTimings(readFileSync(path, 'utf8'))).toEqual(withoutTimings(printed.stdout));
    expect(withoutTimings(readFileSync(path, 'utf8')).format).toBe(1);
  });

  it('apply rolls out both clusters, then diff exits 0', async () => {
    const apply = await cli('apply', '--timeout', '60s');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('b:cli-fleet > c:one > i:web > Deployment/cli-fleet/web created');
    // The module by its name, as Timoni logs it (not by URL).
    expect(apply.stderr).toContain(
      'b:cli-fleet > c:one > i:web > applying module example.com/webapp version 0.0.0-devel',
    );
    const configMap = await clusterClient(1).getOrNull<KubeObject & { data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'cli-fleet',
      name: 'web',
    });
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
    const result = await runCliCaptured(
      ['apply', '-f', 'bundle-other.cue', '-r', 'runtime.cue', '--kubeconfig', kubeconfigPath, '--timeout', '60s'],
      { cwd },
    );
    expect(result.code).toBe(2);
    const mentions = result.stderr
      .split('\n')
      .filter((line) => line.includes('cli-fleet-other') && /owned|ownership|belongs/i.test(line));
    expect(mentions, result.stderr).toHaveLength(1);
    expect(result.stderr.match(/not reached: two/g)).toHaveLength(1);
  });

  it('status lists the instance with its module and objects', async () => {
    const result = await cli('status');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'b:cli-fleet > c:one > i:web > module ../../../../examples/modules/webapp:0.0.0-devel',
    );
    expect(result.stdout).toMatch(/b:cli-fleet > c:two > i:web > Deployment\/cli-fleet\/web Current/);
  });

  it('status -o json gives each cluster x instance its state: deployed here, unknown on a cluster that is down (exit 2)', async () => {
    const deployed = await cli('status', '-o', 'json');
    expect(deployed.code, deployed.stderr).toBe(0);
    const state = JSON.parse(deployed.stdout) as {
      bundle: string;
      instances: Array<{ cluster: string; instance: string; state: string; module: { version: string } | null }>;
    };
    expect(state.bundle).toBe('cli-fleet');
    expect(state.instances.map((row) => [row.cluster, row.instance, row.state, row.module?.version])).toEqual([
      ['one', 'web', 'deployed', '0.0.0-devel'],
      ['two', 'web', 'deployed', '0.0.0-devel'],
    ]);
    const down = await runCliCaptured(
      [
        'status',
        '-f',
        'bundle.cue',
        '-r',
        'runtime-with-down-cluster.cue',
        '--kubeconfig',
        kubeconfigPath,
        '-o',
        'json',
      ],
      { cwd },
    );
    expect(down.code, down.stderr).toBe(2);
    const rows = (JSON.parse(down.stdout) as typeof state).instances.map((row) => [row.cluster, row.state]);
    expect(rows).toEqual([
      ['one', 'deployed'],
      ['gone', 'unknown'],
    ]);
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
    expect(
      await clusterClient(0).getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'cli-fleet', name: 'web' }),
    ).toBeNull();
    expect(
      await clusterClient(0).getOrNull({
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: 'cli-fleet',
        name: 'timoni.web',
      }),
    ).toBeNull();
  });

  it('status and delete of a bundle without instances say so as Timoni: status fails (exit 1), delete does not', async () => {
    const status = await cli('status');
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'b:cli-fleet > c:one > ✗ no instances found in bundle',
        'b:cli-fleet > c:two > ✗ no instances found in bundle',
      ]),
    );
    const deleted = await cli('delete', '--timeout', '60s');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr.split('\n')).toEqual(
      expect.arrayContaining([
        'b:cli-fleet > c:one > no instances found in bundle',
        'b:cli-fleet > c:two > no instances found in bundle',
      ]),
    );
  });

  it('diff reports a cluster that is down as failed, diffs the others, and exits 2', async () => {
    const result = await runCliCaptured(
      ['diff', '-f', 'bundle.cue', '-r', 'runtime-with-down-cluster.cue', '--kubeconfig', kubeconfigPath, '-o', 'json'],
      { cwd },
    );
    expect(result.code).toBe(2);
    const changeSet = JSON.parse(result.stdout) as {
      clusters: Array<{ name: string; status: string; error: { step: string } | null }>;
    };
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['one', 'changed'],
      ['gone', 'failed'],
    ]);
    expect(changeSet.clusters[1]?.error?.step).toBe('connect');
  });
});
