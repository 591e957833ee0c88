// Which plain strings go-yaml v2 quotes because a YAML 1.1 reader would take them for a
// boolean, null, number, date or base 60 number (the printer's cases against real go-yaml
// output are in timoni-yaml.test.ts).
import { describe, expect, it } from 'vitest';
import { resolvesToNonString } from '../../src/cli/yaml-resolve.js';

describe('YAML 1.1 resolution', () => {
  it('quotes what a YAML 1.1 reader takes for a boolean, null, number, date or base 60 number', () => {
    for (const text of ['yes', 'No', 'ON', 'off', 'y', 'N', '~', '', '1_000', '0x1F', '0755', '08', '1e3', '.5', '12:30', '2001-12-14', '2001-12-14 21:59:43,10', '0b+1']) {
      expect(resolvesToNonString(text), text).toBe(true);
    }
    for (const text of ['yes please', 'n/a', '2001-02-30', '2001-13-01', '1e400', '<<', '0x', '12:60', '.iNf', 'inf']) {
      expect(resolvesToNonString(text), text).toBe(false);
    }
  });
});
