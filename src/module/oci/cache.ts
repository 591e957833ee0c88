// Remembers pulled modules for a run, so that a module used by several clusters and
// instances is pulled once: an in-process map shares one pull between every caller of the
// same reference (concurrent callers wait for the same promise), and a folder keyed by
// manifest digest keeps extracted modules (`<dir>/sha256/<hex>/`, with `<hex>.json`
// holding its version and annotations), across runs: by default the one module cache
// folder of src/private-cache-dir.ts, so that no run leaves a folder of its own behind.
// Folders are filled under a temporary name and renamed into place, so a folder that
// exists is complete; temporary folders that a killed process left are removed after an
// hour. Failures are not remembered: the next caller tries again.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultCacheDir, preparePrivateCacheDir } from '../../private-cache-dir.js';

const TEMPORARY_PREFIX = '.tmp-';
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/** Removes what a killed process left while filling the cache (older than an hour). */
async function removeStaleTemporaries(root: string): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  const now = Date.now();
  await Promise.all(
    names
      .filter((name) => name.startsWith(TEMPORARY_PREFIX))
      .map(async (name) => {
        const path = join(root, name);
        const info = await stat(path).catch(() => undefined);
        if (info && now - info.mtimeMs > STALE_TEMPORARY_MS) await rm(path, { recursive: true, force: true });
      }),
  );
}

export interface CachedModule {
  digest: string;
  manifestDigest: string;
  version: string;
  annotations: Record<string, string>;
  /** The extracted module; shared, so callers must not modify it. */
  dir: string;
}

type ModuleMeta = Omit<CachedModule, 'dir'>;

export class ModuleCache {
  readonly #dir: string;
  #root: Promise<string> | undefined;
  readonly #byReference = new Map<string, Promise<CachedModule>>();
  readonly #byDigest = new Map<string, Promise<CachedModule>>();

  /** `dir`: where extracted modules are kept; default the module cache folder (src/private-cache-dir.ts). */
  constructor(options: { dir?: string } = {}) {
    this.#dir = options.dir ?? defaultCacheDir('modules');
  }

  /** The cache folder, created (private) and checked on first use. */
  root(): Promise<string> {
    this.#root ??= (async () => {
      const dir = preparePrivateCacheDir(this.#dir, 'module cache folder');
      await mkdir(join(dir, 'sha256'), { recursive: true, mode: 0o700 });
      await removeStaleTemporaries(dir);
      return dir;
    })();
    return this.#root;
  }

  /** One pull per reference key for the life of this cache; concurrent callers share it. */
  shared(key: string, produce: () => Promise<CachedModule>): Promise<CachedModule> {
    return this.#once(this.#byReference, key, produce);
  }

  /** The module already extracted for `digest`, in this process or in the folder. */
  async lookup(digest: string): Promise<CachedModule | undefined> {
    const inProcess = this.#byDigest.get(digest);
    if (inProcess) return inProcess;
    const found = await this.#onDisk(digest);
    if (found && !this.#byDigest.has(digest)) this.#byDigest.set(digest, Promise.resolve(found));
    return found;
  }

  async #onDisk(digest: string): Promise<CachedModule | undefined> {
    const { dir, meta } = await this.#paths(digest);
    try {
      if (!(await stat(dir)).isDirectory()) return undefined;
      const parsed = JSON.parse(await readFile(meta, 'utf8')) as ModuleMeta;
      return parsed.digest === digest ? { ...parsed, dir } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The folder for `meta.digest`: found in the cache, or filled by `fill` (given an empty
   * temporary folder) and moved into place. Concurrent calls for one digest share one fill.
   */
  store(meta: ModuleMeta, fill: (dir: string) => Promise<void>): Promise<CachedModule> {
    return this.#once(this.#byDigest, meta.digest, async () => {
      const existing = await this.#onDisk(meta.digest);
      if (existing) return existing;
      const root = await this.root();
      const paths = await this.#paths(meta.digest);
      const temporary = join(root, `${TEMPORARY_PREFIX}${randomBytes(6).toString('hex')}`);
      await mkdir(temporary);
      try {
        await fill(temporary);
        const metaTemporary = `${temporary}.json`;
        await writeFile(metaTemporary, JSON.stringify(meta));
        await rename(metaTemporary, paths.meta);
        try {
          await rename(temporary, paths.dir);
        } catch (error) {
          // Another process finished the same digest first: theirs is as good as ours.
          if (
            !(await stat(paths.dir).then(
              (s) => s.isDirectory(),
              () => false,
            ))
          )
            throw error;
        }
        return { ...meta, dir: paths.dir };
      } finally {
        await rm(temporary, { recursive: true, force: true });
      }
    });
  }

  async #paths(digest: string): Promise<{ dir: string; meta: string }> {
    const hex = digest.replace(/^sha256:/, '');
    if (!/^[a-f0-9]{64}$/.test(hex)) throw new Error(`not a sha256 digest: ${digest}`);
    const base = join(await this.root(), 'sha256', hex);
    return { dir: base, meta: `${base}.json` };
  }

  #once(
    map: Map<string, Promise<CachedModule>>,
    key: string,
    produce: () => Promise<CachedModule>,
  ): Promise<CachedModule> {
    const existing = map.get(key);
    if (existing) return existing;
    const started = produce();
    map.set(key, started);
    started.catch(() => {
      if (map.get(key) === started) map.delete(key);
    });
    return started;
  }
}
