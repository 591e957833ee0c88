// The private cache folders (modules, engines): where they are for each environment, and which folders are refused.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModuleCache } from '../src/module/oci/cache.js';
import { defaultCacheDir, PrivateCacheDirError, preparePrivateCacheDir } from '../src/private-cache-dir.js';

const made: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'module-cache-dir-test-'));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('defaultCacheDir', () => {
  it('uses RUNNER_TEMP in GitHub Actions, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(
      defaultCacheDir(
        'modules',
        { GITHUB_ACTIONS: 'true', RUNNER_TEMP: '/runner/_temp', XDG_CACHE_HOME: '/xdg' },
        '/home/u',
      ),
    ).toBe('/runner/_temp/timoni-fleet/modules');
    expect(defaultCacheDir('modules', { RUNNER_TEMP: '/runner/_temp', XDG_CACHE_HOME: '/xdg' }, '/home/u')).toBe(
      '/xdg/timoni-fleet/modules',
    );
    expect(defaultCacheDir('modules', {}, '/home/u')).toBe('/home/u/.cache/timoni-fleet/modules');
    expect(defaultCacheDir('engines', { GITHUB_ACTIONS: 'true', RUNNER_TEMP: '/runner/_temp' }, '/home/u')).toBe(
      '/runner/_temp/timoni-fleet/engines',
    );
    // A relative XDG_CACHE_HOME is invalid (XDG base directory rules) and ignored.
    expect(defaultCacheDir('modules', { XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe(
      '/home/u/.cache/timoni-fleet/modules',
    );
  });
});

describe('preparePrivateCacheDir', () => {
  it('creates the folder private (0700) with its parents', () => {
    const dir = join(scratch(), 'a', 'b');
    expect(preparePrivateCacheDir(dir, 'module cache folder')).toBe(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a folder others can write, a symbolic link, and a file', () => {
    const base = scratch();
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o775);
    expect(() => preparePrivateCacheDir(open, 'module cache folder')).toThrow(PrivateCacheDirError);
    expect(() => preparePrivateCacheDir(open, 'module cache folder')).toThrow(/can be written by others \(mode 775\)/);
    const target = join(base, 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(base, 'link'));
    expect(() => preparePrivateCacheDir(join(base, 'link'), 'module cache folder')).toThrow(/is a symbolic link/);
    writeFileSync(join(base, 'file'), '');
    expect(() => preparePrivateCacheDir(join(base, 'file'), 'module cache folder')).toThrow(
      /module cache folder .*file: (is not a folder|cannot create it)/,
    );
  });

  it('keeps a private folder of this user as it is', () => {
    const dir = join(scratch(), 'mine');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(preparePrivateCacheDir(dir, 'module cache folder')).toBe(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });
});

describe('ModuleCache folder', () => {
  it('removes temporary fill folders that a killed process left more than an hour ago, and keeps recent ones', async () => {
    const dir = join(scratch(), 'cache');
    mkdirSync(dir, { mode: 0o700 });
    const old = join(dir, '.tmp-0123456789ab');
    const recent = join(dir, '.tmp-ba9876543210');
    mkdirSync(old);
    mkdirSync(recent);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    await new ModuleCache({ dir }).root();
    expect(() => statSync(old)).toThrow();
    expect(statSync(recent).isDirectory()).toBe(true);
    expect(statSync(join(dir, 'sha256')).isDirectory()).toBe(true);
  });
});
