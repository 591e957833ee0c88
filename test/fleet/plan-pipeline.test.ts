// A plan diffs each instance as soon as it is built, a few instances of a cluster at once,
// while the CUE engine builds the next ones (plan.ts). What it tells must not show it: the
// instances come in bundle order, a failed build is told in its place (once) with the
// instances around it diffed and told, and when several instances fail, the cluster's error
// is the first one's in bundle order, whichever failed first in time.
import { describe, expect, inject, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { runCliCaptured } from '../cli/run-cli.js';
import { testNamespace } from '../harness/fleet/test-context.js';
import { fixtures } from './fleet-layer-cli.js';

const cluster = 'fleet-3';

async function namespaces(): Promise<[string, string, string]> {
  const made = await Promise.all(['pipe-a', 'pipe-b', 'pipe-c'].map((prefix) => testNamespace(cluster, prefix)));
  return made.map((namespace) => namespace.name) as [string, string, string];
}

function pipelineCli(
  command: 'diff' | 'apply',
  ns: [string, string, string],
  bundle: string,
  secondReplicas: number,
  ...extra: string[]
) {
  return runCliCaptured(
    [
      command,
      '-f',
      'three-instances.cue',
      '-r',
      'runtime-fleet-3.cue',
      '--kubeconfig',
      inject('fleet').kubeconfigPath,
      '--runtime-from-env',
      ...extra,
    ],
    {
      cwd: fixtures,
      env: {
        PIPELINE_BUNDLE: bundle,
        PIPELINE_NS_A: ns[0],
        PIPELINE_NS_B: ns[1],
        PIPELINE_NS_C: ns[2],
        PIPELINE_SECOND_REPLICAS: String(secondReplicas),
      },
    },
  );
}

/** The instance named in each change line of the log, in the order told. */
function instancesTold(stderr: string): string[] {
  return [...stderr.matchAll(/> i:(\w+) > \w+\//g)].map((match) => match[1] as string);
}

describe('a plan that diffs instances while the next ones build', () => {
  it('tells the instances in bundle order, every line of one before the next', async () => {
    const ns = await namespaces();
    const result = await pipelineCli('diff', ns, 'pipeline', 2, '-o', 'json');
    expect(result.code, result.stderr).toBe(1);
    const entry = (JSON.parse(result.stdout) as ChangeSet).clusters[0]!;
    expect(entry.status).toBe('changed');
    expect(entry.instances.map((instance) => `${instance.name} ${instance.namespace}`)).toEqual([
      `first ${ns[0]}`,
      `second ${ns[1]}`,
      `third ${ns[2]}`,
    ]);
    for (const instance of entry.instances) expect(instance.changes.length).toBeGreaterThan(1);
    const told = instancesTold(result.stderr);
    const perInstance = entry.instances.map((instance) => instance.changes.length);
    expect(told).toEqual([
      ...Array<string>(perInstance[0]!).fill('first'),
      ...Array<string>(perInstance[1]!).fill('second'),
      ...Array<string>(perInstance[2]!).fill('third'),
    ]);
  });

  it('fails the cluster on the second instance build, told in its place, the first and third instances diffed and told around it', async () => {
    const ns = await namespaces();
    const result = await pipelineCli('diff', ns, 'pipeline', -1, '-o', 'json');
    expect(result.code, result.stderr).toBe(2);
    const entry = (JSON.parse(result.stdout) as ChangeSet).clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({ step: 'build', instance: 'second' });
    expect(entry.error!.message).toMatch(/replicas/);
    expect(
      entry.instances.map((instance) => [instance.name, instance.namespace, instance.error?.step ?? null]),
    ).toEqual([
      ['first', ns[0], null],
      ['second', ns[1], 'build'],
      ['third', ns[2], null],
    ]);
    const [first, second, third] = entry.instances;
    expect(second!.changes).toEqual([]);
    expect(second!.error!.message).toBe(entry.error!.message);
    for (const built of [first!, third!]) expect(built.changes.length).toBeGreaterThan(1);
    // Each line is an instance's change or a failure: told in bundle order, the failure once.
    const told = result.stderr
      .split('\n')
      .map((line) => (line.startsWith('✗ ') ? 'failure' : /> i:(\w+) > \w+\//.exec(line)?.[1]))
      .filter((what): what is string => what !== undefined);
    expect(told.filter((what, index) => what !== told[index - 1])).toEqual(['first', 'failure', 'third']);
    expect(told.filter((what) => what === 'failure')).toHaveLength(1);
  });

  it("reports the first instance's ownership conflict in bundle order when every instance has one", async () => {
    const ns = await namespaces();
    const applied = await pipelineCli('apply', ns, 'pipeline-other', 1, '--wait=false');
    expect(applied.code, applied.stderr).toBe(0);
    const result = await pipelineCli('diff', ns, 'pipeline', 1, '-o', 'json');
    expect(result.code, result.stderr).toBe(2);
    const entry = (JSON.parse(result.stdout) as ChangeSet).clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({ instance: 'first' });
    expect(entry.error!.message).toContain('pipeline-other');
    expect(instancesTold(result.stderr)).toEqual([]);
  });
});
