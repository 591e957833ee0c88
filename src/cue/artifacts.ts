// Where the engine's built artifacts are: in dist/, their one copy (scripts/build-cue.mjs
// writes them there, scripts/engine-artifacts.mjs names them): dist/cue.wasm.gz and
// dist/native/<goos>-<goarch>/cue-shim.gz, each with its sha256 beside it.
//
// The running module finds dist/ by one rule, relative to its own folder: from the
// sources (src/cue, under vitest or tsx) the repository's dist/, ../../dist; from a bundle
// its own folder (dist/index.js, the action) or its parent (dist/cli/index.js, the CLI).
// Nothing beside the sources is looked at, so no stray copy there can stand in for dist/.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders that may be dist/ for a module in `here`, in order. */
function distCandidates(here: string): string[] {
  const fromSources = basename(here) === 'cue' && basename(dirname(here)) === 'src';
  return fromSources ? [join(here, '..', '..', 'dist')] : [here, join(here, '..')];
}

export interface ArtifactSearch {
  /** The artifact's path, when one of the candidates has it. */
  found?: string;
  /** Every path looked at, for the error when none has it. */
  tried: string[];
}

/**
 * Finds an artifact by its path under dist/ (`cue.wasm.gz`, `native/linux-amd64/cue-shim.gz`),
 * looking from `moduleUrl` (default: this module, which is the bundle once bundled).
 */
export function findEngineArtifact(pathInDist: string, moduleUrl: string = import.meta.url): ArtifactSearch {
  const here = dirname(fileURLToPath(moduleUrl));
  const tried: string[] = [];
  for (const dist of distCandidates(here)) {
    const path = join(dist, pathInDist);
    if (existsSync(path)) return { found: path, tried: [...tried, path] };
    tried.push(path);
  }
  return { tried };
}
