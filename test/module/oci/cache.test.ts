import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModuleCache } from '../../../src/module/oci/cache.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'module-cache-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const meta = (c: string) => ({ digest: digest(c), manifestDigest: digest(c), version: '1.0.0', annotations: { a: c } });

describe('ModuleCache', () => {
  it('fills a digest once for concurrent callers and keeps it on disk', async () => {
    const cache = new ModuleCache({ dir: join(root, 'one') });
    let fills = 0;
    const fill = async (dir: string) => {
      fills += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      await writeFile(join(dir, 'timoni.cue'), 'package main\n');
    };
    const results = await Promise.all([
      cache.store(meta('a'), fill),
      cache.store(meta('a'), fill),
      cache.store(meta('a'), fill),
    ]);
    expect(fills).toBe(1);
    expect(new Set(results.map((r) => r.dir)).size).toBe(1);
    expect(await readFile(join(results[0]!.dir, 'timoni.cue'), 'utf8')).toBe('package main\n');
    expect((await readdir(join(root, 'one'))).filter((n) => n.startsWith('.tmp-'))).toEqual([]);

    const later = new ModuleCache({ dir: join(root, 'one') });
    expect(await later.lookup(digest('a'))).toEqual({ ...meta('a'), dir: results[0]!.dir });
    const again = await later.store(meta('a'), async () => {
      throw new Error('must not fill again');
    });
    expect(again.dir).toBe(results[0]!.dir);
  });

  it('does not remember a failed fill, and removes its temporary folder', async () => {
    const cache = new ModuleCache({ dir: join(root, 'two') });
    await expect(cache.store(meta('b'), async () => Promise.reject(new Error('download failed')))).rejects.toThrow(
      'download failed',
    );
    expect(await cache.lookup(digest('b'))).toBeUndefined();
    expect(await readdir(join(root, 'two'))).toEqual(['sha256']);
    const ok = await cache.store(meta('b'), async (dir) => writeFile(join(dir, 'values.cue'), 'ok'));
    expect(await readFile(join(ok.dir, 'values.cue'), 'utf8')).toBe('ok');
  });

  it('shares one producer per reference key until it fails', async () => {
    const cache = new ModuleCache({ dir: join(root, 'three') });
    let calls = 0;
    const produce = async () => {
      calls += 1;
      if (calls === 1) throw new Error('first fails');
      return { ...meta('c'), dir: '/x' };
    };
    await expect(cache.shared('oci://r/a:1', produce)).rejects.toThrow('first fails');
    const [x, y] = await Promise.all([cache.shared('oci://r/a:1', produce), cache.shared('oci://r/a:1', produce)]);
    expect(calls).toBe(2);
    expect(x).toBe(y);
  });

  it('uses the module cache folder of the environment when none is given (no folder per run)', async () => {
    const saved = process.env.XDG_CACHE_HOME;
    const savedActions = process.env.GITHUB_ACTIONS;
    const home = await mkdtemp(join(tmpdir(), 'module-cache-home-'));
    process.env.XDG_CACHE_HOME = home;
    delete process.env.GITHUB_ACTIONS; // in GitHub Actions the folder is under RUNNER_TEMP
    try {
      expect(await new ModuleCache().root()).toBe(join(home, 'timoni-fleet', 'modules'));
      expect(await new ModuleCache().root()).toBe(join(home, 'timoni-fleet', 'modules'));
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
      if (savedActions !== undefined) process.env.GITHUB_ACTIONS = savedActions;
      await rm(home, { recursive: true, force: true });
    }
  });
});
