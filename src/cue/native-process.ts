// The native engine's process as this (main) thread holds it, with no other thread:
// started with an empty environment in its private folder; its first calls (the start
// check, then the switch to named pipes) are frames on its standard input and file
// descriptor 3, answered through the event loop; later calls block on the named pipes
// (native-pipes.ts), while the event loop does not run. So why the process ended must
// also be known without the event loop:
// - its standard error goes to a file in its private folder, never to a pipe (a pipe
//   nobody drains while this thread waits would stop Go's fatal dump half-way, and the
//   process with it). Go's last words, from a `fatal error:` or `panic:` line on, are
//   kept for the error message; what came before goes to this process's standard error
//   (never its standard output, where a line starting with `::` is a workflow command),
//   as does the program's standard output, directly;
// - its exit status is read from /proc/<pid>/stat while it waits to be reaped (Linux);
//   the exit event gives it when the event loop ran since.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { encodeFrame, sleepSync } from './native-pipes.js';

/** Why the process is gone: it could not start, or it exited. */
export interface EngineStop {
  startError?: string;
  code?: number | null;
  signal?: string | null;
  /** Go's first lines from its `fatal error:` or `panic:` on, when it printed one. */
  fatal?: string;
}

const FATAL_START = /^(fatal error:|runtime: out of memory|panic: )/m;
const FATAL_LIMIT = 2048;

/** How long a stopped process may take to become a zombie once its pipes ended. */
const REAP_WAIT_MS = 2_000;

function signalName(signal: number): string {
  return Object.entries(constants.signals).find(([, value]) => value === signal)?.[0] ?? `signal ${signal}`;
}

/** The exit status of a dead, not yet reaped child, from /proc (Linux); undefined elsewhere or while it runs. */
function zombieStatus(pid: number): Pick<EngineStop, 'code' | 'signal'> | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) start at the state, field 3;
  // the exit status (as waitpid gives it) is field 52.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] !== 'Z') return undefined;
  const status = Number(fields[49]);
  if (!Number.isInteger(status)) return undefined;
  const signal = status & 0x7f;
  return signal === 0 ? { code: (status >> 8) & 0xff, signal: null } : { code: null, signal: signalName(signal) };
}

export class EngineProcess {
  readonly #child: ChildProcess;
  readonly #stderrPath: string;
  #stderrShown = 0;
  #stopped: EngineStop | undefined;
  #pending: { resolve: (response: string) => void; reject: (error: EngineStop) => void } | undefined;
  /** Once the calls moved to the named pipes: what an (empty) frame on file descriptor 3 means. */
  #onNotice: (() => void) | undefined;
  /** Settles with the stop once the process is gone (seen by the event loop). */
  readonly gone: Promise<EngineStop>;

  constructor(program: string, args: string[], workdir: string, stderrPath: string) {
    this.#stderrPath = stderrPath;
    const stderrFd = openSync(stderrPath, 'w', 0o600);
    try {
      this.#child = spawn(program, args, {
        cwd: workdir,
        env: {},
        stdio: ['pipe', 2, stderrFd, 'pipe'],
        windowsHide: true,
      });
    } finally {
      closeSync(stderrFd);
    }
    const stdin = this.#child.stdin as Writable;
    const responses = this.#child.stdio[3] as Readable;
    for (const stream of [stdin, responses]) stream.on('error', () => {});
    this.gone = new Promise((resolve) => {
      this.#child.on('error', (error) => resolve(this.#stop({ startError: error.message })));
      this.#child.on('exit', (code, signal) => resolve(this.#stop({ code, signal })));
    });
    this.#readFrames(responses);
  }

  /**
   * Lets this process end without waiting for the engine's (once the calls moved to the
   * named pipes; during the start, the awaited answers need the event loop alive).
   */
  detach(onNotice: () => void): void {
    this.#onNotice = onNotice;
    this.#child.unref();
    for (const stream of [this.#child.stdin, this.#child.stdio[3]])
      (stream as { unref?: () => void } | null)?.unref?.();
  }

  /**
   * Keeps this process alive while a sent call waits for its notice (the event loop must
   * run until it comes), or lets it end again.
   */
  awaitNotices(waiting: boolean): void {
    const notices = this.#child.stdio[3] as { ref?: () => void; unref?: () => void } | null;
    if (waiting) notices?.ref?.();
    else notices?.unref?.();
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** One call through standard input and file descriptor 3 (the start, before the named pipes). */
  callAsync(method: string, request: string): Promise<string> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#child.stdin?.write(encodeFrame(method, request));
    });
  }

  /**
   * Why the process stopped, once a named pipe told so (its end, or EPIPE): from the exit
   * event when the event loop saw it, else from /proc while the process waits to be
   * reaped (waiting for it a moment), else without the status.
   */
  stopNow(): EngineStop {
    if (this.#stopped) return this.#stopped;
    const until = Date.now() + REAP_WAIT_MS;
    let status = zombieStatus(this.pid);
    while (!status && Date.now() < until) {
      sleepSync(2);
      status = zombieStatus(this.pid);
    }
    return this.#stop(status ?? { code: null, signal: null });
  }

  /** Kills the process (if it runs) and shows what it wrote to standard error since the last time. */
  kill(): void {
    try {
      this.#child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
    this.#stop({ startError: 'the engine was stopped' });
  }

  #stop(stop: EngineStop): EngineStop {
    if (this.#stopped) return this.#stopped;
    const fatal = this.#showStderr();
    this.#stopped = fatal === undefined ? stop : { ...stop, fatal };
    this.#pending?.reject(this.#stopped);
    this.#pending = undefined;
    return this.#stopped;
  }

  /** Copies the new part of the standard error file to this process's, up to Go's fatal dump; returns the dump's start. */
  #showStderr(): string | undefined {
    let text: string;
    try {
      text = readFileSync(this.#stderrPath, 'utf8').slice(this.#stderrShown);
    } catch {
      return undefined;
    }
    this.#stderrShown += text.length;
    const at = text.search(FATAL_START);
    const shown = at < 0 ? text : text.slice(0, at);
    try {
      if (shown) writeSync(2, shown);
    } catch {
      // Nowhere to show it.
    }
    return at < 0 ? undefined : text.slice(at, at + FATAL_LIMIT);
  }

  #readFrames(responses: Readable): void {
    let buffered: Buffer = Buffer.alloc(0);
    responses.on('data', (data: Buffer) => {
      buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
      while (buffered.length >= 4) {
        const size = buffered.readUInt32LE(0);
        if (buffered.length < 4 + size) return;
        const response = buffered.toString('utf8', 4, 4 + size);
        buffered = buffered.subarray(4 + size);
        const pending = this.#pending;
        this.#pending = undefined;
        if (pending) pending.resolve(response);
        else this.#onNotice?.();
      }
    });
  }
}
