// Runs the CLI in-process with captured output, for tests; or as a user runs it, the built
// `node dist/cli/index.js` in a process of its own (runBuiltCli).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { runCli } from '../../src/cli/dispatch.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCliCaptured(
  argv: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    cwd: options.cwd,
    env: options.env ?? {},
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** `node dist/cli/index.js <argv>` in `cwd`, with no environment but PATH, HOME (= cwd) and `env`. */
export function runBuiltCli(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
  const processEnv = { PATH: process.env.PATH ?? '', HOME: cwd, XDG_CACHE_HOME: join(cwd, 'cache'), ...env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...argv],
      { cwd, env: processEnv, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}
