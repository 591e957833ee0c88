import { describe, expect, it } from 'vitest';
import { formatFlagHelp, nearestFlag, parseArguments, UsageError, type FlagSpec } from '../../src/cli/arguments.js';

const specs: FlagSpec[] = [
  { name: 'file', short: 'f', kind: 'list', description: '' },
  { name: 'runtime-group', kind: 'string', default: '*', description: '' },
  { name: 'output', short: 'o', kind: 'string', default: 'text', choices: ['text', 'json'], description: '' },
  { name: 'wait', kind: 'boolean', default: 'true', description: '' },
  { name: 'runtime-from-env', kind: 'boolean', description: '' },
];

describe('parseArguments', () => {
  it('collects repeated and comma-separated list flags in order', () => {
    const args = parseArguments(['-f', 'a.cue', '--file=b.yaml,c.json', '-f=d.cue'], specs);
    expect(args.lists.get('file')).toEqual(['a.cue', 'b.yaml', 'c.json', 'd.cue']);
  });

  it('applies defaults and reads strings in both forms', () => {
    expect(parseArguments([], specs).strings.get('runtime-group')).toBe('*');
    expect(parseArguments(['--runtime-group', 'staging'], specs).strings.get('runtime-group')).toBe('staging');
    expect(parseArguments(['-o=json'], specs).strings.get('output')).toBe('json');
  });

  it('takes booleans bare or with =false / =true', () => {
    expect(parseArguments([], specs).booleans.get('wait')).toBe(true);
    expect(parseArguments(['--wait=false'], specs).booleans.get('wait')).toBe(false);
    expect(parseArguments(['--runtime-from-env'], specs).booleans.get('runtime-from-env')).toBe(true);
    expect(() => parseArguments(['--wait=maybe'], specs)).toThrow(/true or false/);
  });

  it('rejects unknown flags, missing values and values outside the choices', () => {
    expect(() => parseArguments(['--nope'], specs)).toThrow(UsageError);
    expect(() => parseArguments(['--nope'], specs, { command: 'diff' })).toThrow(
      'unknown flag --nope. Run `timoni-fleet diff --help` for the flags.',
    );
    expect(() => parseArguments(['-f'], specs)).toThrow(/needs a value/);
    expect(() => parseArguments(['-o', 'yaml'], specs)).toThrow(/one of text, json/);
  });
});

describe('nothing is ignored', () => {
  const context = { command: 'vet' };

  it('refuses a positional argument, also after --', () => {
    expect(() => parseArguments(['-f', 'a.cue', 'junk', 'more'], specs, context)).toThrow(
      'unexpected argument "junk": vet takes flags only (bundle files come with -f, runtime files with -r). Run `timoni-fleet vet --help` for the flags.',
    );
    expect(() => parseArguments(['--', 'b.cue'], specs, context)).toThrow('unexpected argument "b.cue"');
    expect(parseArguments(['-f', 'a.cue', '--'], specs, context).lists.get('file')).toEqual(['a.cue']);
  });

  it('refuses a boolean flag followed by true or false as a word, naming the spelling that works', () => {
    expect(() => parseArguments(['--wait', 'false'], specs, context)).toThrow(
      '--wait takes its value after "=": write --wait=false',
    );
    expect(() => parseArguments(['--runtime-from-env', 'true'], specs, context)).toThrow(
      'write --runtime-from-env=true',
    );
    // A boolean before another flag, or with its value after "=", is as before.
    expect(parseArguments(['--wait', '-f', 'a.cue'], specs, context).booleans.get('wait')).toBe(true);
    expect(parseArguments(['--wait=false', '-f', 'a.cue'], specs, context).booleans.get('wait')).toBe(false);
  });

  it('names the nearest flag of an unknown one, or the commands that take it', () => {
    expect(() => parseArguments(['--runtime-grup', 'x'], specs, context)).toThrow(
      'unknown flag --runtime-grup: did you mean --runtime-group? Run `timoni-fleet vet --help` for the flags.',
    );
    const others = new Map([['timeout', ['apply', 'delete']]]);
    expect(() => parseArguments(['--timeout', '5m'], specs, { command: 'status', otherCommandsFlags: others })).toThrow(
      'unknown flag --timeout: status does not take it (apply, delete do).',
    );
  });
});

describe('nearestFlag', () => {
  it.each([
    ['runtime-grup', 'runtime-group'],
    ['wiat', 'wait'],
    ['ouptut', 'output'],
    ['runtime-from', 'runtime-from-env'],
    ['fil', 'file'],
    ['kube', undefined],
    ['prune', undefined],
    ['x', undefined],
  ])('%s -> %s', (name, nearest) => {
    expect(nearestFlag(name, specs)).toBe(nearest);
  });
});

describe('formatFlagHelp', () => {
  it('shows the values of a flag with choices, "value" for others, nothing for booleans', () => {
    const help = formatFlagHelp(specs);
    expect(help).toMatch(/^ {2}-o, --output text\|json +\(default text\)$/m);
    expect(help).toMatch(/^ {6}--runtime-group value +\(default \*\)$/m);
    expect(help).toMatch(/^ {6}--wait +\(default true\)$/m);
  });
});
