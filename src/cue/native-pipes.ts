// The native engine's frames through two named pipes (src/cue/shim/fifo_unix.go), read
// and written by the calling thread itself, blocking: about a third of the time per call
// of the way through the worker thread (native-worker.ts), whose pipes belong to its own
// event loop. Both ends are opened read-write, so opening never blocks and the caller
// never sees the end of a pipe; when the engine's process ends, the worker makes the
// pending call return instead: it empties the request pipe (a write larger than the pipe
// holds would wait for ever) and writes STOP_MARK where a response length would be.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** Written by the worker in place of a response length once the engine stopped. */
export const STOP_MARK = 0xffffffff;

export interface PipePaths {
  requests: string;
  responses: string;
}

/** The framed calls over the pipes: the response text, or undefined once the engine stopped. */
export interface PipeChannel {
  call(method: string, request: string): string | undefined;
  close(): void;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Retries what a blocking call may still report (a signal, a full pipe). */
function again(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EAGAIN' && code !== 'EINTR') return false;
  Atomics.wait(pause, 0, 0, 1);
  return true;
}

function writeAll(fd: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      if (!again(error)) throw error;
    }
  }
}

function readExactly(fd: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    let n: number;
    try {
      n = readSync(fd, bytes, read, size - read, null);
    } catch (error) {
      if (again(error)) continue;
      throw error;
    }
    if (n === 0) throw new Error('the native CUE engine\'s response pipe ended');
    read += n;
  }
  return bytes;
}

export function openPipes(paths: PipePaths): PipeChannel {
  const requests = openSync(paths.requests, 'r+');
  let responses: number;
  try {
    responses = openSync(paths.responses, 'r+');
  } catch (error) {
    closeSync(requests);
    throw error;
  }
  return {
    call(method, request) {
      const name = Buffer.from(method);
      const body = Buffer.from(request);
      const frame = Buffer.allocUnsafe(8 + name.length + body.length);
      frame.writeUInt32LE(name.length, 0);
      name.copy(frame, 4);
      frame.writeUInt32LE(body.length, 4 + name.length);
      body.copy(frame, 8 + name.length);
      writeAll(requests, frame);
      const size = readExactly(responses, 4).readUInt32LE(0);
      if (size === STOP_MARK) return undefined;
      return readExactly(responses, size).toString('utf8');
    },
    close() {
      for (const fd of [requests, responses]) {
        try {
          closeSync(fd);
        } catch {
          // Already closed.
        }
      }
    },
  };
}
