// The Node.js binary the runner would use for an action's `runs.using`. The repository
// pins Node 24 as a dev dependency (node_modules/.bin/node); the runner runs node24
// actions with Node 24, so the harness refuses any other major version.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/harness/github/runner/node-runtime.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

const versions = new Map<string, string>();

function versionOf(binary: string): string {
  let version = versions.get(binary);
  if (version === undefined) {
    version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
    versions.set(binary, version);
  }
  return version;
}

/** The node binary for `using` (node20 or node24), checked to be of that major version. */
export function nodeFor(using: string): string {
  const match = /^node(\d+)$/.exec(using);
  if (!match) throw new Error(`runAction: runs.using '${using}' is not a Node.js runtime`);
  const major = match[1] ?? '';
  const candidates = [join(REPO_ROOT, 'node_modules', '.bin', 'node'), process.execPath];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const version = versionOf(candidate);
    if (version.startsWith(`v${major}.`)) return candidate;
  }
  throw new Error(
    `runAction: no Node.js ${major} found for runs.using '${using}' (tried ${candidates.map((c) => `${c}${existsSync(c) ? ` (${versionOf(c)})` : ' (missing)'}`).join(', ')})`,
  );
}
