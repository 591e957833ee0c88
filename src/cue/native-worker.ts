// The worker thread that owns the native engine's process (src/cue/native-runtime.ts).
// The engine's API is synchronous, a child process is not: the main thread posts each
// call on a MessagePort and sleeps in Atomics.wait; this worker writes the request frame
// to the child's standard input, reads the response frame from its file descriptor 3,
// posts it back and wakes the main thread, which takes it with receiveMessageOnPort.
// Frames: u32le length + method, u32le length + JSON request; u32le length + JSON
// response (src/cue/shim/frames.go).
//
// The child's standard output and standard error go to this process's standard error
// (never its standard output, where a line starting with `::` is a workflow command),
// except Go's last words: from a `fatal error:` or `panic:` line on, the dump is kept
// out of the log and its first lines are handed back with the exit instead.
//
// Once the caller moved the frames to named pipes (native-pipes.ts), the worker only
// watches the child: when it ends, it unblocks the caller (see unblock below).
//
// The source is JavaScript in a string (a CommonJS worker started with `eval`), so that
// it survives bundling into dist/ unchanged; it uses only Node's built-in modules.

import { STOP_MARK, type PipePaths } from './native-pipes.js';

/** Shared Int32Array slots: the answer flag and the child's process id. */
export const SLOT_ANSWER = 0;
export const SLOT_PID = 1;
export const SHARED_SLOTS = 2;

/** A call as the main thread posts it. */
export interface WorkerCall {
  method: string;
  request: string;
}

/** Why the child is gone: it could not start, or it exited. */
export interface EngineStop {
  startError?: string;
  code?: number | null;
  signal?: string | null;
  /** Go's first lines from its `fatal error:` or `panic:` on, when it printed one. */
  fatal?: string;
}

/** The worker's answer to one call. */
export type WorkerAnswer = { response: string } | { stopped: EngineStop };

/** A message that tells the worker where the caller moved the frames. */
export interface WorkerFifos {
  fifos: PipePaths;
}

export const NATIVE_WORKER_SOURCE = `
'use strict';
const { workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const { constants, openSync, readSync, writeSync } = require('node:fs');
const { program, args, cwd, port, shared } = workerData;
const flags = new Int32Array(shared);
const FATAL_LIMIT = 2048;
const FATAL_START = /^(fatal error:|runtime: out of memory|panic: )/m;
let pending = false;
let stopped;
let fatal;
// The named pipes the caller reads and writes itself once it moved there (native-pipes.ts).
let fifos;

function answer(message) {
  pending = false;
  port.postMessage(message);
  Atomics.store(flags, ${SLOT_ANSWER}, 1);
  Atomics.notify(flags, ${SLOT_ANSWER});
}

function stop(reason) {
  if (stopped) return;
  stopped = reason;
  if (pending) answer({ stopped });
  if (fifos) unblock();
}

// The engine is gone while the caller may wait on the named pipes: empty the request
// pipe (a large request would wait for ever), tell the caller where a response length
// would be, and give it the reason. The worker opened its own ends of the pipes when
// the caller moved there (openFifos), while the engine surely ran.
function unblock() {
  setInterval(() => {
    try {
      while (readSync(fifos.requestsFd, fifos.sink, 0, fifos.sink.length, null) > 0);
    } catch {}
  }, 2);
  port.postMessage({ stopped });
  Atomics.store(flags, ${SLOT_ANSWER}, 1);
  Atomics.notify(flags, ${SLOT_ANSWER});
  try {
    const mark = Buffer.alloc(4);
    mark.writeUInt32LE(${STOP_MARK});
    writeSync(fifos.responsesFd, mark);
  } catch {}
}

function openFifos(paths) {
  return {
    requestsFd: openSync(paths.requests, constants.O_RDONLY | constants.O_NONBLOCK),
    responsesFd: openSync(paths.responses, constants.O_WRONLY | constants.O_NONBLOCK),
    sink: Buffer.allocUnsafe(1 << 16),
  };
}

process.on('uncaughtException', (error) => {
  stop({ startError: 'the native CUE engine worker failed: ' + (error && error.message) });
});

function toStderr(text) {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(2, bytes, written, bytes.length - written);
  } catch {}
}

function forward(data) {
  const text = data.toString('utf8');
  if (fatal !== undefined) {
    if (fatal.length < FATAL_LIMIT) fatal = (fatal + text).slice(0, FATAL_LIMIT);
    return;
  }
  const at = text.search(FATAL_START);
  if (at < 0) return toStderr(text);
  toStderr(text.slice(0, at));
  fatal = text.slice(at, at + FATAL_LIMIT);
}

// The child starts with the first call, so that the caller can start this worker while
// it is still unpacking the program.
let child;
function startChild() {
  try {
    child = spawn(program, args, { cwd, env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe'], windowsHide: true });
  } catch (error) {
    stop({ startError: error.message });
    return;
  }
  child.on('spawn', () => Atomics.store(flags, ${SLOT_PID}, child.pid));
  child.on('error', (error) => stop({ startError: error.message }));
  child.on('close', (code, signal) => stop({ code, signal, fatal }));
  child.stdin.on('error', () => {});
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  let chunks = [];
  let buffered = 0;
  const responses = child.stdio[3];
  responses.on('error', () => {});
  responses.on('data', (data) => {
    chunks.push(data);
    buffered += data.length;
    for (;;) {
      if (buffered < 4) return;
      if (chunks[0].length < 4) chunks = [Buffer.concat(chunks)];
      const size = chunks[0].readUInt32LE(0);
      if (buffered < 4 + size) return;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const rest = all.subarray(4 + size);
      chunks = rest.length > 0 ? [rest] : [];
      buffered = rest.length;
      answer({ response: all.toString('utf8', 4, 4 + size) });
    }
  });
}

port.on('message', (message) => {
  if (message.fifos) {
    try {
      fifos = openFifos(message.fifos);
    } catch (error) {
      stop({ startError: 'the native CUE engine worker cannot open the named pipes: ' + error.message });
      return;
    }
    if (stopped) unblock();
    return;
  }
  const { method, request } = message;
  pending = true;
  if (!child && !stopped) startChild();
  if (stopped) return answer({ stopped });
  const name = Buffer.from(method);
  const body = Buffer.from(request);
  const frame = Buffer.allocUnsafe(8 + name.length + body.length);
  frame.writeUInt32LE(name.length, 0);
  name.copy(frame, 4);
  frame.writeUInt32LE(body.length, 4 + name.length);
  body.copy(frame, 8 + name.length);
  child.stdin.write(frame);
});
`;
