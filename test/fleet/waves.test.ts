// Rollout waves (src/fleet/waves.ts), first with a stand-in for one cluster's rollout (the
// cutting into waves, the bound, what stops and what is not reached, the deadline, logs
// grouped per cluster), then through the CLI on three clusters of the local fleet: the two
// staging clusters applied at once (their [startedAt, startedAt + durationMs] intervals
// overlap), a failing staging cluster that lets the other one finish and keeps production
// from being reached, and the sequential rollout, still the default, one cluster after the
// other.
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { RuntimeCluster } from '../../src/bundle/index.js';
import type { ChangeSet, ClusterChanges } from '../../src/changeset.js';
import { clusterEntry } from '../../src/fleet/outcome.js';
import type { FleetLog } from '../../src/fleet/fleet-run.js';
import { rollOutWaves, splitIntoWaves } from '../../src/fleet/waves.js';
import { cancellationLine } from '../../src/fleet/rollout.js';
import { RunCancelled } from '../../src/cancellation.js';
import { keepReady, type ReadinessLoop } from '../harness/fleet/readiness.js';
import { clusterClient, testNamespace } from '../harness/fleet/test-context.js';
import { runCliCaptured, type CliResult } from '../cli/run-cli.js';
import { fixtures } from './fleet-layer-cli.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runtimeCluster(name: string, group: string): RuntimeCluster {
  return { name, group, kubeContext: `ctx-${name}` };
}

/** A FleetLog that records lines and groups as text: `[title]`, lines, `[/]`. */
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

describe('splitIntoWaves', () => {
  it('cuts runtime order into runs of one group, a group met again being a wave of its own', () => {
    const clusters = [
      runtimeCluster('s1', 'staging'),
      runtimeCluster('s2', 'staging'),
      runtimeCluster('p1', 'production'),
      runtimeCluster('p2', 'production'),
      runtimeCluster('s3', 'staging'),
    ];
    expect(splitIntoWaves(clusters).map((wave) => [wave.group, wave.clusters.map((c) => c.name)])).toEqual([
      ['staging', ['s1', 's2']],
      ['production', ['p1', 'p2']],
      ['staging', ['s3']],
    ]);
    expect(splitIntoWaves([])).toEqual([]);
  });
});

describe('rollOutWaves with a stand-in rollout', () => {
  const fleet = [
    runtimeCluster('s1', 'staging'),
    runtimeCluster('s2', 'staging'),
    runtimeCluster('s3', 'staging'),
    runtimeCluster('p1', 'production'),
    runtimeCluster('p2', 'production'),
  ];

  /** Each cluster takes `ms[name]` (default 30 ms) and fails when named in `failing`; records what ran at once. */
  function standIn(ms: Record<string, number> = {}, failing: string[] = []) {
    let inFlight = 0;
    const seen = { peak: 0, started: [] as string[], finished: [] as string[] };
    const rollOut = async (cluster: RuntimeCluster, line: (text: string) => void): Promise<ClusterChanges> => {
      const startedAt = Date.now();
      inFlight += 1;
      seen.peak = Math.max(seen.peak, inFlight);
      seen.started.push(cluster.name);
      line(`applying ${cluster.name}`);
      await sleep(ms[cluster.name] ?? 30);
      line(`done ${cluster.name}`);
      inFlight -= 1;
      seen.finished.push(cluster.name);
      const failed = failing.includes(cluster.name);
      return clusterEntry(
        cluster,
        failed ? 'failed' : 'applied',
        [],
        failed ? { step: 'apply', message: `cluster ${cluster.name}: refused` } : null,
        startedAt,
      );
    };
    return { rollOut, seen };
  }

  it('applies a wave at once within maxParallel, the next wave after it, entries in runtime order', async () => {
    const { rollOut, seen } = standIn({ s1: 80, s2: 10, s3: 40 });
    const log = new RecordingLog();
    const entries = await rollOutWaves(fleet, { maxParallel: 2, log }, rollOut);
    expect(entries.map((e) => [e.name, e.status])).toEqual([
      ['s1', 'applied'],
      ['s2', 'applied'],
      ['s3', 'applied'],
      ['p1', 'applied'],
      ['p2', 'applied'],
    ]);
    expect(seen.peak).toBe(2);
    // s2 ends first, in the middle of s1, and s3 takes its slot; production waits for all three.
    expect(seen.finished.slice(0, 3)).toEqual(['s2', 's3', 's1']);
    expect(seen.started.slice(3)).toEqual(['p1', 'p2']);
    expect(log.lines).toContain('wave 1 of 2: group staging, 3 cluster(s), 2 at a time');
    expect(log.lines).toContain('wave 2 of 2: group production, 2 cluster(s), 2 at a time');
    // Each cluster's lines come together in its group, whatever ran meanwhile.
    const s1 = log.lines.indexOf('[cluster s1 (staging): applied]');
    expect(log.lines.slice(s1, s1 + 4)).toEqual(['[cluster s1 (staging): applied]', 'applying s1', 'done s1', '[/]']);
  });

  it('lets the clusters in flight finish after a failure, starts no other, and does not reach the next waves', async () => {
    // s1 fails fast while s2 is still applying; s3 waits for a slot (maxParallel 2) and never starts.
    const { rollOut, seen } = standIn({ s1: 10, s2: 120 }, ['s1']);
    const log = new RecordingLog();
    const entries = await rollOutWaves(fleet, { maxParallel: 2, log }, rollOut);
    expect(entries.map((e) => [e.name, e.status])).toEqual([
      ['s1', 'failed'],
      ['s2', 'applied'],
      ['s3', 'skipped'],
      ['p1', 'skipped'],
      ['p2', 'skipped'],
    ]);
    expect(seen.started).toEqual(['s1', 's2']);
    expect(entries[2]).toEqual({
      name: 's3',
      group: 'staging',
      kubeContext: 'ctx-s3',
      status: 'skipped',
      error: null,
      instances: [],
    });
    expect(log.lines.at(-1)).toBe('rollout stopped in the wave of group staging: failed s1; not reached: s3, p1, p2');
    expect(log.lines).not.toContain('wave 2 of 2: group production, 2 cluster(s), 2 at a time');
  });

  it('starts no cluster once the run passed its deadline: the first one fails with step deadline, the rest are not reached', async () => {
    const { rollOut, seen } = standIn();
    const entries = await rollOutWaves(
      fleet,
      { maxParallel: 4, log: new RecordingLog(), deadlineAt: Date.now() - 1 },
      rollOut,
    );
    expect(seen.started).toEqual([]);
    expect(entries[0]?.status).toBe('failed');
    expect(entries[0]?.error).toEqual({
      step: 'deadline',
      message: 'the run passed its deadline before reaching cluster s1; nothing was applied to it',
    });
    expect(entries.slice(1).map((e) => e.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
  });

  it('starts no cluster once the run is cancelled: the next one is cancelled before it started, the rest not reached', async () => {
    const { rollOut, seen } = standIn();
    const cancel = new AbortController();
    cancel.abort(new RunCancelled('SIGTERM'));
    const entries = await rollOutWaves(
      fleet,
      { maxParallel: 4, log: new RecordingLog(), cancel: cancel.signal },
      rollOut,
    );
    expect(seen.started).toEqual([]);
    expect(entries[0]).toMatchObject({
      status: 'failed',
      error: {
        step: 'cancelled',
        interrupted: 'start',
        message: 'the run was cancelled (SIGTERM) before cluster s1 was started; nothing was applied to it',
      },
    });
    expect(entries.slice(1).map((e) => e.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(cancellationLine(entries)).toBe(
      'rollout cancelled: applied none; interrupted none; not reached s1, s2, s3, p1, p2',
    );
  });

  it('the closing line of a cancelled rollout names the clusters applied, interrupted (where) and not reached', () => {
    const at = Date.now();
    const entries: ClusterChanges[] = [
      clusterEntry(runtimeCluster('s1', 'staging'), 'applied', [], null, at),
      clusterEntry(
        runtimeCluster('p1', 'production'),
        'failed',
        [],
        { step: 'cancelled', interrupted: 'wait', instance: 'web', object: 'Deployment/apps/web', message: 'x' },
        at,
      ),
      { ...clusterEntry(runtimeCluster('p2', 'production'), 'skipped', [], null, at) },
    ];
    expect(cancellationLine(entries)).toBe(
      'rollout cancelled: applied s1; interrupted p1 (instance web, step wait, Deployment/apps/web); not reached p2',
    );
    expect(cancellationLine(entries.slice(0, 1))).toBeUndefined();
  });

  it('refuses maxParallel below 1', async () => {
    await expect(rollOutWaves(fleet, { maxParallel: 0, log: new RecordingLog() }, standIn().rollOut)).rejects.toThrow(
      'maxParallel must be a whole number of clusters, 1 or more, not 0',
    );
  });
});

// ---- On the local fleet

interface WavesRun {
  namespaces: [string, string];
}

interface WavesResult extends CliResult {
  changeSet: ChangeSet;
}

/** A namespace of the same name on each of the fleet's clusters given (by index), deleted when the test ends. */
async function namespaceOn(clusters: number[], prefix: string): Promise<string> {
  const [first, ...others] = clusters;
  const namespace = await testNamespace(first, prefix);
  for (const cluster of others) {
    const client = clusterClient(cluster);
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace.name, labels: { 'timoni-fleet.test/namespace': 'true' } },
      },
      { fieldManager: 'fleet-test-namespace' },
    );
    onTestFinished(async () => {
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace.name });
    });
  }
  return namespace.name;
}

async function applyWaves(run: WavesRun, ...extra: string[]): Promise<WavesResult> {
  const result = await runCliCaptured(
    [
      'apply',
      '-f',
      'waves-bundle.cue',
      '-r',
      'runtime-waves.cue',
      '--kubeconfig',
      inject('fleet').kubeconfigPath,
      '--runtime-from-env',
      '--prune-removed-instances=false',
      '--timeout',
      '60s',
      '-o',
      'json',
      ...extra,
    ],
    { cwd: fixtures, env: { FLEET_WAVES_NS_A: run.namespaces[0], FLEET_WAVES_NS_B: run.namespaces[1] } },
  );
  try {
    return { ...result, changeSet: JSON.parse(result.stdout) as ChangeSet };
  } catch {
    throw new Error(
      `timoni-fleet apply printed no ChangeSet (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

/** Marks the workloads of the namespaces ready on the clusters given, from `afterMs` on, until the test ends. */
function readyLater(clusters: number[], namespaces: string[], afterMs: number): void {
  const loops: ReadinessLoop[] = [];
  const timer = setTimeout(() => {
    for (const cluster of clusters)
      for (const namespace of namespaces) loops.push(keepReady(clusterClient(cluster), namespace, 100));
  }, afterMs);
  onTestFinished(async () => {
    clearTimeout(timer);
    await Promise.all(loops.map((loop) => loop.stop()));
  });
}

function interval(entry: ClusterChanges | undefined): { start: number; end: number } {
  if (!entry?.startedAt || entry.durationMs === undefined)
    throw new Error(`cluster ${entry?.name} has no startedAt and durationMs`);
  const start = Date.parse(entry.startedAt);
  return { start, end: start + entry.durationMs };
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

describe('rollout waves on the local fleet', () => {
  const readyAfterMs = 1_500;

  it('applies the two staging clusters at once, then production', async () => {
    const namespaces: [string, string] = [
      await namespaceOn([0, 1, 2], 'waves-a'),
      await namespaceOn([0, 1, 2], 'waves-b'),
    ];
    readyLater([0, 1, 2], namespaces, readyAfterMs);
    const result = await applyWaves({ namespaces }, '--strategy', 'waves', '--max-parallel', '2');
    expect(result.code, result.stderr).toBe(0);
    const [stageA, stageB, prod] = result.changeSet.clusters;
    expect(result.changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['stage-a', 'applied'],
      ['stage-b', 'applied'],
      ['prod', 'applied'],
    ]);
    // Both staging clusters waited for readiness (about readyAfterMs) at the same time.
    expect(overlap(interval(stageA), interval(stageB)), JSON.stringify([interval(stageA), interval(stageB)])).toBe(
      true,
    );
    expect(interval(prod).start).toBeGreaterThanOrEqual(Math.max(interval(stageA).end, interval(stageB).end));
    expect(stageA?.instances.flatMap((i) => i.changes).find((c) => c.kind === 'Deployment')?.readiness?.status).toBe(
      'Current',
    );
    // The log: one group per cluster, each whole (its lines never interleave with the other's).
    expect(result.stderr).toContain('wave 1 of 2: group staging, 2 cluster(s), 2 at a time');
    const lines = result.stderr.split('\n');
    const stageALines = lines.filter((line) => line.includes('c:stage-a'));
    const first = lines.indexOf(stageALines[0]!);
    expect(lines.slice(first, first + stageALines.length)).toEqual(stageALines);
  });

  it('stops after a failing wave: the other staging cluster finishes, production is not reached', async () => {
    // On stage-b (fleet-2) the first instance's ConfigMap exists already, immutable and with
    // other data: the API server refuses the apply at once, while stage-a is still waiting
    // for its workloads to be ready.
    const namespaces: [string, string] = [
      await namespaceOn([0, 1, 2], 'waves-fail-a'),
      await namespaceOn([0, 1, 2], 'waves-fail-b'),
    ];
    await clusterClient(1).apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'first', namespace: namespaces[0] },
        immutable: true,
        data: { message: 'set by someone else' },
      },
      { fieldManager: 'someone-else' },
    );
    readyLater([0, 1, 2], namespaces, readyAfterMs);
    const result = await applyWaves({ namespaces }, '--strategy', 'waves');
    expect(result.code, result.stderr).toBe(2);
    const [stageA, stageB, prod] = result.changeSet.clusters;
    expect(result.changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['stage-a', 'applied'],
      ['stage-b', 'failed'],
      ['prod', 'skipped'],
    ]);
    expect(stageB?.error?.message).toContain('cluster stage-b');
    expect(stageB?.error?.instance).toBe('first');
    expect(stageB?.error?.object).toBe(`ConfigMap/${namespaces[0]}/first`);
    expect(stageB?.error?.message).toMatch(/immutable/);
    // stage-a was in flight when stage-b failed, and was let finish.
    expect(interval(stageA).start).toBeLessThan(interval(stageB).end);
    expect(interval(stageA).end).toBeGreaterThan(interval(stageB).end);
    expect(prod).toEqual({
      name: 'prod',
      group: 'production',
      kubeContext: 'fleet-3',
      status: 'skipped',
      error: null,
      instances: [],
    });
    const deployment = await clusterClient(2).getOrNull({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: namespaces[0],
      name: 'first',
    });
    expect(deployment, 'nothing applied to production').toBeNull();
    expect(result.stderr).toContain('rollout stopped in the wave of group staging: failed stage-b; not reached: prod');
  });

  it('rolls out one cluster after the other by default (sequential, as Timoni)', async () => {
    const namespaces: [string, string] = [
      await namespaceOn([0, 1, 2], 'waves-seq-a'),
      await namespaceOn([0, 1, 2], 'waves-seq-b'),
    ];
    readyLater([0, 1, 2], namespaces, 0);
    const result = await applyWaves({ namespaces });
    expect(result.code, result.stderr).toBe(0);
    const clusters = result.changeSet.clusters;
    expect(clusters.map((c) => [c.name, c.status])).toEqual([
      ['stage-a', 'applied'],
      ['stage-b', 'applied'],
      ['prod', 'applied'],
    ]);
    for (let index = 1; index < clusters.length; index++) {
      expect(interval(clusters[index]).start).toBeGreaterThanOrEqual(interval(clusters[index - 1]).end);
    }
    expect(result.stderr).not.toContain('wave 1');
  });
});
