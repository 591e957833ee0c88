// Runs a whole process as a user runs it and measures it with its helper processes:
// wall time, CPU (user + system) and peak memory. The process itself is measured by
// /usr/bin/time (GNU time: its rusage, which counts the children it waited for); the
// children it leaves running until it exits (timoni-fleet's native CUE engine is killed
// at exit, never waited for) are sampled from /proc every 20 ms: the last CPU seen and
// their peak resident size (VmHWM). Linux only, like the local fleet.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const TICKS = 100;
const SAMPLE_MS = 20;

export interface ProcessUsage {
  wallMs: number;
  /** User + system CPU of the process and every helper process it started. */
  cpuMs: number;
  /** Peak resident memory of the process plus that of its helpers (MiB). */
  peakMiB: number;
  /** The helpers' share of cpuMs and peakMiB. */
  helperCpuMs: number;
  helperPeakMiB: number;
  code: number;
  stdout: string;
  stderr: string;
}

function childrenOf(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
        if (child) found.push(Number(child));
      }
    } catch {
      // The task ended.
    }
  }
  return found;
}

interface HelperSample {
  cpuTicks: number;
  hwmKiB: number;
}

function sample(pid: number): HelperSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name.
    const cpuTicks = Number(fields[11]) + Number(fields[12]);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { cpuTicks, hwmKiB: hwm ? Number(hwm[1]) : 0 };
  } catch {
    return undefined;
  }
}

/** Runs `command args` to its end and measures it (see above). */
export async function measureProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<ProcessUsage> {
  if (!existsSync('/usr/bin/time')) throw new Error('bench: /usr/bin/time (GNU time) is needed to measure processes');
  const scratch = mkdtempSync(join(tmpdir(), 'bench-usage-'));
  const report = join(scratch, 'time');
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', report, command, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const helpers = new Map<number, HelperSample>();
  const timer = setInterval(() => {
    if (child.pid === undefined) return;
    for (const main of childrenOf(child.pid)) {
      for (const helper of childrenOf(main)) {
        const seen = sample(helper);
        if (!seen) continue;
        // The last sample may find the helper exiting (a zombie has no VmHWM): keep maxima.
        const before = helpers.get(helper);
        helpers.set(helper, {
          cpuTicks: Math.max(seen.cpuTicks, before?.cpuTicks ?? 0),
          hwmKiB: Math.max(seen.hwmKiB, before?.hwmKiB ?? 0),
        });
      }
    }
  }, SAMPLE_MS);
  const code = await new Promise<number>((resolve) => child.on('close', (status) => resolve(status ?? -1)));
  clearInterval(timer);
  const wallMs = performance.now() - started;
  const [user, system, maxRssKiB] = readFileSync(report, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) as [
    number,
    number,
    number,
  ];
  rmSync(scratch, { recursive: true, force: true });
  let helperTicks = 0;
  let helperKiB = 0;
  for (const seen of helpers.values()) {
    helperTicks += seen.cpuTicks;
    helperKiB += seen.hwmKiB;
  }
  const helperCpuMs = (helperTicks * 1000) / TICKS;
  return {
    wallMs,
    cpuMs: (user + system) * 1000 + helperCpuMs,
    peakMiB: (maxRssKiB + helperKiB) / 1024,
    helperCpuMs,
    helperPeakMiB: helperKiB / 1024,
    code,
    stdout,
    stderr,
  };
}
