// The native engine's frames through two named pipes (src/cue/shim/fifo_unix.go), read
// and written by the calling thread itself, blocking: no other thread, no event loop
// between a call and its answer. Each end is opened in one direction only (requests for
// writing, responses for reading), so that the engine's process is the only other holder
// of each pipe: when it ends, a read returns the end of the pipe and a write fails with
// EPIPE (Node ignores SIGPIPE), and the pending call returns instead of waiting for ever.
// Frames: u32le length + method, u32le length + JSON request; u32le length + JSON
// response (src/cue/shim/frames.go).
//
// A call may also be sent without waiting (`send`, for a module build's evaluation, tens
// of milliseconds): its method goes with the `notify:` prefix, and once its response is
// on the pipe the engine writes an empty frame on its first response stream (file
// descriptor 3), which the event loop watches (native-process.ts) and hands to `notice`;
// the response is read then, without blocking. The engine answers in request order, so a
// blocking call made while sent calls wait reads their responses first (settling them)
// and then its own; the notices of responses read that way are skipped when they come.
import { closeSync, open, openSync, readSync, writeSync, constants } from 'node:fs';

export interface PipePaths {
  requests: string;
  responses: string;
}

/** The framed calls over the pipes: the response text, or undefined once the engine is gone. */
export interface PipeChannel {
  /** A call that blocks until its response (after those of the sent calls before it). */
  call(method: string, request: string): string | undefined;
  /** A call whose response is read when the engine's notice comes (`notice`). */
  send(method: string, request: string): Promise<string | undefined>;
  /** How many sent calls wait for their response. */
  readonly waiting: number;
  /** The engine's notice that the response of the oldest sent call is on the pipe. */
  notice(): void;
  /** The engine is gone: the sent calls still waiting get undefined. */
  abandon(): void;
  close(): void;
}

/** The method prefix that asks the engine for a notice once the response is written (src/cue/shim/frames.go). */
export const NOTIFY_PREFIX = 'notify:';

/** A request frame: u32le length + method, u32le length + JSON request. */
export function encodeFrame(method: string, request: string): Buffer {
  const name = Buffer.from(method);
  const body = Buffer.from(request);
  const frame = Buffer.allocUnsafe(8 + name.length + body.length);
  frame.writeUInt32LE(name.length, 0);
  name.copy(frame, 4);
  frame.writeUInt32LE(body.length, 4 + name.length);
  body.copy(frame, 8 + name.length);
  return frame;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Sleeps this thread (the engine's calls are synchronous: no timer can run meanwhile). */
export function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** Retries what a blocking call may still report (a signal). */
function again(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EAGAIN' && code !== 'EINTR') return false;
  sleepSync(1);
  return true;
}

/** Writes every byte; false when the engine's end is gone (EPIPE). */
function writeAll(fd: number, bytes: Buffer): boolean {
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') return false;
      if (!again(error)) throw error;
    }
  }
  return true;
}

/** Reads exactly `size` bytes; undefined when the pipe ends first. */
function readExactly(fd: number, size: number): Buffer | undefined {
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
    if (n === 0) return undefined;
    read += n;
  }
  return bytes;
}

function openAsync(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
}

/**
 * Opens the caller's ends once the engine answered with the paths: it opens its own right
 * after (requests first), and each open waits for the other side. The opens run off the
 * main thread, raced against `gone` (the engine's exit): when it exits first, the pending
 * open is released by opening the engine's side here, and the start fails.
 */
export async function openPipes(paths: PipePaths, gone: Promise<Error>): Promise<PipeChannel> {
  const opened: number[] = [];
  const release = (path: string, flags: number) => {
    try {
      closeSync(openSync(path, flags | constants.O_NONBLOCK));
    } catch {
      // Nothing waits on it.
    }
  };
  try {
    for (const [path, flags, releaseFlags] of [
      [paths.requests, 'w', constants.O_RDONLY],
      [paths.responses, 'r', constants.O_RDWR],
    ] as const) {
      const pending = openAsync(path, flags);
      const fd = await Promise.race([pending, gone.then((error) => Promise.reject(error))]).catch((error: unknown) => {
        release(path, releaseFlags);
        void pending.then(closeSync, () => undefined);
        throw error;
      });
      opened.push(fd);
    }
  } catch (error) {
    for (const fd of opened) closeSync(fd);
    throw error;
  }
  const [requests, responses] = opened as [number, number];
  const sent: ((response: string | undefined) => void)[] = [];
  // Notices still to come for responses a blocking call read first.
  let noticesToSkip = 0;
  // Closed by this side: notices that still come are not read.
  let closed = false;
  const readResponse = (): string | undefined => {
    const size = readExactly(responses, 4)?.readUInt32LE(0);
    if (size === undefined) return undefined;
    return readExactly(responses, size)?.toString('utf8');
  };
  const abandon = () => {
    for (const settle of sent.splice(0)) settle(undefined);
  };
  return {
    call(method, request) {
      if (!writeAll(requests, encodeFrame(method, request))) return undefined;
      while (sent.length > 0) {
        const settle = sent.shift() as (response: string | undefined) => void;
        settle(readResponse());
        noticesToSkip += 1;
      }
      return readResponse();
    },
    send(method, request) {
      if (!writeAll(requests, encodeFrame(NOTIFY_PREFIX + method, request))) return Promise.resolve(undefined);
      return new Promise((resolve) => sent.push(resolve));
    },
    get waiting() {
      return sent.length;
    },
    notice() {
      if (closed) return;
      if (noticesToSkip > 0) {
        noticesToSkip -= 1;
        return;
      }
      const settle = sent.shift();
      if (!settle) return;
      let response: string | undefined;
      try {
        response = readResponse();
      } catch {
        // The pipe failed under the read: the call is answered as by an engine that is gone.
      }
      settle(response);
    },
    abandon,
    close() {
      closed = true;
      abandon();
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
