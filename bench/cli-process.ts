// What a user waits for at a prompt or in a CI step: the whole `timoni-fleet` process
// (start, CUE engine start, evaluation, exit), on a module with the Kubernetes schemas
// (test/cue/fixtures/k8s-app, `cue.mod/gen` from k8s.io/api): `vet` and `build` of a
// bundle with 1 and with 3 instances of it. In-process benchmarks cannot see what happens
// around the work (the process start, and the exit: the CUE engine's Go runtime keeps
// timers that held every run for about a second until the entry points ended the process
// themselves). Median of 5 runs each, and the peak memory of the process.
//
// With a Timoni CLI on PATH (or TIMONI_BIN), `timoni bundle vet|build` runs on the same
// bundle and the ratio is printed; none can be built on the development machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { median, type BenchResult } from './result.js';

const RUNS = 5;
const MODULE = join(repositoryRoot, 'test', 'cue', 'fixtures', 'k8s-app');
const CLI = join(repositoryRoot, 'dist', 'cli', 'index.js');

function bundle(instances: number): string {
  const entries = Array.from(
    { length: instances },
    (_, i) => `\t\t"app-${i}": {module: url: "file://${MODULE}", namespace: "ns-${i}", values: replicas: ${i + 1}}`,
  );
  return `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "bench-cli"\n\tinstances: {\n${entries.join('\n')}\n\t}\n}\n`;
}

interface ProcessRun {
  wallMs: number;
  peakMiB: number;
}

/** Runs a command under /usr/bin/time when present (peak memory), else times it alone. */
function timed(command: string, args: string[], cwd: string): ProcessRun {
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { cwd, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (result.error) {
    const plain = spawnSync(command, args, { cwd, encoding: 'utf8' });
    if (plain.status !== 0) throw new Error(`bench: ${command} ${args.join(' ')} failed: ${plain.stderr}`);
    return { wallMs: performance.now() - started, peakMiB: Number.NaN };
  }
  if (result.status !== 0)
    throw new Error(`bench: ${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  const kib = Number(result.stderr.trim().split('\n').pop());
  return { wallMs, peakMiB: kib / 1024 };
}

function timoniBinary(): string | undefined {
  if (process.env.TIMONI_BIN) return process.env.TIMONI_BIN;
  const which = spawnSync('sh', ['-c', 'command -v timoni'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

export async function benchCliProcess(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  const timoni = timoniBinary();
  const results: BenchResult[] = [];
  try {
    for (const instances of [1, 3]) {
      const file = `bundle-${instances}.cue`;
      writeFileSync(join(dir, file), bundle(instances));
      for (const command of ['vet', 'build'] as const) {
        const args = [CLI, command, '-f', file, '--allow-path', MODULE];
        timed(process.execPath, args, dir); // warm-up (file cache)
        const runs = Array.from({ length: RUNS }, () => timed(process.execPath, args, dir));
        const wall = median(runs.map((r) => r.wallMs));
        let note = `whole process, ${instances} instance(s) of k8s-app; peak ${median(runs.map((r) => r.peakMiB)).toFixed(0)} MiB`;
        if (timoni) {
          const native = Array.from({ length: RUNS }, () => timed(timoni, ['bundle', command, '-f', file], dir));
          note += `; timoni ${median(native.map((r) => r.wallMs)).toFixed(0)} ms, ratio ${(wall / median(native.map((r) => r.wallMs))).toFixed(2)}x`;
        } else {
          note += '; no timoni on PATH or TIMONI_BIN: no ratio';
        }
        results.push({
          name: `cli ${command}, ${instances} k8s-schema instance(s)`,
          median_ms: wall,
          runs: RUNS,
          note,
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
