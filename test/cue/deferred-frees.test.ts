import { describe, expect, it } from 'vitest';
import { deferFrees } from '../../src/cue/deferred-frees.js';
import { engine, engineKinds } from './engines.js';

describe('frees sent with the next call', () => {
  it('answer at once, go together before the next other call (blocking or sent), and do not wait past 256', async () => {
    const calls: string[] = [];
    const { bridge, later } = deferFrees(
      (method, request) => {
        calls.push(`${method} ${request}`);
        return '{"result":"ok"}';
      },
      (method, request) => {
        calls.push(`later ${method} ${request}`);
        return Promise.resolve('{"result":"later"}');
      },
    );
    expect(bridge('free', '{"handle":3}')).toBe('{"result":true}');
    expect(bridge('free', '{"handle":5}')).toBe('{"result":true}');
    expect(calls).toEqual([]);
    expect(bridge('toJSON', '{"handle":7}')).toBe('{"result":"ok"}');
    expect(calls).toEqual(['freeMany {"handles":[3,5]}', 'toJSON {"handle":7}']);
    calls.length = 0;
    for (let handle = 1; handle <= 256; handle += 1) bridge('free', JSON.stringify({ handle }));
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.slice('freeMany '.length))).toEqual({
      handles: Array.from({ length: 256 }, (_, i) => i + 1),
    });
    bridge('version', '{}');
    expect(calls).toEqual([calls[0], 'version {}']);
    calls.length = 0;
    bridge('free', '{"handle":9}');
    await expect(later('load', '{}')).resolves.toBe('{"result":"later"}');
    expect(calls).toEqual(['freeMany {"handles":[9]}', 'later load {}']);
  });
});

describe.each(engineKinds)('freed values (%s engine)', (kind) => {
  it('are gone from the engine once it is called again', async () => {
    const cue = await engine(kind);
    const before = cue.liveValues();
    const values = Array.from({ length: 10 }, (_, i) => cue.compile(`a: ${i}`));
    expect(cue.liveValues()).toBe(before + 10);
    for (const value of values) value.free();
    expect(cue.liveValues()).toBe(before);
    expect(() => values[0]!.toJSON()).toThrow(/was freed/);
  });
});
