// The soak gate (src/fleet/soak.ts) on two clusters of the local fleet: the entries of a
// wave as a rollout leaves them (applied, with their objects), real objects kept ready by
// the harness, then turned not ready (its `turn-not-ready` marker), deleted, or left alone;
// the run's deadline and its cancellation during a soak. Short soaks and intervals keep it fast.
// Then the sequential rollout through the CLI (`apply --soak`): each cluster soaked before the next.
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { ChangeSet, ClusterChanges, ObjectChange } from '../../src/changeset.js';
import { runCli } from '../../src/cli/dispatch.js';
import { loadKubeconfig } from '../../src/kube/connect/index.js';
import type { FleetLog } from '../../src/fleet/fleet-run.js';
import { soakClusters, watchedObjects, type SoakRun } from '../../src/fleet/soak.js';
import { SecretRegistry } from '../../src/secrets.js';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { keepReady, setNotReadyMarker } from '../harness/fleet/readiness.js';
import { clusterClient, testFleet, testNamespace } from '../harness/fleet/test-context.js';
import { fixtures } from './fleet-layer-cli.js';

const timing = { intervalMs: 200, progressEveryMs: 700 };
const labels = { app: 'web' };

class RecordingLog implements FleetLog {
  readonly lines: string[] = [];
  line(text: string): void {
    this.lines.push(text);
  }
  startGroup(title: string): void {
    this.lines.push(`[${title}]`);
  }
  endGroup(): void {
    this.lines.push('[/]');
  }
}

function deployment(namespace: string, name: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.example/web:1' }] } },
    },
  };
}

const change = (object: KubeObject, action: ObjectChange['action'] = 'configured'): ObjectChange => ({
  kind: object.kind,
  apiVersion: object.apiVersion,
  namespace: object.metadata.namespace ?? '',
  name: object.metadata.name,
  action,
  diff: '',
});

/** One cluster of the fleet with a ready instance `web` of a Deployment and a ConfigMap; answers its applied entry. */
async function appliedCluster(index: number, prefix: string): Promise<{ entry: ClusterChanges; namespace: string }> {
  const fleet = testFleet();
  const cluster = fleet.clusters[index];
  if (!cluster) throw new Error(`no cluster ${index} in the fleet`);
  const client = clusterClient(index);
  const { name: namespace } = await testNamespace(index, prefix);
  const loop = keepReady(client, namespace, 100);
  onTestFinished(() => loop.stop());
  const web = deployment(namespace, 'web');
  const config: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace }, data: {} };
  const quiet = deployment(namespace, 'quiet', { 'action.timoni.sh/wait': 'disabled' });
  for (const object of [web, config, quiet]) await client.apply(object);
  // Ready, as the apply's wait left it.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const live = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' });
    if ((live.status as { readyReplicas?: number } | undefined)?.readyReplicas === 1) break;
    if (Date.now() > deadline) throw new Error('the Deployment never became ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const gone: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', namespace } };
  const job: KubeObject = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'web-test', namespace } };
  const entry: ClusterChanges = {
    name: cluster.name,
    group: 'staging',
    kubeContext: cluster.contextName,
    status: 'applied',
    error: null,
    instances: [
      {
        name: 'web',
        namespace,
        module: { url: 'oci://registry.example/web', version: '1.0.0', digest: '' },
        changes: [change(config, 'unchanged'), change(web), change(quiet), change(gone, 'deleted'), change(job)],
      },
    ],
  };
  return { entry, namespace };
}

function soakRun(soakMs: number, more: Partial<SoakRun> = {}): SoakRun & { log: RecordingLog; told: string[] } {
  const fleet = testFleet();
  const secrets = new SecretRegistry();
  const kubeconfig = loadKubeconfig([{ text: readFileSync(fleet.kubeconfigPath, 'utf8') }], secrets);
  const told: string[] = [];
  return {
    kubeconfig,
    secrets,
    log: new RecordingLog(),
    options: { soakMs },
    onClusterError: (cluster) => told.push(cluster),
    told,
    ...more,
  } as SoakRun & { log: RecordingLog; told: string[] };
}

describe('the soak gate', () => {
  it('watches what the apply left in place: not deleted objects, Jobs, or objects not waited for', async () => {
    const { entry, namespace } = await appliedCluster(0, 'soak-watch');
    expect(watchedObjects(entry).map((object) => `${object.ref.kind}/${object.ref.name}`)).toEqual([
      'ConfigMap/web',
      'Deployment/web',
      'Deployment/quiet',
    ]);
    // `quiet` is not waited for (wait: disabled): it turning not ready does not fail the soak.
    await setNotReadyMarker(
      clusterClient(0),
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'quiet' },
      'turn-not-ready',
    );
    const run = soakRun(1_500);
    const [soaked] = await soakClusters(run, [entry], 'cluster fleet-1', timing);
    expect(soaked?.status).toBe('applied');
  });

  it('passes a wave whose objects stay ready, with a line at its start, progress lines and a line at its end', async () => {
    const [a, b] = await Promise.all([appliedCluster(0, 'soak-pass'), appliedCluster(1, 'soak-pass')]);
    const run = soakRun(2_000);
    const started = Date.now();
    const soaked = await soakClusters(run, [a.entry, b.entry], 'wave 1 of 2 (group staging)', timing);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(soaked).toEqual([a.entry, b.entry]);
    const [first, ...rest] = run.log.lines;
    expect(first).toBe(
      `soak of wave 1 of 2 (group staging): watching 6 object(s) on ${a.entry.name}, ${b.entry.name} for 2s before going on`,
    );
    expect(
      rest.filter((line) => /^soak of wave 1 of 2 \(group staging\): every object ready so far, .* left$/.test(line))
        .length,
    ).toBeGreaterThanOrEqual(2);
    expect(rest.at(-1)).toBe('soak of wave 1 of 2 (group staging) passed: every object stayed ready for 2s');
    expect(run.told).toEqual([]);
  });

  it('fails the cluster whose Deployment turns not ready, at step soak, and ends the soak early', async () => {
    const [a, b] = await Promise.all([appliedCluster(0, 'soak-turn'), appliedCluster(1, 'soak-turn')]);
    const run = soakRun(30_000);
    const started = Date.now();
    setTimeout(() => {
      void setNotReadyMarker(
        clusterClient(1),
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: b.namespace, name: 'web' },
        'turn-not-ready',
      );
    }, 600);
    const [first, second] = await soakClusters(run, [a.entry, b.entry], 'wave 1 of 2 (group staging)', timing);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(first).toEqual(a.entry);
    expect(second?.status).toBe('failed');
    expect(second?.error).toMatchObject({ step: 'soak', instance: 'web', object: `Deployment/${b.namespace}/web` });
    expect(second?.error?.message).toMatch(
      new RegExp(
        `^cluster ${b.entry.name}: Deployment/${b.namespace}/web of instance web turned not ready during the soak, .* into 30s: status 'InProgress': Available: 0/1$`,
      ),
    );
    const readiness = second?.instances[0]?.changes.find((c) => c.kind === 'Deployment' && c.name === 'web')?.readiness;
    expect(readiness).toEqual({ status: 'InProgress', message: 'Available: 0/1' });
    expect(run.told).toEqual([b.entry.name]);
    expect(run.log.lines).toContain(`✗ ${second?.error?.message}`);
    expect(run.log.lines.at(-1)).toMatch(
      /^soak of wave 1 of 2 \(group staging\) failed after .*: \S+ turned not ready$/,
    );
  });

  it('lets a Deployment be InProgress for one round (its controller observing a new generation)', async () => {
    const { entry, namespace } = await appliedCluster(0, 'soak-blip');
    const client = clusterClient(0);
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' };
    // Its status goes back one generation (as when its spec or annotations change); the harness's
    // loop (every 100 ms) marks it observed again: InProgress for about 100 ms, within one round of 400 ms.
    setTimeout(() => {
      void (async () => {
        const live = await client.get(ref);
        await client.patchStatus(ref, { status: { observedGeneration: (live.metadata.generation ?? 1) - 1 } });
      })();
    }, 500);
    const run = soakRun(2_000);
    const [soaked] = await soakClusters(run, [entry], 'cluster fleet-1', { intervalMs: 400, progressEveryMs: 10_000 });
    expect(soaked?.status, run.log.lines.join('\n')).toBe('applied');
  });

  it('fails the cluster whose object is deleted during the soak', async () => {
    const { entry, namespace } = await appliedCluster(0, 'soak-gone');
    const run = soakRun(30_000);
    setTimeout(() => {
      void clusterClient(0).delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web' });
    }, 500);
    const [soaked] = await soakClusters(run, [entry], 'cluster fleet-1', timing);
    expect(soaked?.error).toMatchObject({ step: 'soak', object: `ConfigMap/${namespace}/web` });
    expect(soaked?.error?.message).toContain("status 'NotFound'");
  });

  it("ends at the run's deadline and on cancellation, the clusters still applied", async () => {
    const { entry } = await appliedCluster(0, 'soak-stop');
    const atDeadline = soakRun(30_000, { deadlineAt: Date.now() + 1_000 });
    let started = Date.now();
    expect(await soakClusters(atDeadline, [entry], 'cluster fleet-1', timing)).toEqual([entry]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(atDeadline.log.lines.at(-1)).toMatch(/^soak of cluster fleet-1 cut short after .* by the run's deadline/);

    const cancel = new AbortController();
    const cancelled = soakRun(30_000, { cancel: cancel.signal });
    started = Date.now();
    setTimeout(() => cancel.abort(new Error('the run was cancelled (SIGINT)')), 500);
    expect(await soakClusters(cancelled, [entry], 'cluster fleet-1', timing)).toEqual([entry]);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(cancelled.log.lines.at(-1)).toMatch(/^soak of cluster fleet-1 cut short after/);
  });

  it('does nothing without a soak, or without an applied cluster', async () => {
    const failed: ClusterChanges = {
      name: 'x',
      group: 'g',
      kubeContext: 'x',
      status: 'failed',
      error: null,
      instances: [],
    };
    const run = soakRun(5_000);
    expect(await soakClusters(run, [failed], 'cluster x', timing)).toEqual([failed]);
    expect(await soakClusters(soakRun(0), [failed], 'cluster x', timing)).toEqual([failed]);
    expect(run.log.lines).toEqual([]);
  });
});

// ---- The sequential rollout through the CLI

/** A namespace of the same name on every cluster of the fleet, its workloads kept ready, deleted when the test ends. */
async function readyNamespaceEverywhere(prefix: string): Promise<string> {
  const { name } = await testNamespace(0, prefix);
  for (const index of [0, 1, 2]) {
    const client = clusterClient(index);
    if (index > 0) {
      await client.apply(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'timoni-fleet.test/namespace': 'true' } } },
        { fieldManager: 'fleet-test-namespace' },
      );
      onTestFinished(async () => {
        await client.delete({ apiVersion: 'v1', kind: 'Namespace', name });
      });
    }
    const loop = keepReady(client, name, 100);
    onTestFinished(() => loop.stop());
  }
  return name;
}

/** `timoni-fleet apply` of the waves fixtures (stage-a, stage-b, prod), sequential; `onLog` sees stderr as it comes. */
async function applySequential(
  namespaces: [string, string],
  extra: string[],
  onLog: (text: string) => void = () => undefined,
): Promise<{ code: number; stderr: string; changeSet: ChangeSet }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [
      'apply',
      ...['-f', 'waves-bundle.cue', '-r', 'runtime-waves.cue', '--kubeconfig', inject('fleet').kubeconfigPath],
      ...['--runtime-from-env', '--prune-removed-instances=false', '--timeout', '60s', '-o', 'json'],
      ...extra,
    ],
    {
      cwd: fixtures,
      env: { FLEET_WAVES_NS_A: namespaces[0], FLEET_WAVES_NS_B: namespaces[1] },
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
        onLog(text);
      },
    },
  );
  if (!stdout) throw new Error(`no ChangeSet (exit ${code}):\n${stderr}`);
  return { code, stderr, changeSet: JSON.parse(stdout) as ChangeSet };
}

describe('apply --soak, sequential', () => {
  it('soaks each cluster before the next one', async () => {
    const namespaces: [string, string] = [
      await readyNamespaceEverywhere('soak-seq-a'),
      await readyNamespaceEverywhere('soak-seq-b'),
    ];
    const result = await applySequential(namespaces, ['--soak', '1s']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['stage-a', 'applied'],
      ['stage-b', 'applied'],
      ['prod', 'applied'],
    ]);
    const passed = (cluster: string) => result.stderr.indexOf(`soak of cluster ${cluster} passed`);
    expect(result.stderr).toMatch(
      /soak of cluster stage-a: watching \d+ object\(s\) on stage-a for 1s before going on/,
    );
    expect(passed('stage-a')).toBeGreaterThan(0);
    expect(passed('stage-b')).toBeGreaterThan(passed('stage-a'));
    expect(passed('prod')).toBeGreaterThan(passed('stage-b'));
    // stage-b's group opens once stage-a's soak has passed.
    expect(result.stderr.indexOf('stage-b')).toBeGreaterThan(passed('stage-a'));
  });

  it('stops at the cluster that turns not ready during its soak; the ones after it are not reached', async () => {
    const namespaces: [string, string] = [
      await readyNamespaceEverywhere('soak-seq-fail-a'),
      await readyNamespaceEverywhere('soak-seq-fail-b'),
    ];
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: namespaces[1], name: 'second' };
    let marked: Promise<unknown> | undefined;
    const result = await applySequential(namespaces, ['--soak', '20s'], (text) => {
      if (!marked && text.includes('soak of cluster stage-a: watching'))
        marked = setNotReadyMarker(clusterClient(0), deployment, 'turn-not-ready');
    });
    await marked;
    expect(result.code, result.stderr).toBe(2);
    const [stageA] = result.changeSet.clusters;
    expect(result.changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['stage-a', 'failed'],
      ['stage-b', 'skipped'],
      ['prod', 'skipped'],
    ]);
    expect(stageA?.error).toMatchObject({
      step: 'soak',
      instance: 'second',
      object: `Deployment/${namespaces[1]}/second`,
    });
    expect(stageA?.error?.message).toContain('turned not ready during the soak');
    expect(result.stderr).toContain('rollout stopped at cluster stage-a; not reached: stage-b, prod');
  });

  it('refuses a soak that is not a duration', async () => {
    let stderr = '';
    const code = await runCli(['apply', '-f', 'waves-bundle.cue', '-r', 'runtime-waves.cue', '--soak', '0'], {
      cwd: fixtures,
      env: {},
      stdout: () => undefined,
      stderr: (text) => {
        stderr += text;
      },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('--soak must be a duration such as 10m or 90s, not "0"');
  });
});
