// Builds (or finds in the cache) every binary the local fleet needs. Run by
// scripts/setup.mjs before tests, the demo and benchmarks.
// Each part of the fleet lists its binaries in a module exporting `ensureBinaries(log)`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repositoryRoot, type ProgressLog } from '../support/go-binary.js';

const parts = ['test/harness/fleet/binaries.ts', 'test/harness/registry/binaries.ts', 'test/cue/binaries.ts'];

interface FleetPart {
  ensureBinaries(log: ProgressLog): Promise<unknown>;
}

const quiet = process.argv.includes('--quiet');
const log: ProgressLog = (line) => {
  if (!quiet || !line.startsWith('  ')) process.stderr.write(`fleet: ${line}\n`);
};

for (const part of parts) {
  const file = join(repositoryRoot, part);
  if (!existsSync(file)) continue;
  const loaded = (await import(pathToFileURL(file).href)) as FleetPart;
  await loaded.ensureBinaries(log);
}
