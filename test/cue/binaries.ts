// The native cue CLI (cuelang.org/go v0.17.1, the engine's own version), built from
// bench/cue-cli: the oracle of test/cue/shim/load.test.ts and the reference of
// `npm run bench`. Built with the fleet's binaries before tests (test/harness/fleet/build.ts).
import { ensureGoBinary, type GoBinary, type ProgressLog } from '../harness/support/go-binary.js';

export const cueCli: GoBinary = {
  name: 'cue',
  version: 'v0.17.1',
  moduleDir: 'bench/cue-cli',
  packagePath: 'cuelang.org/go/cmd/cue',
  usualMinutes: 4,
};

export async function ensureBinaries(log: ProgressLog): Promise<{ cue: string }> {
  return { cue: await ensureGoBinary(cueCli, log) };
}
