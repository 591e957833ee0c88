// Files written for credentials (e.g. a kubeconfig handed to another program) live in one
// private folder (mode 0700), each file mode 0600, all removed when the process exits.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let folder: string | undefined;

function privateFolder(): string {
  if (!folder) {
    folder = mkdtempSync(join(tmpdir(), 'timoni-fleet-'));
    const created = folder;
    process.once('exit', () => rmSync(created, { recursive: true, force: true }));
  }
  return folder;
}

/** Writes a file readable by this user only; answers its path. */
export function writePrivateFile(name: string, content: string | Buffer): string {
  if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') throw new Error(`invalid private file name ${JSON.stringify(name)}`);
  const path = join(privateFolder(), name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

/** Removes the private folder now (it is also removed at exit). */
export function removePrivateFiles(): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
}
