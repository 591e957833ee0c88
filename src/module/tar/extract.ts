// Extracts a gzip-compressed tar archive (a Timoni content layer) into a folder, within
// limits: only regular files and directories are written; absolute paths, `..`, links,
// devices and FIFOs are refused, as are archives whose files exceed the per-file or total
// size, or that hold too many entries. Limits are checked against the declared sizes
// before anything is written, and the gzip stream is never inflated past what the
// limits allow.
import { mkdir, writeFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { peekHeader, readTar, TarFormatError, type TarEntry } from './reader.js';

export interface ExtractLimits {
  /** Sum of the sizes of all files, in bytes (default 100 MiB, as Timoni's untar). */
  maxTotalSize: number;
  /** Size of any one file, in bytes (default 100 MiB). */
  maxFileSize: number;
  /** Number of entries (default 20,000). */
  maxEntries: number;
}

export const defaultExtractLimits: ExtractLimits = {
  maxTotalSize: 100 * 1024 * 1024,
  maxFileSize: 100 * 1024 * 1024,
  maxEntries: 20_000,
};

export class UnsafeArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeArchiveError';
  }
}

export interface ExtractResult {
  files: number;
  directories: number;
  bytes: number;
}

/**
 * Inflates `gz` without producing more than the limits allow (headers and padding
 * included). While it inflates, it reads the tar headers that have arrived, so that an
 * archive declaring a file over the limits is refused before the rest is inflated.
 */
export function gunzipWithin(gz: Buffer, limits: ExtractLimits): Promise<Buffer> {
  // Each entry costs at most three header blocks (PAX, GNU name, ustar) plus a padding block.
  const maxOutputLength = limits.maxTotalSize + (limits.maxEntries * 4 + 2) * 512;
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    const chunks: Buffer[] = [];
    let length = 0;
    let header = Buffer.alloc(0); // a header block still arriving
    let skip = 0; // bytes of entry data still to pass over
    let total = 0;
    let scanning = true;
    let failed = false;
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      gunzip.destroy();
      reject(error);
    };
    const check = (block: Buffer): void => {
      const peeked = peekHeader(block, 0);
      if (!peeked) {
        scanning = false;
        return;
      }
      const isFile = peeked.typeFlag === '0' || peeked.typeFlag === '\0' || peeked.typeFlag === '7';
      if (isFile && peeked.size > limits.maxFileSize) {
        throw new UnsafeArchiveError(
          `tar entry ${JSON.stringify(peeked.name)} is ${peeked.size} bytes, more than the limit of ${limits.maxFileSize}`,
        );
      }
      if (isFile) total += peeked.size;
      if (total > limits.maxTotalSize) {
        throw new UnsafeArchiveError(
          `archive files add up to more than the limit of ${limits.maxTotalSize} bytes (at ${JSON.stringify(peeked.name)})`,
        );
      }
      skip = Math.ceil(peeked.size / 512) * 512;
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (failed) return;
      length += chunk.length;
      if (length > maxOutputLength) {
        fail(
          new UnsafeArchiveError(
            `archive inflates to more than ${maxOutputLength} bytes (limit ${limits.maxTotalSize} bytes of files)`,
          ),
        );
        return;
      }
      chunks.push(chunk);
      let position = 0;
      try {
        while (scanning && position < chunk.length) {
          if (skip > 0) {
            const passed = Math.min(skip, chunk.length - position);
            skip -= passed;
            position += passed;
            continue;
          }
          const taken = Math.min(512 - header.length, chunk.length - position);
          header = Buffer.concat([header, chunk.subarray(position, position + taken)]);
          position += taken;
          if (header.length === 512) {
            const block = header;
            header = Buffer.alloc(0);
            check(block);
          }
        }
      } catch (error) {
        // A malformed header is left for the full reader to report with its context.
        if (error instanceof UnsafeArchiveError) fail(error);
        else scanning = false;
      }
    });
    gunzip.on('error', (error) => fail(new TarFormatError(`not a valid gzip stream: ${error.message}`)));
    gunzip.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, length));
    });
    gunzip.end(gz);
  });
}

// Turns a tar entry name into a safe path relative to the extraction folder, or says why
// it is unsafe: absolute paths, `..` segments, backslashes, drive letters and NUL bytes
// are refused (a "zip slip" would write outside the folder).

export type SafePath = { ok: true; path: string } | { ok: false; reason: string };

/**
 * `./a//b/` becomes `a/b`; the archive root (`.` or `./`) becomes the empty string.
 */
export function safeEntryPath(name: string): SafePath {
  if (name.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (name.includes('\\')) return { ok: false, reason: 'contains a backslash' };
  if (name.startsWith('/')) return { ok: false, reason: 'is an absolute path' };
  if (/^[A-Za-z]:/.test(name)) return { ok: false, reason: 'starts with a drive letter' };
  const segments: string[] = [];
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { ok: false, reason: 'contains a ".." segment' };
    segments.push(segment);
  }
  return { ok: true, path: segments.join('/') };
}

function checkEntry(entry: TarEntry): string {
  const safe = safeEntryPath(entry.name);
  if (!safe.ok) throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} ${safe.reason}`);
  if (entry.type === 'symlink' || entry.type === 'hardlink') {
    throw new UnsafeArchiveError(
      `entry ${JSON.stringify(entry.name)} is a ${entry.type} (to ${JSON.stringify(entry.linkName)}); links are not allowed`,
    );
  }
  if (entry.type === 'device' || entry.type === 'fifo') {
    throw new UnsafeArchiveError(
      `entry ${JSON.stringify(entry.name)} is a ${entry.type}; only files and directories are allowed`,
    );
  }
  if (entry.type === 'other') {
    throw new UnsafeArchiveError(
      `entry ${JSON.stringify(entry.name)} has unsupported tar type ${JSON.stringify(entry.typeFlag)}`,
    );
  }
  return safe.path;
}

/** Reads and validates every entry first, so that a refused archive writes nothing. */
export function planExtraction(
  tar: Buffer,
  limits: ExtractLimits = defaultExtractLimits,
): Array<{ path: string; entry: TarEntry }> {
  const plan: Array<{ path: string; entry: TarEntry }> = [];
  let total = 0;
  for (const entry of readTar(tar, { maxEntrySize: limits.maxFileSize })) {
    if (plan.length >= limits.maxEntries)
      throw new UnsafeArchiveError(`archive holds more than ${limits.maxEntries} entries`);
    const path = checkEntry(entry);
    if (entry.type === 'file') {
      if (path === '')
        throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} is a file at the archive root`);
      total += entry.size;
      if (total > limits.maxTotalSize) {
        throw new UnsafeArchiveError(
          `archive files add up to more than the limit of ${limits.maxTotalSize} bytes (at ${JSON.stringify(entry.name)})`,
        );
      }
    }
    plan.push({ path, entry });
  }
  return plan;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function writeEntry(dir: string, path: string, entry: TarEntry, result: ExtractResult): Promise<void> {
  const target = join(dir, ...path.split('/'));
  if (entry.type === 'directory') {
    await mkdir(target, { recursive: true, mode: (entry.mode & 0o777) | 0o700 });
    result.directories += 1;
    return;
  }
  const parent = path.includes('/') ? join(dir, ...path.split('/').slice(0, -1)) : dir;
  await mkdir(parent, { recursive: true });
  if (await isDirectory(target)) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  await writeFile(target, entry.data, { mode: (entry.mode & 0o777) | 0o600 });
  result.files += 1;
  result.bytes += entry.size;
}

/**
 * Extracts the tar (already inflated) into `dir`, which must be a folder only this call
 * writes to. Later entries overwrite earlier files of the same path (layer overlay).
 */
export async function extractTar(
  tar: Buffer,
  dir: string,
  limits: ExtractLimits = defaultExtractLimits,
): Promise<ExtractResult> {
  const plan = planExtraction(tar, limits);
  const result: ExtractResult = { files: 0, directories: 0, bytes: 0 };
  await mkdir(dir, { recursive: true });
  for (const { path, entry } of plan) {
    if (path === '') continue;
    try {
      await writeEntry(dir, path, entry, result);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A path used as a file by one entry and as a folder by another (or by an earlier layer).
      if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
        throw new UnsafeArchiveError(
          `entry ${JSON.stringify(entry.name)} clashes with an earlier file or directory of the same path`,
        );
      }
      throw error;
    }
  }
  return result;
}

/** Inflates and extracts a `.tar.gz` held in memory into `dir`. */
export async function extractTarGz(
  gz: Buffer,
  dir: string,
  limits: Partial<ExtractLimits> = {},
): Promise<ExtractResult> {
  const effective = { ...defaultExtractLimits, ...limits };
  return extractTar(await gunzipWithin(gz, effective), dir, effective);
}
