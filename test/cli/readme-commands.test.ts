// The README's command list ("The CLI" > "Commands") and exit-code table say what the CLI
// does: every command of `timoni-fleet --help` is listed, and nothing else; every flag the
// list names is one that command's `--help` lists, with the same values where the list
// gives them (`-o text|json`); the flags "every command also takes" are every command's;
// and each command's exit codes in the table are the ones its `--help` summary names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../harness/support/go-binary.js';
import { runCliCaptured } from './run-cli.js';

const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('### Commands\n'),
  readme.indexOf('\n## ', readme.indexOf('### Commands\n')),
);

/** `timoni-fleet <command> ...` lines of the section's first sh block, by command. */
function listedCommands(): Map<string, string> {
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return new Map(
    block
      .split('\n')
      .filter((line) => line.startsWith('timoni-fleet '))
      .map((line) => [line.split(/\s+/)[1] as string, line]),
  );
}

/** Each flag a README line names, with the values it lists (`-o text|json` -> output: [text, json]). */
function namedFlags(line: string): Array<{ flag: string; values?: string[] }> {
  const flags: Array<{ flag: string; values?: string[] }> = [];
  for (const match of line.matchAll(/(?<=[\s[])(--[a-z][a-z-]*|-[a-z])(?:[ =]([^\s\]]+))?/g)) {
    const flag = match[1] as string;
    const value = match[2];
    const values = value && value.includes('|') ? value.split('|') : undefined;
    flags.push(values ? { flag, values } : { flag });
  }
  return flags;
}

interface Help {
  /** Flag name (long) -> the value placeholder shown (`value`, `text|json`, or '' for a boolean). */
  flags: Map<string, string>;
  shorts: Map<string, string>;
}

async function help(command: string): Promise<Help> {
  const result = await runCliCaptured([command, '--help'], { cwd: '/' });
  expect(result.code, command).toBe(0);
  const flags = new Map<string, string>();
  const shorts = new Map<string, string>();
  for (const match of result.stdout.matchAll(/^ {2}(?:-([a-z]), )? *--([a-z-]+)(?: (\S+))?/gm)) {
    flags.set(match[2] as string, match[3] ?? '');
    if (match[1]) shorts.set(match[1], match[2] as string);
  }
  return { flags, shorts };
}

/** The codes a command's summary in `timoni-fleet --help` names: `(exit 0 in sync, 1 drift, 2 failure)`. */
async function summaryCodes(): Promise<Map<string, number[]>> {
  const usage = (await runCliCaptured(['--help'], { cwd: '/' })).stdout;
  const codes = new Map<string, number[]>();
  for (const match of usage.matchAll(/^ {2}([a-z]+) +.*?(?:\(exit ([^)]*)\))?$/gm)) {
    codes.set(match[1] as string, match[2] ? [...match[2].matchAll(/\b(\d) /g)].map((code) => Number(code[1])) : []);
  }
  return codes;
}

/** The codes the exit-code table gives each command: the columns 0, 1, 2 whose cell is not empty. */
function tableCodes(): Map<string, number[]> {
  const codes = new Map<string, number[]>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const cells = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const used = [0, 1, 2].filter((code) => cells[code + 1] !== '');
    for (const command of (cells[0] ?? '').matchAll(/`([a-z]+)`/g)) codes.set(command[1] as string, used);
  }
  return codes;
}

describe("the README's command list and each command's --help", () => {
  it('list the same commands', async () => {
    const codes = await summaryCodes();
    expect([...listedCommands().keys()].sort()).toEqual([...codes.keys()].sort());
  });

  it('name the same flags, with the same values', async () => {
    for (const [command, line] of listedCommands()) {
      if (command === 'version') continue;
      const { flags, shorts } = await help(command);
      for (const { flag, values } of namedFlags(line)) {
        const name = flag.startsWith('--') ? flag.slice(2) : shorts.get(flag.slice(1));
        expect(name && flags.has(name), `${command} --help lists ${flag}`).toBe(true);
        if (values) expect(flags.get(name as string), `${command} ${flag}`).toBe(values.join('|'));
      }
    }
  });

  it('offer the flags every command takes, and --deadline to those that reach clusters', async () => {
    for (const command of ['vet', 'build', 'diff', 'apply', 'status', 'delete']) {
      const { flags } = await help(command);
      for (const flag of ['runtime-env', 'allow-path', 'cue-memory-limit'])
        expect(flags.has(flag), `${command} --${flag}`).toBe(true);
      expect(flags.has('deadline'), `${command} --deadline`).toBe(
        ['diff', 'apply', 'status', 'delete'].includes(command),
      );
    }
    for (const flag of ['runtime-env', 'allow-path', 'cue-memory-limit', 'deadline'])
      expect(section).toContain(`--${flag}`);
  });

  it('give each command the exit codes the exit-code table gives it', async () => {
    const table = tableCodes();
    const summaries = await summaryCodes();
    for (const command of ['vet', 'build', 'diff', 'apply', 'status', 'delete']) {
      expect(table.get(command), command).toEqual(summaries.get(command));
    }
  });
});
