// Reads tar archives (USTAR, PAX and GNU long names) into entries, for tests that check
// what a layer holds. Permissive on purpose: it reports hostile names as they are.
import { gunzipSync } from 'node:zlib';

export interface TarMember {
  name: string;
  /** The typeflag character: '0' file, '5' directory, '2' symlink, '1' hard link... */
  typeflag: string;
  mode: number;
  uid: number;
  gid: number;
  uname: string;
  gname: string;
  mtime: number;
  linkname: string;
  size: number;
  content: Buffer;
  /** 'ustar' with the USTAR magic, 'v7' without; PAX and GNU long names are folded in. */
  format: 'ustar' | 'gnu' | 'v7';
}

function cString(block: Buffer, offset: number, size: number): string {
  const field = block.subarray(offset, offset + size);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? size : end).toString('utf8');
}

function octal(block: Buffer, offset: number, size: number): number {
  const text = cString(block, offset, size).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function parsePax(data: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = Number(data.subarray(offset, space).toString('latin1'));
    if (space < 0 || !Number.isInteger(length) || length <= 0)
      throw new Error(`malformed PAX record at byte ${offset}`);
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    records[record.slice(0, equals)] = record.slice(equals + 1);
    offset += length;
  }
  return records;
}

/** Parses an uncompressed tar stream. */
export function readTar(archive: Buffer): TarMember[] {
  const members: TarMember[] = [];
  let offset = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  while (offset + 512 <= archive.length) {
    const block = archive.subarray(offset, offset + 512);
    if (block.every((byte) => byte === 0)) break;
    const size = octal(block, 124, 12);
    const typeflag = String.fromCharCode(block[156] ?? 0x30) || '0';
    const data = archive.subarray(offset + 512, offset + 512 + size);
    if (data.length < size)
      throw new Error(`tar member at offset ${offset} is truncated: ${data.length} of ${size} bytes`);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (typeflag === 'x') {
      pax = parsePax(data);
      continue;
    }
    if (typeflag === 'g') continue;
    if (typeflag === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (typeflag === 'K') {
      longLink = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    const magic = block.subarray(257, 263).toString('latin1');
    const format = magic === 'ustar\0' ? 'ustar' : magic === 'ustar ' ? 'gnu' : 'v7';
    const prefix = format === 'ustar' ? cString(block, 345, 155) : '';
    const rawName = cString(block, 0, 100);
    members.push({
      name: pax.path ?? longName ?? (prefix ? `${prefix}/${rawName}` : rawName),
      typeflag: typeflag === '\0' ? '0' : typeflag,
      mode: octal(block, 100, 8),
      uid: octal(block, 108, 8),
      gid: octal(block, 116, 8),
      uname: cString(block, 265, 32),
      gname: cString(block, 297, 32),
      mtime: octal(block, 136, 12),
      linkname: pax.linkpath ?? longLink ?? cString(block, 157, 100),
      size: pax.size !== undefined ? Number(pax.size) : size,
      content: Buffer.from(data),
      format,
    });
    pax = {};
    longName = undefined;
    longLink = undefined;
  }
  return members;
}

/** Gunzips a layer and parses the tar inside. */
export function readTarGzip(layer: Buffer): TarMember[] {
  return readTar(gunzipSync(layer));
}
