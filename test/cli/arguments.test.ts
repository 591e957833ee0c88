import { describe, expect, it } from 'vitest';
import { parseArguments, UsageError, type FlagSpec } from '../../src/cli/arguments.js';

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
    expect(() => parseArguments(['-f'], specs)).toThrow(/needs a value/);
    expect(() => parseArguments(['-o', 'yaml'], specs)).toThrow(/one of text, json/);
  });
});
