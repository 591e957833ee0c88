import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputVariableName, readActionMetadata } from './action-metadata.js';
import { evaluateTemplate } from './expressions.js';

describe('action.yml reading', () => {
  let dir: string;
  const write = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'action-metadata-test-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('keeps plain scalar defaults as written and resolves runs.main beside action.yml', async () => {
    const path = await write(
      'a.yml',
      "inputs:\n  n:\n    default: 1.0\n  b:\n    default: false\n  q:\n    default: '*'\n  e:\n    default:\n  r:\n    required: true\nruns:\n  using: node24\n  main: dist/index.js\n",
    );
    const metadata = readActionMetadata(path);
    expect(metadata.inputs).toEqual([
      { name: 'n', default: '1.0', required: false },
      { name: 'b', default: 'false', required: false },
      { name: 'q', default: '*', required: false },
      { name: 'e', default: '', required: false },
      { name: 'r', default: undefined, required: true },
    ]);
    expect(metadata.main).toBe(join(dir, 'dist', 'index.js'));
    expect(metadata.using).toBe('node24');
  });

  it('names the file and the problem when action.yml is unusable', async () => {
    expect(() => readActionMetadata(join(dir, 'missing.yml'))).toThrow(/reading action metadata .*missing\.yml/);
    expect(() => readActionMetadata(awaitWrite('no-runs.yml', 'inputs: {}\n'))).toThrow(/runs\.using is missing/);
    expect(() => readActionMetadata(awaitWrite('bad.yml', 'inputs: [\n'))).toThrow(
      /parsing action metadata .*bad\.yml/,
    );
  });

  function awaitWrite(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  it('names input variables as the runner does', () => {
    expect(inputVariableName('runtime-group')).toBe('INPUT_RUNTIME-GROUP');
    expect(inputVariableName('dry run')).toBe('INPUT_DRY_RUN');
    expect(inputVariableName('Working-Directory')).toBe('INPUT_WORKING-DIRECTORY');
  });
});

describe('default expressions', () => {
  const contexts = {
    github: { token: 'tok', event: { pull_request: { number: 7 } }, repository: 'acme/fleet' },
    env: {},
  };

  it('evaluates context paths, literals and ||', () => {
    expect(evaluateTemplate('${{ github.token }}', contexts)).toBe('tok');
    expect(evaluateTemplate('pr-${{ github.event.pull_request.number }}', contexts)).toBe('pr-7');
    expect(evaluateTemplate("${{ github.event.inputs.mode || 'diff' }}", contexts)).toBe('diff');
    expect(evaluateTemplate("${{ 'it''s' }}", contexts)).toBe("it's");
    expect(evaluateTemplate('no expression', contexts)).toBe('no expression');
    expect(evaluateTemplate('${{ false || 3 }}', contexts)).toBe('3');
  });

  it('refuses what it cannot evaluate, naming the expression', () => {
    expect(() => evaluateTemplate('${{ toJSON(github) }}', contexts)).toThrow(
      /unsupported expression 'toJSON\(github\)'/,
    );
    expect(() => evaluateTemplate('${{ secrets.X }}', contexts)).toThrow(/unknown context 'secrets'/);
  });
});
