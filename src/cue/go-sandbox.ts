// The sandbox that Go's WebAssembly runtime (wasm_exec.js) runs in. wasm_exec.js
// routes every file operation of the Go program through `globalThis.fs`; without
// one it installs a stub that prints Go's output with console.log, i.e. on
// standard output, where a line starting with `::` is a GitHub workflow command.
// This module installs, before wasm_exec.js is evaluated, a `globalThis.fs` that
// sends writes to file descriptors 1 and 2 to standard error and fails every other
// operation: the engine can neither read nor write host files. Look-ups (stat,
// lstat, open, readdir, readlink) fail with ENOENT, as if the host had no files:
// CUE's loader reads the caller's files from an in-memory overlay and asks the
// host only for paths the overlay lacks, which must read as "not found" (ENOSYS
// would abort the load). Everything else fails with ENOSYS.
import { constants as hostConstants, writeSync } from 'node:fs';

const STDOUT = 1;
const STDERR = 2;

type Callback = (error: Error | null, result?: unknown) => void;

function failure(code: 'ENOSYS' | 'ENOENT', operation: string): Error {
  const error = new Error(`${operation}: not available to the CUE engine (in-memory sandbox)`) as Error & {
    code: string;
  };
  error.code = code;
  return error;
}

const enosys = (operation: string) => failure('ENOSYS', operation);

/**
 * Go's own last words: once the Go runtime prints `fatal error:` (out of memory, say), the
 * goroutine dump that follows (hundreds of lines) is kept out of the log; the engine turns
 * the first lines into its error instead (see wasm-runtime.ts).
 */
const fatal = { text: '', dumping: false };
const FATAL_TEXT_LIMIT = 2048;

/** What Go printed from its first `fatal error:` line on (at most a few lines), if it did. */
export function goFatalOutput(): string | undefined {
  return fatal.dumping ? fatal.text : undefined;
}

function writeToStderr(fd: number, buffer: Uint8Array): number {
  if (fd !== STDOUT && fd !== STDERR) throw enosys(`write to file descriptor ${fd}`);
  const text = Buffer.from(buffer).toString('utf8');
  if (!fatal.dumping) {
    const start = text.search(/^(fatal error:|runtime: out of memory)/m);
    if (start >= 0) {
      fatal.dumping = true;
      const before = Buffer.from(text.slice(0, start));
      let written = 0;
      while (written < before.length) written += writeSync(STDERR, before, written, before.length - written);
      fatal.text = text.slice(start, start + FATAL_TEXT_LIMIT);
      return buffer.length;
    }
  } else {
    if (fatal.text.length < FATAL_TEXT_LIMIT) fatal.text = (fatal.text + text).slice(0, FATAL_TEXT_LIMIT);
    return buffer.length;
  }
  let written = 0;
  while (written < buffer.length) written += writeSync(STDERR, buffer, written, buffer.length - written);
  return buffer.length;
}

function refuse(operation: string, code: 'ENOSYS' | 'ENOENT') {
  return (...args: unknown[]): void => {
    const callback = args[args.length - 1];
    if (typeof callback === 'function') (callback as Callback)(failure(code, operation));
  };
}

/** Operations that look a path up: the host seems to have no files at all. */
export const lookupOperations = ['lstat', 'open', 'readdir', 'readlink', 'stat'] as const;

/** Every other operation Go may call: not implemented. */
export const refusedOperations = [
  'chmod',
  'chown',
  'close',
  'fchmod',
  'fchown',
  'fstat',
  'fsync',
  'ftruncate',
  'lchown',
  'link',
  'mkdir',
  'read',
  'rename',
  'rmdir',
  'symlink',
  'truncate',
  'unlink',
  'utimes',
] as const;

/** The `fs` object given to Go: writes to fds 1 and 2 go to standard error, nothing else works. */
export function createGoFileSystem(): Record<string, unknown> {
  const fileSystem: Record<string, unknown> = {
    // Go reads these flags at start-up and passes them back to open(), which fails
    // anyway; O_DIRECTORY must be a real flag, or Go refuses to read directories
    // itself ("not supported on Windows") instead of asking open().
    constants: {
      O_WRONLY: hostConstants.O_WRONLY,
      O_RDWR: hostConstants.O_RDWR,
      O_CREAT: hostConstants.O_CREAT,
      O_TRUNC: hostConstants.O_TRUNC,
      O_APPEND: hostConstants.O_APPEND,
      O_EXCL: hostConstants.O_EXCL,
      O_DIRECTORY: hostConstants.O_DIRECTORY,
    },
    writeSync: writeToStderr,
    write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null, callback: Callback) {
      if (offset !== 0 || length !== buffer.length || position !== null) {
        callback(enosys('positioned write'));
        return;
      }
      try {
        callback(null, writeToStderr(fd, buffer));
      } catch (error) {
        callback(error as Error);
      }
    },
  };
  for (const operation of lookupOperations) fileSystem[operation] = refuse(operation, 'ENOENT');
  for (const operation of refusedOperations) fileSystem[operation] = refuse(operation, 'ENOSYS');
  return fileSystem;
}

/** Marks the sandbox so that a second evaluation (e.g. two bundles in one process) is harmless. */
const SANDBOX_MARK = Symbol.for('timoni-fleet.cue.go-sandbox');

export function installGoSandbox(): void {
  const global = globalThis as unknown as Record<string | symbol, unknown>;
  const current = global.fs as Record<symbol, unknown> | undefined;
  if (current?.[SANDBOX_MARK]) return;
  const fileSystem = createGoFileSystem();
  Object.defineProperty(fileSystem, SANDBOX_MARK, { value: true });
  global.fs = fileSystem;
}

installGoSandbox();
