import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractTarGz, safeEntryPath, UnsafeArchiveError } from '../../../src/module/tar/extract.js';
import { buildTar, buildTarGz } from './tar-writer.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tar-extract-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('safeEntryPath', () => {
  it('normalises harmless names', () => {
    expect(safeEntryPath('./a//b/./c')).toEqual({ ok: true, path: 'a/b/c' });
    expect(safeEntryPath('./')).toEqual({ ok: true, path: '' });
    expect(safeEntryPath('a..b/c')).toEqual({ ok: true, path: 'a..b/c' });
  });
  it.each([
    ['/etc/passwd', 'absolute'],
    ['../x', '".."'],
    ['a/../../x', '".."'],
    ['a\\b', 'backslash'],
    ['C:/x', 'drive letter'],
    ['a\0b', 'NUL'],
  ])('refuses %j', (name, reason) => {
    const result = safeEntryPath(name);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});

describe('extractTarGz', () => {
  it('extracts files and directories of a module, root entry included', async () => {
    const gz = buildTarGz([
      { name: './', type: '5' },
      { name: 'cue.mod/', type: '5' },
      { name: 'cue.mod/module.cue', content: 'module: "a"\n' },
      { name: 'templates/config.cue', content: 'package templates\n', mode: 0o640 },
    ]);
    const result = await extractTarGz(gz, dir);
    expect(result).toEqual({ files: 2, directories: 1, bytes: 30 });
    expect(await readFile(join(dir, 'cue.mod/module.cue'), 'utf8')).toBe('module: "a"\n');
    expect(await readFile(join(dir, 'templates/config.cue'), 'utf8')).toBe('package templates\n');
    expect((await stat(join(dir, 'templates/config.cue'))).mode & 0o777).toBe(0o640);
  });

  it.each([
    [{ name: '../escape.cue', content: 'x' }, /"\.\.\/escape\.cue" contains a "\.\." segment/],
    [{ name: 'a/../../escape.cue', content: 'x', pax: true }, /contains a "\.\." segment/],
    [{ name: '/tmp/abs.cue', content: 'x' }, /is an absolute path/],
    [{ name: 'link', type: '2', linkName: '../../etc/passwd' }, /is a symlink .*links are not allowed/],
    [{ name: 'hard', type: '1', linkName: 'cue.mod/module.cue' }, /is a hardlink/],
    [{ name: 'dev', type: '3' }, /is a device/],
    [{ name: 'fifo', type: '6' }, /is a fifo/],
  ])('refuses %j and writes nothing', async (bad, message) => {
    const gz = buildTarGz([{ name: 'first.cue', content: 'ok' }, bad]);
    await expect(extractTarGz(gz, join(dir, 'out'))).rejects.toThrow(message);
    await expect(extractTarGz(gz, join(dir, 'out'))).rejects.toBeInstanceOf(UnsafeArchiveError);
    await expect(readdir(join(dir, 'out'))).rejects.toThrow(/ENOENT/);
    await expect(readdir(join(dir, '..'))).resolves.not.toContain('escape.cue');
  });

  it('refuses a file over the per-file limit and archives over the total limit', async () => {
    const gz = buildTarGz([
      { name: 'a', content: 'a'.repeat(800) },
      { name: 'b', content: 'b'.repeat(800) },
    ]);
    await expect(extractTarGz(gz, dir, { maxFileSize: 799 })).rejects.toThrow(
      /"a" is 800 bytes, more than the limit of 799/,
    );
    await expect(extractTarGz(gz, dir, { maxTotalSize: 1500 })).rejects.toThrow(
      /more than the limit of 1500 bytes \(at "b"\)/,
    );
    await expect(extractTarGz(gz, dir, { maxEntries: 1 })).rejects.toThrow(/more than 1 entries/);
    await expect(extractTarGz(gz, dir, { maxTotalSize: 1600 })).resolves.toMatchObject({ files: 2, bytes: 1600 });
  });

  it('does not inflate a gzip bomb past the limits', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(extractTarGz(bomb, dir, { maxTotalSize: 1024 * 1024, maxEntries: 10 })).rejects.toThrow(
      /inflates to more than/,
    );
  });

  it('refuses a file declared larger than its content (truncated archive)', async () => {
    const gz = gzipSync(buildTar([{ name: 'a', content: 'abc', declaredSize: 5000 }], { trailer: false }));
    await expect(extractTarGz(gz, dir)).rejects.toThrow(/truncated/);
  });

  it('refuses data that is not gzip', async () => {
    await expect(extractTarGz(Buffer.from('plain text, not gzip'), dir)).rejects.toThrow(/not a valid gzip stream/);
  });

  it('lets a later layer overwrite a file of an earlier one in the same folder', async () => {
    await extractTarGz(
      buildTarGz([
        { name: 'cue.mod/pkg/a.cue', content: 'vendor' },
        { name: 'values.cue', content: 'old' },
      ]),
      dir,
    );
    await extractTarGz(buildTarGz([{ name: 'values.cue', content: 'new' }]), dir);
    expect(await readFile(join(dir, 'values.cue'), 'utf8')).toBe('new');
    expect(await readFile(join(dir, 'cue.mod/pkg/a.cue'), 'utf8')).toBe('vendor');
  });
});

describe('extractTarGz path clashes', () => {
  it('refuses a file where a directory was made, and a directory below a file', async () => {
    const out = join(dir, 'clash');
    await expect(
      extractTarGz(
        buildTarGz([
          { name: 'a/b.cue', content: 'x' },
          { name: 'a', content: 'file' },
        ]),
        out,
      ),
    ).rejects.toThrow(/entry "a" clashes with an earlier file or directory of the same path/);
    await expect(
      extractTarGz(
        buildTarGz([
          { name: 'f', content: 'file' },
          { name: 'f/g.cue', content: 'x' },
        ]),
        join(dir, 'clash2'),
      ),
    ).rejects.toThrow(UnsafeArchiveError);
  });
});
