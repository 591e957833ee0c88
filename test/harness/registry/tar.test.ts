// The tar writer against Go's archive/tar (the encoder Timoni's packager uses), byte for
// byte, and the tar reader against the writer.
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBinaries } from './binaries.js';
import { readTar } from './tar-reader.js';
import { writeTar, type TarEntry } from './tar-writer.js';

let helper: string;
beforeAll(async () => {
  helper = (await ensureBinaries((line) => process.stderr.write(`registry: ${line}\n`))).helper;
});

const typeflags = { file: '0', hardlink: '1', symlink: '2', directory: '5', fifo: '6' } as const;
const defaultModes = { file: 0o644, hardlink: 0o777, symlink: 0o777, directory: 0o755, fifo: 0o644 } as const;

/** The same entries encoded by Go's archive/tar (go/helper `tar`). */
function goTar(entries: TarEntry[]): Promise<Buffer> {
  const input = JSON.stringify(
    entries.map((entry) => ({
      name: entry.name,
      typeflag: typeflags[entry.type],
      mode: entry.mode ?? defaultModes[entry.type],
      linkname: entry.linkname ?? '',
      content: Buffer.from(entry.content ?? '').toString('base64'),
    })),
  );
  return new Promise((resolveTar, reject) => {
    const child = execFile(
      helper,
      ['tar'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`registry-helper tar failed: ${stderr.toString()}`));
        else resolveTar(stdout);
      },
    );
    child.stdin?.end(input);
  });
}

function firstDifference(a: Buffer, b: Buffer): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `first difference at byte ${i} (block ${Math.floor(i / 512)}, offset ${i % 512}): ${a[i]} vs ${b[i]}`;
  }
  return 'identical';
}

const cases: Record<string, TarEntry[]> = {
  'a module layer': [
    { name: '.', type: 'directory' },
    { name: 'cue.mod', type: 'directory' },
    { name: 'cue.mod/module.cue', type: 'file', content: 'module: "timoni.sh/sample"\n' },
    { name: 'templates', type: 'directory', mode: 0o700 },
    { name: 'run.sh', type: 'file', mode: 0o755, content: '#!/bin/sh\n' },
    { name: 'empty.cue', type: 'file', content: '' },
    { name: 'block.bin', type: 'file', content: Buffer.alloc(512, 7) },
    { name: 'odd.bin', type: 'file', content: Buffer.alloc(1025, 0xff) },
  ],
  'names of exactly 100 bytes and long names split into prefix and name': [
    { name: 'n'.repeat(100), type: 'file', content: 'x' },
    { name: `${'p'.repeat(150)}/${'n'.repeat(100)}`, type: 'file', content: 'y' },
    { name: `${'a'.repeat(60)}/${'b'.repeat(60)}/c.cue`, type: 'file', content: 'z' },
    { name: `${'d'.repeat(120)}/`, type: 'directory' },
  ],
  'names that need PAX records (too long to split, not ASCII)': [
    { name: `${'g'.repeat(200)}/h.cue`, type: 'file', content: 'long' },
    { name: 'x'.repeat(300), type: 'file', content: 'longer' },
    { name: 'templates/café.cue', type: 'file', content: 'accent' },
    { name: `${'q'.repeat(99)}é/`, type: 'directory' },
    { name: 'link', type: 'symlink', linkname: 'l'.repeat(150) },
  ],
  'hostile entries': [
    { name: '../escaped.txt', type: 'file', content: 'out' },
    { name: '/etc/absolute', type: 'file', content: 'abs' },
    { name: 'templates', type: 'symlink', linkname: '/etc' },
    { name: 'passwd', type: 'hardlink', linkname: '/etc/passwd' },
    { name: 'pipe', type: 'fifo' },
  ],
};

describe('tar writer', () => {
  it.each(Object.entries(cases))('writes %s byte for byte as Go archive/tar', async (_name, entries) => {
    const mine = writeTar(entries);
    const go = await goTar(entries);
    expect(firstDifference(mine, go)).toBe('identical');
    expect(mine.length % 512).toBe(0);
  });

  it('reads back what it writes: names, types, modes, links and content', () => {
    const entries = Object.values(cases).flat();
    const members = readTar(writeTar(entries));
    expect(members.map((member) => member.name)).toEqual(entries.map((entry) => entry.name));
    expect(members.map((member) => member.typeflag)).toEqual(entries.map((entry) => typeflags[entry.type]));
    expect(members.map((member) => member.mode)).toEqual(
      entries.map((entry) => entry.mode ?? defaultModes[entry.type]),
    );
    expect(members.map((member) => member.linkname)).toEqual(entries.map((entry) => entry.linkname ?? ''));
    expect(members.map((member) => member.content)).toEqual(
      entries.map((entry) => Buffer.from(entry.type === 'file' ? (entry.content ?? '') : '')),
    );
  });

  it('refuses content on entries that are not files and sizes that do not fit', () => {
    expect(() => writeTar([{ name: 'd', type: 'directory', content: 'x' }])).toThrow(/only files carry content/);
    expect(() => writeTar([{ name: 'f', type: 'file', mode: 0o100000000 }])).toThrow(/tar field mode/);
  });
});
