// The dispatcher: usage without a command (exit 2) or with `help` (exit 0), an unknown
// command refused (exit 2), and a failed command reported on stderr, with a GitHub
// annotation on stdout inside Actions only. The flags of each command: options.test.ts.
import { describe, expect, it } from 'vitest';
import type { CommandIO } from '../../src/cli/io.js';
import { reportError } from '../../src/cli/dispatch.js';
import { runCliCaptured } from './run-cli.js';

describe('runCli', () => {
  it('prints the usage: exit 2 without a command, 0 when asked for', async () => {
    const bare = await runCliCaptured([], { cwd: '/' });
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Usage: timoni-fleet <command>');
    for (const command of ['vet', 'build', 'diff', 'apply', 'status', 'delete'])
      expect(bare.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const asked = await runCliCaptured(['help'], { cwd: '/' });
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe(bare.stdout);
  });

  it('refuses an unknown command with the usage on stderr', async () => {
    const result = await runCliCaptured(['plan'], { cwd: '/' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^✗ unknown command "plan"\nUsage: timoni-fleet/);
  });

  it('names the nearest command of a misspelt one', async () => {
    const result = await runCliCaptured(['aply', '-f', 'bundle.cue'], { cwd: '/' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^✗ unknown command "aply": did you mean apply\?\nUsage: timoni-fleet/);
  });

  it('prints the version of timoni-fleet, of CUE and the engine for version and --version', async () => {
    for (const argv of [['version'], ['--version']]) {
      const result = await runCliCaptured(argv, { cwd: '/' });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^timoni-fleet \d+\.\d+\.\d+\nCUE v\d+\.\d+\.\d+\nengine (native|WebAssembly)/);
    }
    expect((await runCliCaptured(['version', 'junk'], { cwd: '/' })).code).toBe(2);
  });
});

describe('reportError', () => {
  const capture = (env: NodeJS.ProcessEnv) => {
    const out = { stdout: '', stderr: '' };
    const io: CommandIO = {
      cwd: '/',
      env,
      stdout: (text) => (out.stdout += text),
      stderr: (text) => (out.stderr += text),
    };
    return { io, out };
  };

  it('prints the message on stderr, and nothing on stdout outside GitHub Actions', () => {
    const { io, out } = capture({});
    reportError(new Error('cluster one: connection refused'), io);
    expect(out).toEqual({ stdout: '', stderr: '✗ cluster one: connection refused\n' });
  });

  it('adds an error annotation on stdout inside GitHub Actions', () => {
    const { io, out } = capture({ GITHUB_ACTIONS: 'true' });
    reportError(new Error('cluster one: connection refused'), io);
    expect(out.stderr).toBe('✗ cluster one: connection refused\n');
    expect(out.stdout).toMatch(/^::error::cluster one: connection refused/);
  });
});
