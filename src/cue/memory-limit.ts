// A ceiling on the CUE engine's memory. Go's WebAssembly module defines its own linear
// memory with no maximum, so a CUE evaluation that grows without end (a bundle's
// `list.Range(0, 2e8, 1)`) takes the process to gigabytes before Go gives up with a fatal
// error and a goroutine dump. Here the module's memory section gets a maximum before the
// module is instantiated; past it, memory.grow fails inside Go, Go stops with "out of
// memory", and the engine reports that as one clear error (see wasm-runtime.ts), not a dump.
// The native engine (native-runtime.ts) gets the same limit as an argument: its Go runtime
// stops itself past it (src/cue/shim/memwatch.go), with the same error.

const PAGE_BYTES = 64 * 1024;
const MEMORY_SECTION = 5;
/** The most a 32-bit WebAssembly memory can hold, in pages (4 GiB). */
const MAX_PAGES = 65_536;

/** The default ceiling, in MiB. */
export const DEFAULT_MEMORY_LIMIT_MIB = 2048;

/** The one error both engines give when an evaluation passes the limit. */
export function memoryLimitMessage(limitMiB: number): string {
  return `the CUE evaluation needed more than the CUE engine's memory limit of ${limitMiB} MiB (cue-memory-limit) and was stopped; a CUE expression that builds a very large value (list.Range over millions of numbers, say) is the usual cause`;
}

export class MemoryLimitError extends Error {
  override name = 'MemoryLimitError';
}

function readLeb(bytes: Uint8Array, start: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let position = start;
  for (;;) {
    const byte = bytes[position++];
    if (byte === undefined) throw new MemoryLimitError('the CUE engine WebAssembly ends inside a number');
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, position];
    shift += 7;
  }
}

function writeLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    out.push(byte);
  } while (rest > 0);
  return out;
}

/** The module with its (single) memory limited to `limitMiB`; its initial size is kept. */
export function withMemoryLimit(module: Uint8Array, limitMiB: number): Uint8Array {
  if (!Number.isFinite(limitMiB) || limitMiB <= 0)
    throw new MemoryLimitError(`the CUE memory limit must be a positive number of MiB, not ${limitMiB}`);
  const maxPages = Math.min(MAX_PAGES, Math.floor((limitMiB * 1024 * 1024) / PAGE_BYTES));
  let position = 8; // magic and version
  while (position < module.length) {
    const id = module[position];
    const [size, payload] = readLeb(module, position + 1);
    if (id === MEMORY_SECTION) {
      const [count, limits] = readLeb(module, payload);
      if (count !== 1) throw new MemoryLimitError(`the CUE engine WebAssembly declares ${count} memories, expected 1`);
      const flags = module[limits];
      const [initial] = readLeb(module, limits + 1);
      if (flags !== 0 && flags !== 1)
        throw new MemoryLimitError(`the CUE engine WebAssembly's memory has flags ${String(flags)}, expected 0 or 1`);
      const max = Math.max(maxPages, initial);
      const section = [1, 1, ...writeLeb(initial), ...writeLeb(max)];
      const head = module.subarray(0, position);
      const tail = module.subarray(payload + size);
      const patched = new Uint8Array(head.length + 1 + writeLeb(section.length).length + section.length + tail.length);
      patched.set(head, 0);
      let at = head.length;
      patched[at++] = MEMORY_SECTION;
      for (const byte of [...writeLeb(section.length), ...section]) patched[at++] = byte;
      patched.set(tail, at);
      return patched;
    }
    position = payload + size;
  }
  throw new MemoryLimitError('the CUE engine WebAssembly has no memory section');
}
