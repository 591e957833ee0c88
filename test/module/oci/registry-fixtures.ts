// Helpers shared by the pull tests: the files a pushed module should extract to, a
// directory walk, and a fast retry policy so that failure tests do not wait long.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PushedTimoniModule } from '../../harness/registry/index.js';

export const fastRetry = { attempts: 3, baseDelayMs: 10, maxDelayMs: 50, maxElapsedMs: 5_000 };

/** path -> content of every regular file under `dir`, '/'-separated and sorted. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(dir, relative), { withFileTypes: true })) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await visit(path);
      else out[path] = await readFile(join(dir, path), 'utf8');
    }
  };
  await visit('');
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** What the pushed layers hold, applied in order (later files win), as the puller should extract it. */
export function expectedTree(pushed: PushedTimoniModule): Record<string, string> {
  const out: Record<string, string> = {};
  for (const layer of pushed.layers) {
    for (const entry of layer.entries) {
      if (entry.type !== 'file') continue;
      const path = entry.name.replace(/^\.\//, '');
      out[path] = Buffer.from(entry.content ?? '').toString('utf8');
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
