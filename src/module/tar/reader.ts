// Reads the entries of an uncompressed tar archive held in memory: POSIX ustar headers
// (with the 155-byte name prefix), PAX extended headers (`path`, `linkpath`, `size`) and
// GNU long names (`L`/`K`), which is what Go's archive/tar writes for Timoni modules.
// It only parses; what is safe to extract is decided by extract.ts.

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'other';

export interface TarEntry {
  /** The name as stored in the archive (after PAX / GNU long-name overrides). */
  name: string;
  type: TarEntryType;
  /** Type flag character as stored, for error messages (`0`, `5`, `2`, ...). */
  typeFlag: string;
  mode: number;
  size: number;
  linkName: string;
  /** The entry's content; empty for everything but files. */
  data: Buffer;
}

export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

const BLOCK = 512;

function isZeroBlock(block: Buffer): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

/** Octal numeric field, or GNU base-256 when the top bit of the first byte is set. */
function readNumber(block: Buffer, offset: number, length: number, field: string): number {
  const bytes = block.subarray(offset, offset + length);
  const first = bytes[0] ?? 0;
  if (first & 0x80) {
    if (first & 0x40) throw new TarFormatError(`negative base-256 ${field} in tar header`);
    let value = first & 0x3f;
    for (const byte of bytes.subarray(1)) {
      value = value * 256 + byte;
      if (!Number.isSafeInteger(value)) throw new TarFormatError(`${field} in tar header is too large`);
    }
    return value;
  }
  const text = bytes.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`invalid octal ${field} ${JSON.stringify(text)} in tar header`);
  return parseInt(text, 8);
}

function verifyChecksum(block: Buffer): void {
  const stored = readNumber(block, 148, 8, 'checksum');
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i += 1) {
    const byte = i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  if (stored !== unsigned && stored !== signed)
    throw new TarFormatError('tar header checksum mismatch (not a tar archive, or corrupted)');
}

/** Parses PAX records: `<length> <key>=<value>\n`, the length counting the whole record. */
export function parsePaxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) throw new TarFormatError('malformed PAX record: no length');
    const lengthText = data.subarray(offset, space).toString('latin1');
    if (!/^[0-9]+$/.test(lengthText)) throw new TarFormatError('malformed PAX record length');
    const length = parseInt(lengthText, 10);
    const end = offset + length;
    if (length <= space - offset + 1 || end > data.length || data[end - 1] !== 0x0a) {
      throw new TarFormatError('malformed PAX record');
    }
    const record = data.subarray(space + 1, end - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals <= 0) throw new TarFormatError('malformed PAX record: no key');
    records.set(record.slice(0, equals), record.slice(equals + 1));
    offset = end;
  }
  return records;
}

function entryType(flag: string): TarEntryType {
  switch (flag) {
    case '0':
    case '\0':
    case '7':
      return 'file';
    case '5':
      return 'directory';
    case '2':
      return 'symlink';
    case '1':
      return 'hardlink';
    case '3':
    case '4':
      return 'device';
    case '6':
      return 'fifo';
    default:
      return 'other';
  }
}

/**
 * The type flag, name and declared size of the header block at `offset`, or undefined at
 * the end-of-archive zero block; for checking limits while an archive is still inflating.
 */
export function peekHeader(
  archive: Buffer,
  offset: number,
): { typeFlag: string; name: string; size: number } | undefined {
  const header = archive.subarray(offset, offset + BLOCK);
  if (header.length < BLOCK || isZeroBlock(header)) return undefined;
  verifyChecksum(header);
  return {
    typeFlag: String.fromCharCode(header[156] ?? 0),
    name: readString(header, 0, 100),
    size: readNumber(header, 124, 12, 'size'),
  };
}

export interface TarReadLimits {
  /** Largest size a single entry may declare, in bytes. */
  maxEntrySize: number;
  /** Largest PAX or GNU long-name header, in bytes. */
  maxHeaderSize: number;
}

const defaultReadLimits: TarReadLimits = { maxEntrySize: Number.MAX_SAFE_INTEGER, maxHeaderSize: 1024 * 1024 };

/**
 * Yields the entries of `archive` in order. Metadata entries (PAX `x`/`g`, GNU `L`/`K`)
 * are applied to the next entry and not yielded. Ends at two zero blocks, or at the end
 * of the buffer on a block boundary; a truncated entry is an error.
 */
export function* readTar(archive: Buffer, limits: Partial<TarReadLimits> = {}): Generator<TarEntry> {
  const { maxEntrySize, maxHeaderSize } = { ...defaultReadLimits, ...limits };
  let offset = 0;
  let pending: { path?: string; linkpath?: string; size?: number } = {};
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (isZeroBlock(header)) return;
    verifyChecksum(header);
    const typeFlag = String.fromCharCode(header[156] ?? 0);
    const magic = header.subarray(257, 263).toString('latin1');
    let name = readString(header, 0, 100);
    if (magic === 'ustar\0') {
      const prefix = readString(header, 345, 155);
      if (prefix !== '') name = `${prefix}/${name}`;
    }
    let size = readNumber(header, 124, 12, 'size');
    const isMeta = typeFlag === 'x' || typeFlag === 'g' || typeFlag === 'L' || typeFlag === 'K';
    if (!isMeta && pending.size !== undefined) size = pending.size;
    if (isMeta && size > maxHeaderSize)
      throw new TarFormatError(`tar ${typeFlag} header of ${size} bytes exceeds ${maxHeaderSize}`);
    if (!isMeta && size > maxEntrySize) {
      throw new TarFormatError(
        `tar entry ${JSON.stringify(pending.path ?? name)} is ${size} bytes, more than the limit of ${maxEntrySize}`,
      );
    }
    const dataStart = offset + BLOCK;
    const type = entryType(typeFlag);
    // Only files (and metadata) carry content; a size on other types is skipped as ustar says.
    const carriesData = isMeta || type === 'file' || type === 'other';
    const dataLength = carriesData ? size : 0;
    if (dataStart + dataLength > archive.length)
      throw new TarFormatError(`tar archive is truncated in entry ${JSON.stringify(name)}`);
    const data = archive.subarray(dataStart, dataStart + dataLength);
    offset = dataStart + Math.ceil(dataLength / BLOCK) * BLOCK;

    if (typeFlag === 'x') {
      const records = parsePaxRecords(data);
      const path = records.get('path');
      const linkpath = records.get('linkpath');
      const paxSize = records.get('size');
      if (path !== undefined) pending.path = path;
      if (linkpath !== undefined) pending.linkpath = linkpath;
      if (paxSize !== undefined) {
        if (!/^[0-9]+$/.test(paxSize)) throw new TarFormatError('malformed PAX size');
        pending.size = Number(paxSize);
      }
      continue;
    }
    if (typeFlag === 'g') {
      parsePaxRecords(data); // validated; global defaults are not applied (as Go's reader)
      continue;
    }
    if (typeFlag === 'L' || typeFlag === 'K') {
      const value = data.toString('utf8').replace(/\0+$/, '');
      if (typeFlag === 'L') pending.path = value;
      else pending.linkpath = value;
      continue;
    }

    const entry: TarEntry = {
      name: pending.path ?? name,
      type,
      typeFlag,
      mode: readNumber(header, 100, 8, 'mode'),
      size: carriesData ? size : 0,
      linkName: pending.linkpath ?? readString(header, 157, 100),
      data,
    };
    pending = {};
    yield entry;
  }
  if (offset !== archive.length) throw new TarFormatError('tar archive is truncated (partial header block)');
  if (Object.keys(pending).length > 0) throw new TarFormatError('tar archive ends after an extended header');
}
