import { describe, expect, it } from 'vitest';
import { readActionConfig } from '../../src/action/config.js';
import { InputError } from '../../src/action/runner.js';

const read = (inputs: Record<string, string>) =>
  readActionConfig(
    Object.fromEntries(
      Object.entries({ bundle: 'bundle.cue', ...inputs }).map(([name, value]) => [
        `INPUT_${name.toUpperCase()}`,
        value,
      ]),
    ),
    () => undefined,
  );

describe('readActionConfig: fan-out inputs', () => {
  it('accepts the report and matrix modes', () => {
    expect(read({ mode: 'report' }).mode).toBe('report');
    expect(read({ mode: 'matrix' }).mode).toBe('matrix');
    expect(() => read({ mode: 'merge' })).toThrow(
      'input "mode": must be one of auto, diff, apply, report, matrix, drift, status, rollback, not "merge"',
    );
  });

  it('reads changes-file, the changes patterns one per line, and shard-by (group by default)', () => {
    const config = read({
      'changes-file': 'out/changes.json',
      changes: 'changesets/*/changes.json\n  extra/**/*.json  \n',
      'shard-by': '4',
    });
    expect(config.changesFile).toBe('out/changes.json');
    expect(config.changesPatterns).toEqual(['changesets/*/changes.json', 'extra/**/*.json']);
    expect(config.shardBy).toEqual({ kind: 'count', count: 4 });
    expect(read({})).toMatchObject({ changesFile: '', changesPatterns: [], shardBy: { kind: 'group' } });
  });

  it('refuses a shard-by that is not group, cluster or a number, naming the input', () => {
    expect(() => read({ 'shard-by': 'zones' })).toThrow(InputError);
    expect(() => read({ 'shard-by': 'zones' })).toThrow(
      'input "shard-by": must be group, cluster or a whole number of shards from 1 to 256, not "zones"',
    );
  });
});

// Written in place of the part-1 helper's tests of these inputs, which this file overwrote
// by mistake (test/action/config.test.ts was created by both at the same time).
describe('readActionConfig: rollout strategy inputs', () => {
  it('reads strategy (sequential by default) and max-parallel (4 by default)', () => {
    expect(read({})).toMatchObject({ strategy: 'sequential', maxParallel: 4 });
    expect(read({ strategy: 'waves', 'max-parallel': '7' })).toMatchObject({ strategy: 'waves', maxParallel: 7 });
  });

  it('refuses an unknown strategy and a max-parallel that is not a whole number of 1 or more', () => {
    expect(() => read({ strategy: 'parallel' })).toThrow('input "strategy": must be one of');
    for (const value of ['0', '-1', '2.5', 'many'])
      expect(() => read({ 'max-parallel': value })).toThrow(
        `input "max-parallel": must be a whole number of clusters, 1 or more, not "${value}"`,
      );
  });
});
