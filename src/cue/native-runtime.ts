// Starts the native build of the Go shim (src/cue/shim, built by scripts/build-cue.mjs
// into native/<goos>-<goarch>/cue-shim.gz) as a child process and returns the same
// synchronous Bridge as the WebAssembly engine. A worker thread owns the child
// (native-worker.ts); the first calls cross through it while the caller sleeps in
// Atomics.wait, then the calls go through two named pipes that the caller reads and
// writes itself, blocking (native-pipes.ts).
//
// The child is confined as far as an unprivileged process can be: an empty environment,
// a fresh private (0700) temporary folder as its working directory, removed at exit (by
// this process, or by the child when this process dies first: its standard input then
// ends), files only from the in-memory overlay of each load (as in WebAssembly; cue/load
// looks at the host only under the virtual root /timoni-fleet-virtual/load-<n>, which
// does not exist), no module registry, nothing written to standard output. It is killed
// when this process exits, and stops itself past the memory limit (exit code 86).
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Bridge } from './bridge.js';
import { DEFAULT_MEMORY_LIMIT_MIB, memoryLimitMessage } from './memory-limit.js';
import { openPipes, type PipeChannel, type PipePaths } from './native-pipes.js';
import { NATIVE_WORKER_SOURCE, SHARED_SLOTS, SLOT_ANSWER, SLOT_PID, type EngineStop, type WorkerAnswer, type WorkerFifos } from './native-worker.js';

/** The exit code with which the shim stops past its memory limit (src/cue/shim/bridge_other.go). */
const EXIT_MEMORY_LIMIT = 86;

/** Bytes per step when unpacking the program (larger steps: fewer round trips, same memory order). */
const UNPACK_CHUNK = 1024 * 1024;

/** How long the start check (first answer of the child) may take. */
const START_TIMEOUT_MS = 20_000;

/** The artifact folder name of this platform (Go's names), or undefined where none is built. */
export function nativePlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const goarch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[arch];
  if (!goarch || (platform !== 'linux' && platform !== 'darwin')) return undefined;
  const name = `${platform}-${goarch}`;
  return ['linux-amd64', 'linux-arm64', 'darwin-arm64'].includes(name) ? name : undefined;
}

/**
 * Where native/<platform>/cue-shim.gz may be, relative to this module: beside the bundled
 * dist/index.js, one level up from dist/cli/index.js, or beside the sources (src/cue).
 * Undefined when this platform has no artifact.
 */
export function locateNative(moduleUrl: string = import.meta.url): string | undefined {
  const platform = nativePlatform();
  if (!platform) return undefined;
  const here = dirname(fileURLToPath(moduleUrl));
  for (const base of ['native', '../native']) {
    const path = join(here, base, platform, 'cue-shim.gz');
    if (existsSync(path)) return path;
  }
  return undefined;
}

export interface NativeOptions {
  /** Ceiling on the engine's memory in MiB (default DEFAULT_MEMORY_LIMIT_MIB). */
  memoryLimitMiB?: number;
  /** The artifact to run (default: locateNative()). */
  artifact?: string;
}

/** The running native engine. */
export interface NativeEngine {
  bridge: Bridge;
  /** The child's process id (for tests and measurements). */
  pid: number;
  /** The child's private working folder (removed when it stops). */
  workdir: string;
  /** Kills the child and removes its folder; later calls fail. */
  stop(): void;
}

/** The error for a call during which (or before which) the child stopped. */
function stoppedError(method: string, stop: EngineStop, limitMiB: number): Error {
  if (stop.startError !== undefined) return new Error(`the native CUE engine could not run ${method}: ${stop.startError}`);
  if (stop.code === EXIT_MEMORY_LIMIT || /out of memory/.test(stop.fatal ?? '')) return new Error(memoryLimitMessage(limitMiB));
  const how = stop.signal ? `signal ${stop.signal}` : `exit code ${stop.code ?? 'unknown'}`;
  const first = (stop.fatal ?? '').split('\n').slice(0, 2).join(' ').trim();
  return new Error(`the CUE engine stopped while running ${method} (${how})${first ? `: ${first}` : ''}`);
}

/** Runs one call through the worker; waits at most `timeoutMs` (undefined: for ever). */
function callThrough(port: MessagePort, flags: Int32Array, method: string, request: string, timeoutMs?: number): WorkerAnswer | undefined {
  Atomics.store(flags, SLOT_ANSWER, 0);
  port.postMessage({ method, request });
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  for (;;) {
    const left = deadline === undefined ? undefined : deadline - Date.now();
    if (left !== undefined && left <= 0) return undefined;
    Atomics.wait(flags, SLOT_ANSWER, 0, left);
    if (Atomics.load(flags, SLOT_ANSWER) === 0) continue;
    const received = receiveMessageOnPort(port);
    if (received) return received.message as WorkerAnswer;
  }
}

/**
 * Moves the frames to named pipes (native-pipes.ts); undefined when the engine cannot
 * (it then keeps answering through the worker).
 */
function movePipes(port: MessagePort, flags: Int32Array): PipeChannel | undefined {
  const answer = callThrough(port, flags, 'useFifos', '{}', START_TIMEOUT_MS);
  if (answer === undefined || 'stopped' in answer) return undefined;
  const { result } = JSON.parse(answer.response) as { result?: PipePaths };
  if (!result) return undefined;
  // The engine waits for these ends to be opened: failing here leaves it unusable.
  const pipes = openPipes(result);
  port.postMessage({ fifos: result } satisfies WorkerFifos);
  Atomics.store(flags, SLOT_ANSWER, 0);
  return pipes;
}

/** Why the engine stopped, from the worker (it posts the reason once it saw the end). */
function stopReason(port: MessagePort, flags: Int32Array): EngineStop {
  const until = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < until) {
    const received = receiveMessageOnPort(port)?.message as WorkerAnswer | undefined;
    if (received && 'stopped' in received) return received.stopped;
    Atomics.wait(flags, SLOT_ANSWER, 0, 10);
  }
  return { startError: 'the engine stopped without a reason' };
}

/**
 * Starts the native engine and checks it answers (`version`). Throws when this platform
 * has no artifact or the program cannot run here (a temporary folder mounted noexec, say);
 * the caller then uses the WebAssembly engine. The program is unpacked as a stream (off the
 * main thread, without holding its 18 MB in memory).
 */
export async function startNative(options: NativeOptions = {}): Promise<NativeEngine> {
  const memoryLimitMiB = options.memoryLimitMiB ?? DEFAULT_MEMORY_LIMIT_MIB;
  const artifact = options.artifact ?? locateNative();
  if (!artifact) throw new Error(`no native CUE engine is built for ${process.platform}-${process.arch}`);
  const workdir = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-engine-'));
  const executable = join(workdir, 'cue-shim');
  const shared = new SharedArrayBuffer(SHARED_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  const flags = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  let worker: Worker | undefined;
  let pipes: PipeChannel | undefined;
  const cleanup = () => {
    const pid = Atomics.load(flags, SLOT_PID);
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    rmSync(workdir, { recursive: true, force: true });
  };
  // From here on the folder goes at exit, also when the start fails half-way.
  process.once('exit', cleanup);
  try {
    worker = new Worker(NATIVE_WORKER_SOURCE, {
      eval: true,
      workerData: { program: executable, args: ['--memory-limit-mib', String(memoryLimitMiB), '--workdir', workdir], cwd: workdir, port: port2, shared },
      transferList: [port2],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    // The worker boots while the program is unpacked; it starts the child with the first call.
    try {
      await pipeline(createReadStream(artifact, { highWaterMark: UNPACK_CHUNK }), createGunzip({ chunkSize: UNPACK_CHUNK }), createWriteStream(executable, { mode: 0o700, highWaterMark: UNPACK_CHUNK }));
    } catch (error) {
      throw new Error(`cannot unpack the native CUE engine ${artifact}: ${(error as Error).message}`, { cause: error });
    }
    const answer = callThrough(port1, flags, 'version', '{}', START_TIMEOUT_MS);
    if (answer === undefined) throw new Error(`the native CUE engine did not answer within ${START_TIMEOUT_MS / 1000} s of its start`);
    if ('stopped' in answer) throw stoppedError('its start check', answer.stopped, memoryLimitMiB);
    if (!/"cue":"v\d/.test(answer.response)) throw new Error(`the native CUE engine answered its start check with ${answer.response.slice(0, 200)}`);
    pipes = movePipes(port1, flags);
  } catch (error) {
    pipes?.close();
    void worker?.terminate();
    process.off('exit', cleanup);
    cleanup();
    throw error;
  }
  // The child has its program open; the file is not needed any more.
  rmSync(executable, { force: true });
  let stopped: EngineStop | undefined;
  const stop = () => {
    stopped ??= { startError: 'the engine was stopped' };
    process.off('exit', cleanup);
    cleanup();
    pipes?.close();
    void worker?.terminate();
  };
  const bridge: Bridge = (method, request) => {
    if (stopped) throw stoppedError(method, stopped, memoryLimitMiB);
    if (pipes) {
      const response = pipes.call(method, request);
      if (response !== undefined) return response;
      stopped = stopReason(port1, flags);
      throw stoppedError(method, stopped, memoryLimitMiB);
    }
    const answer = callThrough(port1, flags, method, request) as WorkerAnswer;
    if ('stopped' in answer) {
      stopped = answer.stopped;
      throw stoppedError(method, stopped, memoryLimitMiB);
    }
    return answer.response;
  };
  return { bridge, pid: Atomics.load(flags, SLOT_PID), workdir, stop };
}
