// The scale users hit: the PR diff of a bundle of 10 instances on 50 clusters (staging 2,
// canary 4, production 44), as the whole `timoni-fleet diff -o json` process, on a local
// fleet of 3 real API servers carrying 17 contexts each (test/harness/fleet
// `contextsPerCluster`; each runtime cluster its own context, the runtime clusters spread
// over the servers). The bundle puts each cluster's instances in namespaces of their own
// (`web-N-<cluster>`, from TIMONI_CLUSTER_NAME), so that clusters sharing a server do not
// share objects. Module: the example module (examples/modules/webapp) as a local file
// module. Every run passes `--prune-removed-instances=false`: on a shared server the
// instances of the clusters beside it look like instances removed from the bundle (same
// bundle, namespaces not this cluster's), and an apply would delete them.
//
// Two diffs, each the median of RUNS runs: before the first apply (every object created),
// and after one `apply --wait=false` of the whole fleet, of the next release (a new image
// tag everywhere, and on production-17 one more replica: the cluster out of line). For
// each: wall time, CPU and peak memory of the process and its native CUE engine, and the
// PR comment rendered from its ChangeSet (src/report): its size, the rows of its table,
// and whether the table names all 50 clusters. Goals (issue 13): under 60 s and 1 GiB on
// a 2-core runner, the comment under 65,536 characters with the table complete.
//
// The CLI measured is dist/cli/index.js, or TIMONI_FLEET_CLI; runs per figure: BENCH_RUNS (3).
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChangeSet } from '../src/changeset.js';
import { COMMENT_LIMIT } from '../src/github/limits.js';
import { renderPullRequestComment } from '../src/report/comment.js';
import { startFleet } from '../test/harness/fleet/fleet.js';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { measureProcess, type ProcessUsage } from './process-usage.js';
import { median, type BenchResult } from './result.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SERVERS = 3;
const INSTANCES = 10;
const GROUPS = [
  { group: 'staging', count: 2 },
  { group: 'canary', count: 4 },
  { group: 'production', count: 44 },
];
const OUT_OF_LINE = 'production-17';

/** The runtime cluster names, in runtime order: staging-1, staging-2, canary-1 ... production-44. */
function clusterNames(): Array<{ name: string; group: string }> {
  return GROUPS.flatMap(({ group, count }) =>
    Array.from({ length: count }, (_, i) => ({
      name: `${group}-${count > 9 ? String(i + 1).padStart(2, '0') : i + 1}`,
      group,
    })),
  );
}

function runtime(contexts: readonly string[]): string {
  const clusters = clusterNames().map(
    (cluster, i) => `\t\t"${cluster.name}": {group: "${cluster.group}", kubeContext: "${contexts[i]}"}`,
  );
  return `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "scale"\n\tclusters: {\n${clusters.join('\n')}\n\t}\n}\n`;
}

/** Ten instances of the module per cluster, in the cluster's own namespaces; `release` 2 is the PR after the first apply. */
function bundle(moduleDir: string, release: 1 | 2): string {
  const tag = release === 1 ? '1.4.0' : '1.5.0';
  const entries = Array.from(
    { length: INSTANCES },
    (_, i) => `\t\t"web-${i + 1}": {
\t\t\tmodule: url: "file://${moduleDir}"
\t\t\tnamespace: "web-${i + 1}-\\(_cluster.name)"
\t\t\tvalues: {
\t\t\t\tmessage: "web-${i + 1} on \\(_cluster.group)"
\t\t\t\timage: tag: "${tag}"
\t\t\t\tif _cluster.group == "production" {ingress: {enabled: true, host: "web-${i + 1}.example.com"}}
\t\t\t\tif _cluster.group == "production" && _cluster.name != "${release === 2 ? OUT_OF_LINE : ''}" {replicas: 3}
${release === 2 ? `\t\t\t\tif _cluster.name == "${OUT_OF_LINE}" {replicas: 4}\n` : ''}\t\t\t\tif _cluster.group == "canary" {replicas: 2}
\t\t\t\ttest: enabled: false
\t\t\t}
\t\t}`,
  );
  return `bundle: {
\t_cluster: {
\t\tname:  string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
\t\tgroup: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
\t}
\tapiVersion: "v1alpha1"
\tname: "scale"
\tinstances: {
${entries.join('\n')}
\t}
}
`;
}

interface CommentFigures {
  chars: number;
  rows: number;
  /** Cluster names found in the table. */
  named: number;
  tableCut: boolean;
  renderMs: number;
}

/** Renders the PR comment of a `diff -o json` output, keeps it in `keepAs` (to look at) and measures it. */
function commentFigures(stdout: string, keepAs: string): CommentFigures {
  const changeSet = JSON.parse(stdout) as ChangeSet;
  const started = performance.now();
  const body = renderPullRequestComment(changeSet, {
    commitSha: '0123456789abcdef0123456789abcdef01234567',
    repository: 'acme/fleet',
    runUrl: 'https://github.com/acme/fleet/actions/runs/1',
    secrets: [],
  });
  const renderMs = performance.now() - started;
  writeFileSync(keepAs, body);
  const start = body.indexOf('| Cluster |');
  const table = body.slice(start, body.indexOf('\n\n', start));
  const rows = table.split('\n').length - 2;
  const names = new Set(changeSet.clusters.map((cluster) => cluster.name));
  const named = new Set(
    [...table.matchAll(/<code>([^<]+)<\/code>/g)]
      .map((match) => match[1])
      .filter((name) => name !== undefined && names.has(name)),
  ).size;
  return { chars: body.length, rows, named, tableCut: body.includes('The cluster table was cut'), renderMs };
}

function figures(what: string, runs: ProcessUsage[], comment: CommentFigures, clusters: number): BenchResult[] {
  const wall = median(runs.map((r) => r.wallMs));
  const peak = median(runs.map((r) => r.peakMiB));
  const note =
    `${wall.toFixed(0)} ms wall, ${median(runs.map((r) => r.cpuMs)).toFixed(0)} ms CPU, peak ${peak.toFixed(0)} MiB ` +
    `(engine child: ${median(runs.map((r) => r.helperCpuMs)).toFixed(0)} ms CPU, ${median(runs.map((r) => r.helperPeakMiB)).toFixed(0)} MiB); goals 60 s: ${wall < 60_000 ? 'met' : 'MISSED'}, 1 GiB: ${peak < 1024 ? 'met' : 'MISSED'}`;
  const complete = comment.named === clusters && !comment.tableCut;
  return [
    { name: `diff 50x10, ${what}`, median_ms: wall, runs: runs.length, note },
    {
      name: `diff 50x10, ${what}: peak memory`,
      median_ms: peak,
      unit: 'MiB',
      runs: runs.length,
      note: 'process + native CUE engine',
    },
    {
      name: `diff 50x10, ${what}: PR comment`,
      median_ms: comment.chars,
      unit: 'chars',
      runs: 1,
      note: `limit ${COMMENT_LIMIT}: ${comment.chars < COMMENT_LIMIT ? 'under' : 'OVER'}; table ${comment.rows} rows naming ${comment.named} of ${clusters} clusters (${complete ? 'complete' : 'INCOMPLETE'}); rendered in ${comment.renderMs.toFixed(0)} ms`,
    },
  ];
}

/**
 * Writes the runtime (`runtime.cue`, its clusters on `contexts` in order), the two releases
 * of the bundle (`release-1.cue`, `release-2.cue`) and the module (`webapp/`) into `work`.
 */
export function writeScaleFiles(work: string, contexts: readonly string[]): void {
  const clusters = clusterNames();
  if (contexts.length < clusters.length)
    throw new Error(`bench fleet-scale: ${clusters.length} contexts needed, the fleet has ${contexts.length}`);
  const moduleDir = join(work, 'webapp');
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), moduleDir, { recursive: true });
  writeFileSync(join(work, 'runtime.cue'), runtime(contexts.slice(0, clusters.length)));
  writeFileSync(join(work, 'release-1.cue'), bundle(moduleDir, 1));
  writeFileSync(join(work, 'release-2.cue'), bundle(moduleDir, 2));
}

export async function benchFleetScale(): Promise<BenchResult[]> {
  const cli = process.env.TIMONI_FLEET_CLI ?? join(repositoryRoot, 'dist', 'cli', 'index.js');
  if (!existsSync(cli))
    throw new Error(`bench fleet-scale: no CLI at ${cli}; run npm run build or set TIMONI_FLEET_CLI`);
  const clusters = clusterNames();
  const perServer = Math.ceil(clusters.length / SERVERS);
  const log = (line: string) => process.stderr.write(`bench fleet-scale: ${line}\n`);
  const fleet = await startFleet({ clusters: SERVERS, contextsPerCluster: perServer, log });
  const work = mkdtempSync(join(tmpdir(), 'timoni-fleet-bench-scale-'));
  const results: BenchResult[] = [];
  try {
    writeScaleFiles(work, fleet.contexts);
    const env = { ...process.env, HOME: join(work, 'home') };
    const files = (release: 1 | 2) => [
      '-f',
      `release-${release}.cue`,
      '-r',
      'runtime.cue',
      '--kubeconfig',
      fleet.kubeconfigPath,
      '--prune-removed-instances=false',
    ];
    const run = async (what: string, args: string[], codes: number[]) => {
      const usage = await measureProcess(process.execPath, [cli, ...args], { cwd: work, env });
      if (!codes.includes(usage.code))
        throw new Error(`bench fleet-scale: ${what} exited ${usage.code}:\n${usage.stderr.slice(-3000)}`);
      log(`${what}: ${(usage.wallMs / 1000).toFixed(1)} s, peak ${usage.peakMiB.toFixed(0)} MiB`);
      return usage;
    };
    const measured = async (what: string, release: 1 | 2, keepAs: string) => {
      const runs: ProcessUsage[] = [];
      for (let i = 0; i < RUNS; i += 1)
        runs.push(await run(`${what} (run ${i + 1} of ${RUNS})`, ['diff', ...files(release), '-o', 'json'], [1]));
      const last = runs[runs.length - 1] as ProcessUsage;
      const comment = join(tmpdir(), keepAs);
      results.push(...figures(what, runs, commentFigures(last.stdout, comment), clusters.length));
      log(`the PR comment of "${what}": ${comment}`);
    };

    await measured('before the first apply (every object created)', 1, 'timoni-fleet-scale-comment-1.md');
    const apply = await run('apply of release 1 to the 50 clusters', ['apply', ...files(1), '--wait=false'], [0]);
    results.push({
      name: 'apply 50x10 (--wait=false, one after the other)',
      median_ms: apply.wallMs,
      runs: 1,
      note: `${apply.cpuMs.toFixed(0)} ms CPU, peak ${apply.peakMiB.toFixed(0)} MiB`,
    });
    await measured(`next release (new tag; ${OUT_OF_LINE} out of line)`, 2, 'timoni-fleet-scale-comment-2.md');
  } finally {
    await fleet.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}
