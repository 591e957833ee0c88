// What users run, on modules shaped like the real ones: `timoni-fleet diff`, `build` and
// `vet` as whole processes on a bundle of the podinfo-shaped module (Kubernetes schemas in
// cue.mod/gen, a test Job hashing its config with uuid.SHA1 + yaml.Marshal), pulled from a
// real OCI registry, on a local fleet of real clusters: 3 clusters x 3 instances and
// 8 clusters x 5 instances, values per cluster group. Each figure is the median of RUNS
// runs: wall time, CPU (the process and its native CUE engine) and peak memory (the same
// two). `diff` runs before the first apply (every object new) and once the fleet is in
// sync (after one `apply --wait=false`), and the 3 x 3 one in sync once more with every
// cluster 20 ms of round trip away (far-clusters.ts). The CPU the fleet's API servers and etcd spend
// during each run is printed too: they share the machine's cores, so their CPU and the
// run's own set a floor under its wall time that no overlap inside the run can beat.
//
// With a Timoni CLI (TIMONI_BIN, or `timoni` on PATH) the same work runs with it, paired
// (ours, Timoni's, ours, ...): `timoni bundle apply --dry-run --diff`, `bundle build`,
// `bundle vet`, and the ratios are printed; without one, the notes say no ratio was measured.
// The CLI measured is dist/cli/index.js, or TIMONI_FLEET_CLI (a build of the current
// sources: `node scripts/build.mjs --out /tmp/x` then TIMONI_FLEET_CLI=/tmp/x/cli/index.js).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startNative } from '../src/cue/native-runtime.js';
import { fleetStatus, startFleet } from '../test/harness/fleet/fleet.js';
import { pushTimoniModule, startRegistry } from '../test/harness/registry/index.js';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { farClusters } from './far-clusters.js';
import { podinfoShapedModule } from './podinfo-module.js';
import { measureProcess, type ProcessUsage } from './process-usage.js';
import { median, type BenchResult } from './result.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MODULE_VERSION = '6.7.1';
const SHAPES = [
  { clusters: 3, instances: 3 },
  { clusters: 8, instances: 5 },
];
/** The round trip to each cluster in the runs with far clusters (a runner to a cloud region). */
const FAR_ROUND_TRIP_MS = 20;

/** A bundle of `instances` instances of the module, values per cluster group. */
function bundle(name: string, registryHost: string, instances: number): string {
  const entries = Array.from(
    { length: instances },
    (_, i) => `\t\t"web-${i + 1}": {
\t\t\tmodule: {url: "oci://${registryHost}/modules/podinfo", version: "${MODULE_VERSION}"}
\t\t\tnamespace: "${name}-${i + 1}"
\t\t\tvalues: {
\t\t\t\tmessage: "\\(_group) web-${i + 1}"
\t\t\t\tif _group == "production" {replicas: 2, resources: requests: cpu: "50m"}
\t\t\t\ttest: enabled: _group == "staging"
\t\t\t}
\t\t}`,
  );
  return `bundle: {
\t_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
\tapiVersion: "v1alpha1"
\tname: "${name}"
\tinstances: {
${entries.join('\n')}
\t}
}
`;
}

/** A bundle of one instance with fixed values (for `build`, which has no runtime). */
function oneInstance(registryHost: string): string {
  return `bundle: {
\tapiVersion: "v1alpha1"
\tname: "real-one"
\tinstances: "web": {
\t\tmodule: {url: "oci://${registryHost}/modules/podinfo", version: "${MODULE_VERSION}"}
\t\tnamespace: "real-one"
\t\tvalues: {message: "one", replicas: 2, test: enabled: true}
\t}
}
`;
}

/** The first `count` clusters of the fleet; the first is staging, the others production. */
function runtime(contexts: string[]): string {
  const clusters = contexts.map(
    (context, i) =>
      `\t\t"cluster-${i + 1}": {group: "${i === 0 ? 'staging' : 'production'}", kubeContext: "${context}"}`,
  );
  return `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "bench"\n\tclusters: {\n${clusters.join('\n')}\n\t}\n}\n`;
}

function timoniBinary(): string | undefined {
  if (process.env.TIMONI_BIN) return process.env.TIMONI_BIN;
  const which = spawnSync('sh', ['-c', 'command -v timoni'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A measured run with the CPU the fleet's API servers and etcd spent meanwhile. */
type Run = ProcessUsage & { serversCpuMs: number };

interface Paired {
  ours: Run[];
  theirs: Run[];
}

/** CPU (user + system) the processes spent so far, in ms, from /proc (ticks of 10 ms). */
function cpuOfProcesses(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone: its CPU is not counted.
    }
  }
  return ticks * 10;
}

function summary(runs: ProcessUsage[]): string {
  return `${median(runs.map((r) => r.wallMs)).toFixed(0)} ms wall, ${median(runs.map((r) => r.cpuMs)).toFixed(0)} ms CPU, ${median(runs.map((r) => r.peakMiB)).toFixed(0)} MiB`;
}

function result(name: string, paired: Paired, extra = ''): BenchResult {
  const wall = median(paired.ours.map((r) => r.wallMs));
  let note = `${summary(paired.ours)} (engine child: ${median(paired.ours.map((r) => r.helperCpuMs)).toFixed(0)} ms CPU, ${median(paired.ours.map((r) => r.helperPeakMiB)).toFixed(0)} MiB)`;
  const servers = median(paired.ours.map((r) => r.serversCpuMs));
  if (servers > 0) {
    // The API servers share this machine's cores: no run ends before all the CPU it causes
    // (its own and theirs) could have been spent on every core at once.
    const floor = (median(paired.ours.map((r) => r.cpuMs)) + servers) / availableParallelism();
    note += `; API servers + etcd meanwhile ${servers.toFixed(0)} ms CPU (wall floor on ${availableParallelism()} cores ${floor.toFixed(0)} ms)`;
  }
  if (paired.theirs.length > 0) {
    const theirs = median(paired.theirs.map((r) => r.wallMs));
    const ratio = (key: 'wallMs' | 'cpuMs' | 'peakMiB') =>
      (median(paired.ours.map((r) => r[key])) / median(paired.theirs.map((r) => r[key]))).toFixed(2);
    note += `; timoni ${summary(paired.theirs)}${servers > 0 ? ` (API servers + etcd ${median(paired.theirs.map((r) => r.serversCpuMs)).toFixed(0)} ms CPU)` : ''}; ratio wall ${(wall / theirs).toFixed(2)}x, CPU ${ratio('cpuMs')}x, memory ${ratio('peakMiB')}x`;
  } else {
    note += '; no Timoni CLI (TIMONI_BIN or timoni on PATH): no ratio measured';
  }
  return { name, median_ms: wall, runs: paired.ours.length, note: `${note}${extra}` };
}

export async function benchFleetReal(): Promise<BenchResult[]> {
  const cli = process.env.TIMONI_FLEET_CLI ?? join(repositoryRoot, 'dist', 'cli', 'index.js');
  if (!existsSync(cli))
    throw new Error(`bench fleet-real: no CLI at ${cli}; run npm run build or set TIMONI_FLEET_CLI`);
  const dist = dirname(dirname(cli));
  const timoni = timoniBinary();
  const results: BenchResult[] = [];

  // What the CLI ships and how fast its engine starts.
  const sizes = ['cue.wasm.gz', 'native']
    .filter((n) => existsSync(join(dist, n)))
    .map((n) => `${n} ${mib(sizeOf(join(dist, n)))}`);
  results.push({
    name: 'dist/ size',
    median_ms: sizeOf(dist) / 1024 / 1024,
    unit: 'MiB',
    runs: 1,
    note: `${dist}: ${sizes.join(', ')}`,
  });
  // The first start of an artifact unpacks its program (as every start does without a usable cache folder); later ones run the cached program.
  for (const [what, cacheDir] of [
    ['unpacked for the run', null],
    ['program cached', undefined],
  ] as const) {
    const starts: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const t = performance.now();
      const native = await startNative({ cacheDir });
      native.bridge('version', '{}');
      starts.push(performance.now() - t);
      native.stop();
    }
    results.push({
      name: `native CUE engine start (${what}, start, first answer)`,
      median_ms: median(starts),
      runs: RUNS,
      note: 'in-process; the WebAssembly engine takes 0.5-2 s',
    });
  }

  const fleet = await startFleet({
    clusters: Math.max(...SHAPES.map((s) => s.clusters)),
    log: (line) => process.stderr.write(`bench fleet-real: ${line}\n`),
  });
  const registry = await startRegistry({ auth: 'anonymous' });
  const work = mkdtempSync(join(tmpdir(), 'timoni-fleet-bench-real-'));
  const moduleDir = podinfoShapedModule();
  try {
    await pushTimoniModule({ registry: registry.url, repository: 'modules/podinfo', tag: MODULE_VERSION, moduleDir });
    writeFileSync(join(work, 'kubeconfig'), readFileSync(fleet.kubeconfigPath, 'utf8'), { mode: 0o600 });
    const env = { ...process.env, HOME: join(work, 'home') };
    const serverPids = ((await fleetStatus(fleet.dir))?.clusters ?? []).flatMap((cluster) =>
      cluster.components.map((component) => component.pid),
    );
    const withServers = async (run: () => Promise<ProcessUsage>): Promise<Run> => {
      const before = cpuOfProcesses(serverPids);
      const usage = await run();
      return { ...usage, serversCpuMs: cpuOfProcesses(serverPids) - before };
    };
    const ours = (args: string[]) =>
      withServers(() => measureProcess(process.execPath, [cli, ...args], { cwd: work, env }));
    const theirs = (args: string[]) =>
      withServers(() =>
        measureProcess(timoni!, ['--registry-insecure', '--cache-dir', join(work, 'timoni-cache'), ...args], {
          cwd: work,
          env,
        }),
      );
    const expect = (what: string, run: Run, codes: number[]) => {
      if (!codes.includes(run.code))
        throw new Error(`bench fleet-real: ${what} exited ${run.code}:\n${run.stderr.slice(-3000)}`);
      return run;
    };
    const paired = async (
      what: string,
      ourArgs: string[],
      ourCodes: number[],
      timoniArgs: string[],
    ): Promise<Paired> => {
      const out: Paired = { ours: [], theirs: [] };
      // One unmeasured run each first: module caches filled, files in the page cache.
      expect(what, await ours(ourArgs), ourCodes);
      if (timoni) expect(`timoni ${what}`, await theirs(timoniArgs), [0]);
      for (let i = 0; i < RUNS; i += 1) {
        out.ours.push(expect(what, await ours(ourArgs), ourCodes));
        if (timoni) out.theirs.push(expect(`timoni ${what}`, await theirs(timoniArgs), [0]));
      }
      return out;
    };

    for (const shape of SHAPES) {
      const name = `real-${shape.clusters}x${shape.instances}`;
      const label = `${shape.clusters} clusters x ${shape.instances} instances`;
      writeFileSync(join(work, `${name}.cue`), bundle(name, registry.host, shape.instances));
      writeFileSync(
        join(work, `${name}-runtime.cue`),
        runtime(fleet.clusters.slice(0, shape.clusters).map((c) => c.contextName)),
      );
      const files = ['-f', `${name}.cue`, '-r', `${name}-runtime.cue`, '--kubeconfig', 'kubeconfig'];
      const timoniDiff = ['bundle', 'apply', '--dry-run', '--diff', ...files];

      const before = await paired(`diff ${label}`, ['diff', ...files], [1], timoniDiff);
      results.push(result(`diff ${label}, before the first apply`, before));
      expect(`apply ${label}`, await ours(['apply', ...files, '--wait=false']), [0]);
      const inSync = await paired(`diff ${label} in sync`, ['diff', ...files], [0], timoniDiff);
      results.push(result(`diff ${label}, in sync`, inSync));

      if (shape === SHAPES[0]) {
        // The same diff with the clusters far away: their round trips overlap the CUE evaluation.
        const far = await farClusters(join(work, 'kubeconfig'), join(work, 'kubeconfig-far'), FAR_ROUND_TRIP_MS);
        try {
          const farFiles = ['-f', `${name}.cue`, '-r', `${name}-runtime.cue`, '--kubeconfig', 'kubeconfig-far'];
          const farDiff = await paired(
            `diff ${label} in sync, far clusters`,
            ['diff', ...farFiles],
            [0],
            ['bundle', 'apply', '--dry-run', '--diff', ...farFiles],
          );
          results.push(result(`diff ${label}, in sync, ${FAR_ROUND_TRIP_MS} ms round trip to each cluster`, farDiff));
        } finally {
          await far.close();
        }
        writeFileSync(join(work, 'one.cue'), oneInstance(registry.host));
        const build = await paired('build', ['build', '-f', 'one.cue'], [0], ['bundle', 'build', '-f', 'one.cue']);
        results.push(result('build of one instance (whole process)', build));
        const vet = await paired('vet', ['vet', ...files], [0], ['bundle', 'vet', ...files]);
        results.push(result(`vet of the ${label} bundle (whole process)`, vet));
      }
    }
  } finally {
    await registry.stop().catch(() => undefined);
    await fleet.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(dirname(moduleDir), { recursive: true, force: true });
  }
  return results;
}
