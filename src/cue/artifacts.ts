// Where the engine's built artifacts are: in dist/, their one copy (scripts/build-cue.mjs
// writes them there, scripts/engine-artifacts.mjs names them): dist/cue.wasm.gz and
// dist/native/<goos>-<goarch>/cue-shim.gz, each with its sha256 beside it.
//
// The running module finds dist/ by one rule, relative to its own folder: the folder
// itself (dist/index.js, the action's bundle), its parent (dist/cli/index.js, the CLI's
// bundle), or ../../dist from the sources in src/cue (vitest, tsx).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders that may be dist/, relative to the running module's folder, in order. */
const DIST_CANDIDATES = ['.', '..', join('..', '..', 'dist')];

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
  for (const candidate of DIST_CANDIDATES) {
    const path = join(here, candidate, pathInDist);
    if (existsSync(path)) return { found: path, tried: [...tried, path] };
    tried.push(path);
  }
  return { tried };
}
