// The fleet diff as a user waits for it: `timoni-fleet diff` (the CLI's code path, run
// in-process) over a local fleet of 3 real clusters, a bundle of 3 instances of the example
// module pulled from a real registry. Timed before the first apply (every object created)
// and after it (everything unchanged), with the peak memory of this process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli/dispatch.js';
import { startFleet } from '../test/harness/fleet/fleet.js';
import { pushTimoniModule, startRegistry } from '../test/harness/registry/index.js';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { median, type BenchResult } from './result.js';

const RUNS = 5;
const CLUSTERS = 3;
const INSTANCES = ['web-a', 'web-b', 'web-c'];
const MODULE_VERSION = '1.4.0';

/** A bundle of 3 instances of the example module, each in its own namespace. */
export function benchBundle(registryHost: string): string {
  const instances = INSTANCES.map(
    (name) => `\t\t"${name}": {
\t\t\tmodule: {url: "oci://${registryHost}/modules/webapp", version: "${MODULE_VERSION}"}
\t\t\tnamespace: "bench-${name}"
\t\t\tvalues: {message: "\\(_cluster) ${name}", test: enabled: false}
\t\t}`,
  );
  return `bundle: {
\t_cluster: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
\tapiVersion: "v1alpha1"
\tname: "bench-fleet"
\tinstances: {
${instances.join('\n')}
\t}
}
`;
}

/** A runtime naming the fleet's clusters by their contexts (fleet-1..N), in order. */
export function benchRuntime(contexts: string[]): string {
  const clusters = contexts.map(
    (context, index) =>
      `\t\t"cluster-${index + 1}": {group: "${index === 0 ? 'staging' : 'production'}", kubeContext: "${context}"}`,
  );
  return `runtime: {
\tapiVersion: "v1alpha1"
\tname: "bench"
\tclusters: {
${clusters.join('\n')}
\t}
}
`;
}

interface CliRun {
  code: number;
  ms: number;
  stderr: string;
}

async function cli(argv: string[], cwd: string): Promise<CliRun> {
  let stderr = '';
  const started = performance.now();
  const code = await runCli(argv, {
    cwd,
    env: {},
    stdout: () => undefined,
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, ms: performance.now() - started, stderr };
}

/** Diffs the fleet RUNS times; every run must exit with `expected` (1 drift, 0 in sync). */
async function timeDiffs(argv: string[], cwd: string, expected: number): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const result = await cli(['diff', ...argv], cwd);
    if (result.code !== expected)
      throw new Error(`bench fleet: diff exited ${result.code}, expected ${expected}:\n${result.stderr}`);
    times.push(result.ms);
  }
  return times;
}

export async function benchFleet(): Promise<BenchResult[]> {
  const fleet = await startFleet({ clusters: CLUSTERS });
  const workdir = mkdtempSync(join(tmpdir(), 'timoni-fleet-bench-'));
  const registry = await startRegistry({ auth: 'anonymous' });
  try {
    await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/webapp',
      tag: MODULE_VERSION,
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    });
    writeFileSync(join(workdir, 'bundle.cue'), benchBundle(registry.host));
    writeFileSync(join(workdir, 'runtime.cue'), benchRuntime(fleet.clusters.map((c) => c.contextName)));
    writeFileSync(join(workdir, 'kubeconfig'), readFileSync(fleet.kubeconfigPath, 'utf8'), { mode: 0o600 });
    const argv = ['-f', 'bundle.cue', '-r', 'runtime.cue', '--kubeconfig', 'kubeconfig'];

    const before = await timeDiffs(argv, workdir, 1);
    // Readiness is not what is measured here: the fleet runs no workloads.
    const apply = await cli(['apply', ...argv, '--wait=false'], workdir);
    if (apply.code !== 0) throw new Error(`bench fleet: apply exited ${apply.code}:\n${apply.stderr}`);
    const after = await timeDiffs(argv, workdir, 0);
    const maxRssMiB = process.resourceUsage().maxRSS / 1024;

    const shape = `${CLUSTERS} clusters x ${INSTANCES.length} instances`;
    const noRatio =
      'no ratio to `timoni bundle apply --dry-run --diff`: the Timoni CLI cannot be built here (its Go module is refused by the module proxy, and fetched sources may not be built by committed scripts)';
    return [
      {
        name: `fleet diff before apply (${shape}, all created)`,
        median_ms: median(before),
        runs: before.length,
        note: `CLI diff in-process, 1st run incl. module pull: ${before[0]!.toFixed(0)} ms; ${noRatio}`,
      },
      {
        name: `fleet diff after apply (${shape}, unchanged)`,
        median_ms: median(after),
        runs: after.length,
        note: `one apply (--wait=false) took ${apply.ms.toFixed(0)} ms`,
      },
      {
        name: 'fleet diff: peak memory (maxRSS of this process)',
        median_ms: maxRssMiB,
        unit: 'MiB',
        runs: 1,
        note: `peak resident memory of the bench process (benches run before it in the same process count too), after ${2 * RUNS} diffs and one apply`,
      },
    ];
  } finally {
    await registry.stop().catch(() => undefined);
    await fleet.stop();
    rmSync(workdir, { recursive: true, force: true });
  }
}
