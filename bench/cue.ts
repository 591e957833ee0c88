// Benchmarks of the CUE engine (cuelang.org/go v0.17.1 in WebAssembly) against the native
// cue CLI of the same version, on the Kubernetes module fixture (test/cue/fixtures/k8s-app,
// full core/v1 and apps/v1 schemas).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { loadCueEngine } from '../src/cue/index.js';
import { TIER_UP_VARIABLE } from '../src/cue/wasm-runtime.js';
import { ensureBinaries } from '../test/cue/binaries.js';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { fixturesDir, readFixture } from '../test/cue/fixture-files.js';
import { K8S_MODULE_CLI_ARGS, K8S_MODULE_LOAD } from './cue-workload.js';
import { median, type BenchResult } from './result.js';

const run = promisify(execFile);
const COLD_RUNS = 5;
const WARM_RUNS = 9;

interface ColdRun {
  startMs: number;
  loadExportMs: number;
  totalMs: number;
}

async function coldRun(tierUp: boolean): Promise<ColdRun> {
  const tsx = join(repositoryRoot, 'node_modules', '.bin', 'tsx');
  const env = { ...process.env, [TIER_UP_VARIABLE]: tierUp ? '1' : '0' };
  const { stderr } = await run(tsx, [join(repositoryRoot, 'bench', 'cue-child.ts')], {
    cwd: repositoryRoot,
    env,
    timeout: 300_000,
  });
  const line = stderr.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`the cold-start child printed no figures:\n${stderr}`);
  return JSON.parse(line) as ColdRun;
}

async function warmLoadExport(): Promise<number[]> {
  const engine = await loadCueEngine();
  const files = readFixture('k8s-app');
  const times: number[] = [];
  for (let i = 0; i < WARM_RUNS + 1; i++) {
    const started = performance.now();
    const root = engine.load({ files, ...K8S_MODULE_LOAD });
    const objects = root.lookup('timoni.apply.app');
    objects.toJSON();
    const elapsed = performance.now() - started;
    objects.free();
    root.free();
    if (i > 0) times.push(elapsed); // the first run warms the engine up
  }
  return times;
}

async function nativeExport(): Promise<number[]> {
  const { cue } = await ensureBinaries((line) => process.stderr.write(`${line}\n`));
  const cwd = join(fixturesDir, 'k8s-app');
  const times: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const started = performance.now();
    const { stdout } = await run(cue, K8S_MODULE_CLI_ARGS, { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    times.push(performance.now() - started);
    if ((JSON.parse(stdout) as unknown[]).length !== 2)
      throw new Error('the native cue CLI did not export the 2 objects of the module');
  }
  return times;
}

export async function benchCue(): Promise<BenchResult[]> {
  const cold: ColdRun[] = [];
  const coldTierUp: ColdRun[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    cold.push(await coldRun(false));
    coldTierUp.push(await coldRun(true));
  }
  const warm = await warmLoadExport();
  const native = await nativeExport();

  const coldTotal = median(cold.map((c) => c.totalMs));
  const nativeTotal = median(native);
  const warmMedian = median(warm);
  return [
    {
      name: 'cue wasm: cold start (instantiate to first result)',
      median_ms: median(cold.map((c) => c.startMs)),
      runs: cold.length,
      note: 'fresh Node process each run; read + gunzip + compile + start of cue.wasm',
    },
    {
      name: 'cue wasm: load + export k8s module (warm engine)',
      median_ms: warmMedian,
      runs: warm.length,
      note: `k8s-app fixture, full core/v1 + apps/v1 schemas; ${(warmMedian / nativeTotal).toFixed(2)}x the native CLI's whole run`,
    },
    {
      name: 'cue wasm: cold start + load + export k8s module',
      median_ms: coldTotal,
      runs: cold.length,
      note: `fresh Node process each run (Node start-up not counted); ${(coldTotal / nativeTotal).toFixed(2)}x native`,
    },
    {
      name: 'cue wasm: cold start + load + export, V8 tier-up on',
      median_ms: median(coldTierUp.map((c) => c.totalMs)),
      runs: coldTierUp.length,
      note: `${TIER_UP_VARIABLE}=1: V8 recompiles hot code with TurboFan (the engine keeps to Liftoff by default)`,
    },
    {
      name: 'cue native CLI v0.17.1: export k8s module',
      median_ms: nativeTotal,
      runs: native.length,
      note: 'fresh process each run, process start-up included',
    },
  ];
}
