// Writes tar archives for tests, including ones a well-behaved writer never produces
// (absolute names, `..`, links, devices), in ustar form with optional PAX long names.
import { gzipSync } from 'node:zlib';

export interface TestEntry {
  name: string;
  /** `0` file (default), `5` directory, `2` symlink, `1` hard link, `3` char device, `6` FIFO. */
  type?: string;
  content?: string | Buffer;
  mode?: number;
  linkName?: string;
  /** Declared size, when it should differ from the content (to test limits). */
  declaredSize?: number;
  /** Put the name in a PAX `path` record (and a truncated one in the header). */
  pax?: boolean;
  /** Put the name in a GNU `L` long-name entry. */
  gnuLongName?: boolean;
}

function octal(value: number, length: number): string {
  return value.toString(8).padStart(length - 1, '0') + '\0';
}

function header(name: string, type: string, size: number, mode: number, linkName: string): Buffer {
  const block = Buffer.alloc(512);
  block.write(name.slice(0, 100), 0, 'utf8');
  block.write(octal(mode, 8), 100, 'latin1');
  block.write(octal(0, 8), 108, 'latin1');
  block.write(octal(0, 8), 116, 'latin1');
  block.write(octal(size, 12), 124, 'latin1');
  block.write(octal(0, 12), 136, 'latin1');
  block.write('        ', 148, 'latin1');
  block.write(type, 156, 'latin1');
  block.write(linkName.slice(0, 100), 157, 'utf8');
  block.write('ustar\0', 257, 'latin1');
  block.write('00', 263, 'latin1');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 'latin1');
  return block;
}

function pad(data: Buffer): Buffer {
  const rest = data.length % 512;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(512 - rest)]);
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

export function buildTar(entries: TestEntry[], options: { trailer?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const type = entry.type ?? '0';
    const content = Buffer.from(entry.content ?? '');
    const size = entry.declaredSize ?? (type === '0' ? content.length : 0);
    if (entry.pax) {
      const records = Buffer.from(paxRecord('path', entry.name));
      parts.push(header('PaxHeaders/x', 'x', records.length, 0o644, ''), pad(records));
    }
    if (entry.gnuLongName) {
      const name = Buffer.from(entry.name + '\0');
      parts.push(header('././@LongLink', 'L', name.length, 0o644, ''), pad(name));
    }
    parts.push(header(entry.name, type, size, entry.mode ?? (type === '5' ? 0o755 : 0o644), entry.linkName ?? ''));
    if (type === '0') parts.push(pad(content));
  }
  if (options.trailer !== false) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function buildTarGz(entries: TestEntry[]): Buffer {
  return gzipSync(buildTar(entries));
}
