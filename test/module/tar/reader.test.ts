import { describe, expect, it } from 'vitest';
import { parsePaxRecords, readTar, TarFormatError } from '../../../src/module/tar/reader.js';
import { writeTar } from '../../harness/registry/tar-writer.js';
import { buildTar } from './tar-writer.js';

describe('readTar', () => {
  it('reads files and directories with their content and mode', () => {
    const tar = buildTar([
      { name: 'cue.mod/', type: '5' },
      { name: 'cue.mod/module.cue', content: 'module: "timoni.sh/app"\n', mode: 0o600 },
      { name: 'timoni.cue', content: 'x'.repeat(1500) },
    ]);
    const entries = [...readTar(tar)];
    expect(entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ['cue.mod/', 'directory', 0],
      ['cue.mod/module.cue', 'file', 24],
      ['timoni.cue', 'file', 1500],
    ]);
    expect(entries[1]?.data.toString()).toBe('module: "timoni.sh/app"\n');
    expect(entries[1]?.mode).toBe(0o600);
    expect(entries[2]?.data.toString()).toBe('x'.repeat(1500));
  });

  it('applies PAX path records and GNU long names to the next entry', () => {
    const long = `${'deep/'.repeat(30)}file.cue`;
    const tar = buildTar([
      { name: long, content: 'pax', pax: true },
      { name: `${long}.gnu`, content: 'gnu', gnuLongName: true },
    ]);
    const entries = [...readTar(tar)];
    expect(entries.map((e) => e.name)).toEqual([long, `${long}.gnu`]);
    expect(entries.map((e) => e.data.toString())).toEqual(['pax', 'gnu']);
  });

  it('reports links with their targets', () => {
    const [entry] = [...readTar(buildTar([{ name: 'l', type: '2', linkName: '/etc/passwd' }]))];
    expect(entry?.type).toBe('symlink');
    expect(entry?.linkName).toBe('/etc/passwd');
  });

  it('accepts an archive without the zero-block trailer', () => {
    expect([...readTar(buildTar([{ name: 'a', content: 'a' }], { trailer: false }))]).toHaveLength(1);
  });

  it('refuses a truncated archive and a corrupted header', () => {
    const tar = buildTar([{ name: 'a', content: 'y'.repeat(2000) }], { trailer: false });
    expect(() => [...readTar(tar.subarray(0, 1024))]).toThrow(/truncated/);
    const corrupted = Buffer.from(tar);
    corrupted[0] = 0x7a;
    expect(() => [...readTar(corrupted)]).toThrow(TarFormatError);
    expect(() => [...readTar(corrupted)]).toThrow(/checksum/);
  });

  it('refuses an entry larger than the per-entry limit before reading it', () => {
    const tar = buildTar([{ name: 'big', content: 'z'.repeat(600) }]);
    expect(() => [...readTar(tar, { maxEntrySize: 599 })]).toThrow(/600 bytes, more than the limit of 599/);
  });

  it('parses PAX records whose length counts its own digits', () => {
    const records = parsePaxRecords(Buffer.from('20 path=a/b/c/d.cue\n14 size=12345\n'));
    expect(records.get('path')).toBe('a/b/c/d.cue');
    expect(records.get('size')).toBe('12345');
    expect(() => parsePaxRecords(Buffer.from('99 path=a\n'))).toThrow(/malformed/);
  });
});

describe('readTar on archives written as Go archive/tar writes them', () => {
  it('reads ustar prefix-split names, PAX long names and the root entry', () => {
    const prefixSplit = `${'cue.mod/gen/k8s.io/api/'.repeat(4)}types_go_gen.cue`; // > 100 bytes, splits at a '/'
    const paxOnly = `${'x'.repeat(120)}/${'y'.repeat(120)}.cue`; // no split fits: PAX path record
    const tar = writeTar([
      { name: '.', type: 'directory' },
      { name: 'cue.mod', type: 'directory' },
      { name: prefixSplit, type: 'file', content: 'package v1\n' },
      { name: paxOnly, type: 'file', content: 'package main\n', mode: 0o755 },
    ]);
    const entries = [...readTar(tar)];
    expect(entries.map((e) => [e.name.replace(/\/$/, ''), e.type])).toEqual([
      ['.', 'directory'],
      ['cue.mod', 'directory'],
      [prefixSplit, 'file'],
      [paxOnly, 'file'],
    ]);
    expect(entries[2]?.data.toString()).toBe('package v1\n');
    expect(entries[3]?.mode).toBe(0o755);
  });
});
