// Starting, watching and stopping the long-running processes of the local fleet. Each
// process runs detached in its own process group with its output in a log file, so that
// `npm run fleet -- up` can exit and leave the fleet running; the recorded process id and
// command line let `down` (or the test teardown) stop exactly what was started.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';

export interface ProcessRecord {
  /** Component name, e.g. `etcd`, `kube-apiserver`. */
  component: string;
  pid: number;
  /** Absolute path of the executable, checked against /proc before the process is signalled. */
  binary: string;
  /** A string of the process's command line that only this fleet's processes carry (its state folder). */
  marker: string;
  logPath: string;
}

export interface StartOptions {
  component: string;
  binary: string;
  args: string[];
  logPath: string;
  marker: string;
  env?: Record<string, string>;
}

/** Starts a detached process writing stdout and stderr to `logPath`. */
export function startProcess(options: StartOptions): ProcessRecord {
  if (!existsSync(options.binary)) {
    throw new Error(
      `cannot start ${options.component}: binary ${options.binary} is missing (run \`npx tsx test/harness/fleet/build.ts\`)`,
    );
  }
  const log = openSync(options.logPath, 'a');
  try {
    const child = spawn(options.binary, options.args, {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, ...options.env },
    });
    if (child.pid === undefined)
      throw new Error(`cannot start ${options.component} (${options.binary}): no process id`);
    // Keep reaping the child if it exits while this process lives, but do not keep this process alive for it.
    child.on('error', () => undefined);
    child.unref();
    return {
      component: options.component,
      pid: child.pid,
      binary: options.binary,
      marker: options.marker,
      logPath: options.logPath,
    };
  } finally {
    closeSync(log);
  }
}

/** Fields of /proc/PID/stat after the command name (state, parent, ...), or null when there is no such process. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
}

/** True while a process with this id exists and is not a zombie. */
function alive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** True while the process exists, is not a zombie, and is still the one that was started. */
export function isRunning(record: ProcessRecord): boolean {
  const cmdline = commandLine(record.pid);
  if (cmdline === null || !alive(record.pid)) return false;
  return cmdline.split('\0')[0] === record.binary && cmdline.includes(record.marker);
}

/** Resident memory of a running process in KiB (VmRSS), or 0 when it does not run. */
export function residentKiB(record: ProcessRecord): number {
  if (!isRunning(record)) return 0;
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${record.pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The last `lines` lines of a component's log, for error messages. */
export function logTail(logPath: string, lines = 25): string {
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return `(no log at ${logPath})`;
  }
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

function signal(record: ProcessRecord, name: NodeJS.Signals): void {
  try {
    process.kill(record.pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Stops processes, in the given order, with SIGTERM, then SIGKILL after `graceMs`.
 * Resolves once none of them runs any more.
 */
export async function stopProcesses(records: ProcessRecord[], graceMs = 10_000): Promise<void> {
  for (const record of records) {
    if (!isRunning(record)) continue;
    signal(record, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (isRunning(record) && Date.now() < deadline) await sleep(50);
    if (isRunning(record)) signal(record, 'SIGKILL');
    while (isRunning(record)) await sleep(20);
  }
}

/** The same as `stopProcesses`, blocking, for `exit` handlers where nothing asynchronous runs. */
export function stopProcessesSync(records: ProcessRecord[], graceMs = 5_000): void {
  const running = records.filter(isRunning);
  for (const record of running) signal(record, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (running.some(isRunning) && Date.now() < deadline) sleepSync(25);
  for (const record of running.filter(isRunning)) signal(record, 'SIGKILL');
  const killDeadline = Date.now() + 2_000;
  while (running.some(isRunning) && Date.now() < killDeadline) sleepSync(10);
}

function parentOf(pid: number): number {
  return Number(statFields(pid)?.[1] ?? 0);
}

/** Process ids whose command line contains `marker`, leaving out this process and its ancestors. */
export function processesMentioning(marker: string): number[] {
  const spared = new Set<number>();
  for (let pid = process.pid; pid > 1; pid = parentOf(pid)) spared.add(pid);
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => !spared.has(pid) && (commandLine(pid)?.includes(marker) ?? false));
}

/**
 * Kills every process whose command line mentions `marker` (a fleet's folder followed by
 * `/`): stragglers that no state file records, such as a fleet a test started with the CLI
 * when the run was interrupted, or the interrupted `up` itself. SIGTERM, then SIGKILL after
 * `graceMs`; repeated until none is left, so that a process started meanwhile is caught too.
 * Returns how many processes were signalled.
 */
export function sweepProcessesSync(marker: string, graceMs = 3_000): number {
  let signalled = 0;
  for (let round = 0; round < 5; round += 1) {
    const found = processesMentioning(marker);
    if (found.length === 0) break;
    signalled += found.length;
    const kill = (pid: number, name: NodeJS.Signals) => {
      try {
        process.kill(pid, name);
      } catch {
        // Gone already.
      }
    };
    for (const pid of found) kill(pid, 'SIGTERM');
    const remaining = () => found.filter(alive);
    const deadline = Date.now() + graceMs;
    while (remaining().length > 0 && Date.now() < deadline) sleepSync(25);
    for (const pid of remaining()) kill(pid, 'SIGKILL');
    const killDeadline = Date.now() + 2_000;
    while (remaining().length > 0 && Date.now() < killDeadline) sleepSync(10);
  }
  return signalled;
}
