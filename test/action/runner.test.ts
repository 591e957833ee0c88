import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  getBooleanInput,
  getChoiceInput,
  getInput,
  getListInput,
  InputError,
  setOutput,
} from '../../src/action/runner.js';

describe('action inputs', () => {
  const env = {
    'INPUT_RUNTIME-GROUP': ' staging ',
    INPUT_WAIT: 'False',
    INPUT_BUNDLE: 'a.cue\nb.cue, c.yaml\n',
    INPUT_MODE: 'later',
  };

  it('reads inputs with dashes, booleans and lists', () => {
    expect(getInput(env, 'runtime-group')).toBe('staging');
    expect(getBooleanInput(env, 'wait', true)).toBe(false);
    expect(getBooleanInput(env, 'prune', true)).toBe(true);
    expect(getListInput(env, 'bundle')).toEqual(['a.cue', 'b.cue', 'c.yaml']);
  });

  it('names the input in errors', () => {
    expect(() => getChoiceInput(env, 'mode', ['auto', 'diff', 'apply'] as const, 'auto')).toThrow(InputError);
    expect(() => getChoiceInput(env, 'mode', ['auto', 'diff', 'apply'] as const, 'auto')).toThrow(
      'input "mode": must be one of auto, diff, apply, not "later"',
    );
    expect(() => getInput(env, 'kubeconfig', { required: true })).toThrow('input "kubeconfig": is required');
  });

  it('writes multi-line outputs in the heredoc form', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'out-')), 'output');
    writeFileSync(file, '');
    setOutput({ GITHUB_OUTPUT: file }, 'changes', '{\n  "a": 1\n}');
    const text = readFileSync(file, 'utf8');
    const match = /^changes<<(ghadelimiter_[0-9a-f-]+)\n\{\n {2}"a": 1\n\}\n\1\n$/.exec(text);
    expect(match).not.toBeNull();
  });
});

describe('input errors', () => {
  it('quote the value as JSON, so that a value with a line break stays on one line', () => {
    expect(() => getBooleanInput({ INPUT_WAIT: 'yes\n::error::forged' }, 'wait', true)).toThrow(
      'input "wait": must be true or false, not "yes\\n::error::forged"',
    );
  });
});
