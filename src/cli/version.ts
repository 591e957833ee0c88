// `timoni-fleet version` (and `--version`): the version of timoni-fleet, of the CUE it
// evaluates with (cuelang.org/go, as the engine reports it), and which build of the engine
// runs here: the native program where this platform has a working one, else WebAssembly
// (src/cue/engine.ts; TIMONI_FLEET_CUE_ENGINE forces one). A bug report needs all three.
import packageJson from '../../package.json' with { type: 'json' };
import { loadCueEngine, nativeEngineUnavailable, type CueEngineKind } from '../cue/index.js';
import { quote } from '../display-text.js';
import type { CommandIO } from './io.js';

const ENGINE_NAMES: Record<CueEngineKind, string> = { native: 'native', wasm: 'WebAssembly' };

/** The lines `version` prints, from what the engine reports. */
export function versionText(cue: string, engine: CueEngineKind, nativeUnavailable: string | undefined): string {
  const why = engine === 'wasm' && nativeUnavailable ? ` (the native engine did not start: ${nativeUnavailable})` : '';
  return `timoni-fleet ${packageJson.version}\nCUE ${cue}\nengine ${ENGINE_NAMES[engine]}${why}\n`;
}

/** Prints the version; `rest` holds the words after `version`, of which there must be none. */
export async function printVersion(rest: string[], io: CommandIO): Promise<number> {
  if (rest.length > 0) {
    io.stderr(`✗ unexpected argument ${quote(rest[0] as string)}: version takes none\n`);
    return 2;
  }
  try {
    const engine = await loadCueEngine();
    io.stdout(versionText(engine.version().cue, engine.kind, nativeEngineUnavailable()));
    return 0;
  } catch (error) {
    // The version of timoni-fleet is known without the engine; say why the rest is not.
    io.stdout(`timoni-fleet ${packageJson.version}\n`);
    io.stderr(`✗ the CUE engine did not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
