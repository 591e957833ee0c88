// Writes tar archives byte for byte as Go's archive/tar does for the headers Timoni's
// module packager sets (owner, group and times zero): USTAR when the names fit (long
// paths split into prefix and name), PAX records otherwise. It writes whatever it is
// given, so tests can also build hostile archives (`..`, absolute paths, links).

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'fifo';

export interface TarEntry {
  /** Path inside the archive, written as given (no normalisation). */
  name: string;
  type: TarEntryType;
  /** Permission bits; default 0o644 for files, 0o755 for directories, 0o777 for links. */
  mode?: number;
  /** File content (files only). */
  content?: Buffer | string;
  /** Target of a symlink or hard link. */
  linkname?: string;
  uid?: number;
  gid?: number;
  /** Modification time in seconds since the epoch; default 0. */
  mtime?: number;
}

const blockSize = 512;
const typeflags: Record<TarEntryType, string> = { file: '0', hardlink: '1', symlink: '2', directory: '5', fifo: '6' };

function defaultMode(type: TarEntryType): number {
  if (type === 'directory') return 0o755;
  if (type === 'symlink' || type === 'hardlink') return 0o777;
  return 0o644;
}

const isAscii = (text: string) => Array.from(text).every((char) => (char.codePointAt(0) ?? 0) < 0x80);
const toAscii = (text: string) =>
  Array.from(text)
    .filter((char) => (char.codePointAt(0) ?? 0) < 0x80)
    .join('');

/** Copies `text` into the field as Go's formatString: NUL-terminated when shorter, truncated when longer. */
function putString(block: Buffer, offset: number, size: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  bytes.copy(block, offset, 0, Math.min(bytes.length, size));
  if (bytes.length < size) block[offset + bytes.length] = 0;
  // A truncated name must not end in '/', or readers would take a file for a directory.
  if (bytes.length > size && block[offset + size - 1] === 0x2f) {
    let kept = size - 1;
    while (kept > 0 && bytes[kept - 1] === 0x2f) kept--;
    block[offset + kept] = 0;
  }
}

/** Zero-padded octal leaving room for a NUL, as Go's formatOctal. */
function putOctal(block: Buffer, offset: number, size: number, value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 8 ** (size - 1)) {
    throw new Error(`tar field ${field}: ${value} does not fit ${size - 1} octal digits`);
  }
  putString(block, offset, size, value.toString(8).padStart(size - 1, '0'));
}

function setChecksum(block: Buffer): void {
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  putOctal(block, 148, 7, sum, 'chksum');
  block[155] = 0x20;
}

/** Go's splitUSTARPath: a prefix (<= 155 bytes) and a name (<= 100 bytes) split at a slash. */
function splitUstarPath(name: string): [string, string] | undefined {
  if (name.length <= 100 || !isAscii(name)) return undefined;
  let length = name.length;
  if (length > 156) length = 156;
  else if (name[length - 1] === '/') length--;
  const slash = name.lastIndexOf('/', length - 1);
  const suffixLength = name.length - slash - 1;
  if (slash <= 0 || suffixLength > 100 || suffixLength === 0 || slash > 155) return undefined;
  return [name.slice(0, slash), name.slice(slash + 1)];
}

interface HeaderFields {
  name: string;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  typeflag: string;
  linkname: string;
}

/** The V7 and USTAR fields Go's templateV7Plus fills, before magic and checksum. */
function templateBlock(fields: HeaderFields, text: (value: string) => string): Buffer {
  const block = Buffer.alloc(blockSize);
  block.write(fields.typeflag, 156, 'latin1');
  putString(block, 0, 100, text(fields.name));
  putString(block, 157, 100, text(fields.linkname));
  putOctal(block, 100, 8, fields.mode, 'mode');
  putOctal(block, 108, 8, fields.uid, 'uid');
  putOctal(block, 116, 8, fields.gid, 'gid');
  putOctal(block, 124, 12, fields.size, 'size');
  putOctal(block, 136, 12, fields.mtime, 'mtime');
  putString(block, 265, 32, '');
  putString(block, 297, 32, '');
  putOctal(block, 329, 8, 0, 'devmajor');
  putOctal(block, 337, 8, 0, 'devminor');
  return block;
}

function setUstarMagic(block: Buffer): void {
  block.write('ustar\0', 257, 'latin1');
  block.write('00', 263, 'latin1');
}

/** A PAX record `<len> <key>=<value>\n`, where len counts the whole record. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyLength = Buffer.byteLength(body);
  let size = bodyLength + String(bodyLength).length;
  if (String(size).length + bodyLength !== size) size = bodyLength + String(size).length;
  return `${size}${body}`;
}

function padding(length: number): Buffer {
  return Buffer.alloc((blockSize - (length % blockSize)) % blockSize);
}

function encodeEntry(entry: TarEntry): Buffer[] {
  const content = entry.type === 'file' ? Buffer.from(entry.content ?? '') : Buffer.alloc(0);
  const fields: HeaderFields = {
    name: entry.name,
    mode: entry.mode ?? defaultMode(entry.type),
    uid: entry.uid ?? 0,
    gid: entry.gid ?? 0,
    size: content.length,
    mtime: entry.mtime ?? 0,
    typeflag: typeflags[entry.type],
    linkname: entry.linkname ?? '',
  };

  const pax: Record<string, string> = {};
  const split = splitUstarPath(fields.name);
  const nameFits = isAscii(fields.name) && (fields.name.length <= 100 || split !== undefined);
  if (!nameFits) pax.path = fields.name;
  if (!isAscii(fields.linkname) || fields.linkname.length > 100) pax.linkpath = fields.linkname;

  const parts: Buffer[] = [];
  if (Object.keys(pax).length === 0) {
    const ustar = split ? { ...fields, name: split[1] } : fields;
    const block = templateBlock(ustar, (value) => value);
    if (split) putString(block, 345, 155, split[0]);
    setUstarMagic(block);
    setChecksum(block);
    parts.push(block);
  } else {
    const records = Object.keys(pax)
      .sort()
      .map((key) => paxRecord(key, pax[key] ?? ''))
      .join('');
    const data = Buffer.from(records, 'utf8');
    const slash = fields.name.lastIndexOf('/');
    const dir = slash < 0 ? '' : fields.name.slice(0, slash + 1);
    const base = fields.name.slice(slash + 1);
    let paxName = toAscii(joinPath(dir, 'PaxHeaders.0', base));
    if (paxName.length > 100) paxName = paxName.slice(0, 100);
    paxName = paxName.replace(/\/+$/, '');
    const paxBlock = Buffer.alloc(blockSize);
    paxBlock.write('x', 156, 'latin1');
    putString(paxBlock, 0, 100, paxName);
    putOctal(paxBlock, 100, 8, 0, 'mode');
    putOctal(paxBlock, 108, 8, 0, 'uid');
    putOctal(paxBlock, 116, 8, 0, 'gid');
    putOctal(paxBlock, 124, 12, data.length, 'size');
    putOctal(paxBlock, 136, 12, 0, 'mtime');
    setUstarMagic(paxBlock);
    setChecksum(paxBlock);
    parts.push(paxBlock, data, padding(data.length));

    const block = templateBlock(fields, toAscii);
    setUstarMagic(block);
    setChecksum(block);
    parts.push(block);
  }
  if (content.length > 0) parts.push(content, padding(content.length));
  return parts;
}

/** path.Join of Go for the PAX header name: cleans `dir/PaxHeaders.0/base`. */
function joinPath(dir: string, middle: string, base: string): string {
  const joined = [dir.replace(/\/+$/, ''), middle, base].filter((part) => part !== '').join('/');
  const absolute = joined.startsWith('/');
  const parts: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part === '..' && absolute) continue;
    else parts.push(part);
  }
  return (absolute ? '/' : '') + parts.join('/');
}

/** Encodes the entries in the given order, then the two zero blocks that end an archive. */
export function writeTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.type !== 'file' && entry.content !== undefined && Buffer.from(entry.content).length > 0) {
      throw new Error(`tar entry ${entry.name}: only files carry content, this one is a ${entry.type}`);
    }
    parts.push(...encodeEntry(entry));
  }
  parts.push(Buffer.alloc(2 * blockSize));
  return Buffer.concat(parts);
}
