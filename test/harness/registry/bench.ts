// Figures of the test registry: start-up time (spawn to first answer on /v2/) and
// resident memory per auth set-up, and the time of a module push and pull.
// `tsx test/harness/registry/bench.ts` prints them; bench/ can import benchRegistry().
import { rm } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { pullArtifact } from './pull.js';
import { startRegistry, type RegistryAuthMode } from './registry.js';
import { writeSampleModule } from './sample-module.js';
import { pushTimoniModule } from './timoni-module.js';

export interface RegistryFigure {
  name: string;
  median_ms: number;
  runs: number;
  note?: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export async function benchRegistry(runs = 5): Promise<RegistryFigure[]> {
  const figures: RegistryFigure[] = [];
  const moduleDir = await writeSampleModule();
  try {
    for (const auth of ['anonymous', 'basic', 'token'] as RegistryAuthMode[]) {
      const starts: number[] = [];
      const calls: number[] = [];
      const rss: number[] = [];
      const pushes: number[] = [];
      const pulls: number[] = [];
      for (let run = 0; run < runs; run++) {
        const called = performance.now();
        const registry = await startRegistry({ auth });
        calls.push(performance.now() - called);
        try {
          starts.push(registry.startupMs);
          let started = performance.now();
          await pushTimoniModule({
            registry: registry.url,
            repository: 'bench/sample',
            tag: '1.0.0',
            moduleDir,
            credentials: registry.credentials,
          });
          pushes.push(performance.now() - started);
          started = performance.now();
          await pullArtifact({
            registry: registry.url,
            repository: 'bench/sample',
            reference: '1.0.0',
            credentials: registry.credentials,
          });
          pulls.push(performance.now() - started);
          rss.push(registry.memoryRssBytes());
        } finally {
          await registry.stop();
        }
      }
      const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
      figures.push({
        name: `registry start (${auth})`,
        median_ms: median(starts),
        runs,
        note: `spawn to first answer; whole startRegistry() ${median(calls).toFixed(0)} ms; RSS after a push and a pull ${mib(median(rss))} (max ${mib(Math.max(...rss))})`,
      });
      figures.push({ name: `module push (${auth})`, median_ms: median(pushes), runs });
      figures.push({ name: `module pull (${auth})`, median_ms: median(pulls), runs });
    }
  } finally {
    await rm(moduleDir, { recursive: true, force: true });
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const figure of await benchRegistry()) {
    process.stdout.write(
      `${figure.name.padEnd(28)} ${figure.median_ms.toFixed(1).padStart(8)} ms  (${figure.runs} runs)  ${figure.note ?? ''}\n`,
    );
  }
}
