// Reads a fixture folder into the in-memory file map the engine loads from.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export function readFixture(name: string): Record<string, string> {
  const root = join(fixturesDir, name);
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path).split(sep).join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return files;
}

/** 1-based line of the first line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`fixture text has no line containing ${JSON.stringify(needle)}`);
  return index + 1;
}
