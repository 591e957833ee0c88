// `npm run bench`: runs every benchmark of the project and prints its figures as a table
// (and as JSON with --json). Each area exports a `bench*()` function from its own file.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface BenchFigure {
  name: string;
  median_ms: number;
  runs: number;
  note?: string;
  unit?: string;
}

const benches: Array<{ file: string; exportName: string }> = [
  { file: 'cue.ts', exportName: 'benchCue' },
  { file: 'module.ts', exportName: 'benchModule' },
  { file: 'cli-process.ts', exportName: 'benchCliProcess' },
  { file: 'fleet.ts', exportName: 'benchFleet' },
  { file: 'action.ts', exportName: 'benchAction' },
  { file: 'fleet-real.ts', exportName: 'benchFleetReal' },
  { file: 'fleet-scale.ts', exportName: 'benchFleetScale' },
];

const here = dirname(fileURLToPath(import.meta.url));
const figures: BenchFigure[] = [];
// `npm run bench -- fleet-real cue` runs only the named benchmarks (file names without .ts).
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
for (const bench of benches) {
  if (only.length > 0 && !only.includes(bench.file.replace(/\.ts$/, ''))) continue;
  const file = join(here, bench.file);
  if (!existsSync(file)) continue;
  const loaded = (await import(pathToFileURL(file).href)) as Record<string, () => Promise<BenchFigure[]>>;
  const run = loaded[bench.exportName];
  if (!run) throw new Error(`bench/${bench.file} does not export ${bench.exportName}`);
  process.stderr.write(`bench: running ${bench.file}\n`);
  figures.push(...(await run()));
}

if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} else {
  const width = Math.max(...figures.map((f) => f.name.length), 10);
  process.stdout.write(`${'benchmark'.padEnd(width)}  ${'median'.padStart(12)}  runs  note\n`);
  for (const figure of figures) {
    process.stdout.write(
      `${figure.name.padEnd(width)}  ${`${figure.median_ms.toFixed(1)} ${figure.unit ?? 'ms'}`.padStart(12)}  ${String(figure.runs).padStart(4)}  ${figure.note ?? ''}\n`,
    );
  }
}
