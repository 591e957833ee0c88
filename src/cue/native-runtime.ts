// Starts the native build of the Go shim (src/cue/shim, built by scripts/build-cue.mjs
// into dist/native/<goos>-<goarch>/cue-shim.gz) as a child process and returns the same
// synchronous Bridge as the WebAssembly engine. This thread holds the child
// (native-process.ts): the start check and the switch to named pipes are asynchronous
// frames on its standard input and file descriptor 3, then every call goes through two
// named pipes that this thread writes and reads itself, blocking (native-pipes.ts).
//
// The child is confined as far as an unprivileged process can be: an empty environment,
// a fresh private (0700) temporary folder as its working directory, removed at exit (by
// this process, or by the child when this process dies first: its standard input then
// ends), files only from the in-memory overlay of each load (as in WebAssembly; cue/load
// looks at the host only under the virtual root /timoni-fleet-virtual/load-<n>, which
// does not exist), no module registry, nothing written to standard output. It is killed
// when this process exits, and stops itself past the memory limit (exit code 86).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findEngineArtifact } from './artifacts.js';
import type { AsyncBridge, Bridge } from './bridge.js';
import { DEFAULT_MEMORY_LIMIT_MIB, memoryLimitMessage } from './memory-limit.js';
import { openPipes, type PipeChannel, type PipePaths } from './native-pipes.js';
import { EngineProcess, type EngineStop } from './native-process.js';
import { nativeProgram, type NativeProgram } from './native-program.js';
import { defaultCacheDir } from '../private-cache-dir.js';
import { CueEngineStopped } from './error.js';
import { STOPPED_FROM_OUTSIDE, type EngineStopper } from './types.js';

/** The exit code with which the shim stops past its memory limit (src/cue/shim/bridge_other.go). */
const EXIT_MEMORY_LIMIT = 86;

/** How long the start check (first answer of the child) may take. */
const START_TIMEOUT_MS = 20_000;

/** The artifact folder name of this platform (Go's names), or undefined where none is built. */
export function nativePlatform(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string | undefined {
  const goarch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[arch];
  if (!goarch || (platform !== 'linux' && platform !== 'darwin')) return undefined;
  const name = `${platform}-${goarch}`;
  return ['linux-amd64', 'linux-arm64', 'darwin-arm64'].includes(name) ? name : undefined;
}

/** dist/native/<platform>/cue-shim.gz, found as artifacts.ts says; undefined when this platform has none. */
export function locateNative(): string | undefined {
  const platform = nativePlatform();
  if (!platform) return undefined;
  return findEngineArtifact(join('native', platform, 'cue-shim.gz')).found;
}

export interface NativeOptions {
  /** Ceiling on the engine's memory in MiB (default DEFAULT_MEMORY_LIMIT_MIB). */
  memoryLimitMiB?: number;
  /** The artifact to run (default: locateNative()). */
  artifact?: string;
  /** Where the unpacked program is kept between runs (default: the private cache folder `engines`); null: unpacked for this run only. */
  cacheDir?: string | null;
}

/** The running native engine. */
export interface NativeEngine {
  bridge: Bridge;
  /** A call answered through the event loop (the engine's notice, native-pipes.ts). */
  later: AsyncBridge;
  /** The child's process id (for tests and measurements). */
  pid: number;
  /** The child's private working folder (removed when it stops). */
  workdir: string;
  /** Kills the child and removes its folder; later calls fail. */
  stop(): void;
  /** What lets another thread stop the child during a call (types.ts, EngineStopper). */
  stopper: EngineStopper;
}

/** The error for a call during which (or before which) the child stopped. */
function stoppedError(method: string, stop: EngineStop, limitMiB: number, state?: Int32Array): Error {
  if (state && Atomics.load(state, 0) === STOPPED_FROM_OUTSIDE) return new CueEngineStopped(method);
  if (stop.startError !== undefined)
    return new Error(`the native CUE engine could not run ${method}: ${stop.startError}`);
  if (stop.code === EXIT_MEMORY_LIMIT || /out of memory/.test(stop.fatal ?? ''))
    return new Error(memoryLimitMessage(limitMiB));
  const how = stop.signal ? `signal ${stop.signal}` : `exit code ${stop.code ?? 'unknown'}`;
  const first = (stop.fatal ?? '').split('\n').slice(0, 2).join(' ').trim();
  return new Error(`the CUE engine stopped while running ${method} (${how})${first ? `: ${first}` : ''}`);
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
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir('engines') : options.cacheDir;
  let engine: EngineProcess | undefined;
  const cleanup = () => {
    engine?.kill();
    rmSync(workdir, { recursive: true, force: true });
  };
  // From here on the folder goes at exit, also when the start fails half-way.
  process.once('exit', cleanup);
  const launch = async (program: NativeProgram): Promise<{ running: EngineProcess; channel: PipeChannel }> => {
    const started = new EngineProcess(
      program.path,
      ['--memory-limit-mib', String(memoryLimitMiB), '--workdir', workdir],
      workdir,
      join(workdir, 'stderr'),
    );
    engine = started;
    const gone = started.gone.then((stop) => stoppedError('its start check', stop, memoryLimitMiB));
    const call = (method: string) =>
      withTimeout(
        started
          .callAsync(method, '{}')
          .catch((stop: EngineStop) => Promise.reject(stoppedError('its start check', stop, memoryLimitMiB))),
        `the native CUE engine did not answer within ${START_TIMEOUT_MS / 1000} s of its start`,
      );
    const version = await call('version');
    if (!/"cue":"v\d/.test(version))
      throw new Error(`the native CUE engine answered its start check with ${version.slice(0, 200)}`);
    const { result, error } = JSON.parse(await call('useFifos')) as { result?: PipePaths; error?: unknown };
    if (!result)
      throw new Error(`the native CUE engine cannot use named pipes: ${JSON.stringify(error).slice(0, 200)}`);
    const channel = await openPipes(result, gone);
    started.detach(() => {
      channel.notice();
      if (channel.waiting === 0) started.awaitNotices(false);
    });
    // An engine that stops while sent calls wait answers them with its end.
    void started.gone.then(() => channel.abandon());
    return { running: started, channel };
  };
  let running: EngineProcess;
  let channel: PipeChannel;
  try {
    const program = await nativeProgram(artifact, workdir, cacheDir);
    try {
      ({ running, channel } = await launch(program));
    } catch (error) {
      if (!program.cached) throw error;
      // A cached program that does not start (damaged since): unpacked again, once.
      engine?.kill();
      const again = await nativeProgram(artifact, workdir, cacheDir, true);
      try {
        ({ running, channel } = await launch(again));
      } catch (failure) {
        rmSync(again.path, { force: true });
        throw failure;
      }
    }
    // The child has its program open; a program unpacked for this run alone is not needed any more.
    if (!program.cached) rmSync(program.path, { force: true });
  } catch (error) {
    process.off('exit', cleanup);
    cleanup();
    throw error;
  }
  // Another thread that stops the child says so here first (EngineStopper): the calls then
  // fail as abandoned, not as a crash of the engine.
  const stopState = new SharedArrayBuffer(4);
  const state = new Int32Array(stopState);
  let stopped: EngineStop | undefined;
  const stop = () => {
    stopped ??= { startError: 'the engine was stopped' };
    process.off('exit', cleanup);
    channel.close();
    cleanup();
  };
  const bridge: Bridge = (method, request) => {
    if (stopped) throw stoppedError(method, stopped, memoryLimitMiB, state);
    const response = channel.call(method, request);
    if (response !== undefined) return response;
    stopped = running.stopNow();
    throw stoppedError(method, stopped, memoryLimitMiB, state);
  };
  const later: AsyncBridge = async (method, request) => {
    if (stopped) throw stoppedError(method, stopped, memoryLimitMiB, state);
    running.awaitNotices(true);
    const response = await channel.send(method, request);
    if (channel.waiting === 0) running.awaitNotices(false);
    if (response !== undefined) return response;
    stopped ??= running.stopNow();
    throw stoppedError(method, stopped, memoryLimitMiB, state);
  };
  return { bridge, later, pid: running.pid, workdir, stop, stopper: { pid: running.pid, state: stopState } };
}

/** Rejects with `message` when the promise takes longer than the start may. */
function withTimeout<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), START_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
