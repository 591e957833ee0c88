// The JSON the TypeScript side sends (src/cue/protocol.ts): whole numbers keep all their digits.
import { describe, expect, it } from 'vitest';
import { exactJson } from '../../src/cue/protocol.js';

describe('exactJson', () => {
  it('writes whole numbers with all their digits and everything else as JSON.stringify', () => {
    const value = {
      big: 2 ** 60,
      neg: -(2 ** 62),
      small: [0, -1, 1.5, 1e-7, 1e21, 2e20],
      s: 'a"\n',
      nested: { t: true, n: null },
      gone: undefined,
    };
    expect(exactJson(value)).toBe(
      '{"big":1152921504606846976,"neg":-4611686018427387904,"small":[0,-1,1.5,1e-7,1e+21,200000000000000000000],"s":"a\\"\\n","nested":{"t":true,"n":null}}',
    );
    expect(JSON.parse(exactJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(exactJson([undefined, 'x'])).toBe('[null,"x"]');
  });

  it('refuses what JSON cannot hold', () => {
    expect(() => exactJson(() => 1)).toThrow(/function cannot be sent/);
  });
});
