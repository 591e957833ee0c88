// A module build's errors about values, traced from the merged values.cue (a file made up
// in memory) back to the bundle's lines, else to the module's own values.cue.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import { parentPath, traceValuesPositions, valueAt } from '../../src/module/values-origin.js';

let engine: CueEngine;
beforeAll(async () => {
  engine = await loadCueEngine();
});

const merged = `package main
values: {
	replcas: 1
	image: {
		tag: 3
	}
	ports: [80, "x"]
	message: "m"
}
`;
const base = `package main

values: {
	message: "hello"
	ports: [1, 2]
}
`;
const at = (line: number, column: number, file = 'values.cue') => ({ file, line, column });
const bundle = {
  replcas: at(23, 6, 'bundle.cue'),
  image: at(30, 5, 'bundle.cue'),
  'image.tag': at(31, 6, 'bundle.cue'),
  ports: at(35, 5, 'bundle.cue'),
};

describe('valueAt', () => {
  const located = [
    { path: 'a', position: at(3, 2) },
    { path: 'b', position: at(4, 2) },
    { path: 'b.c', position: at(5, 3) },
    { path: 'd', position: at(7, 2) },
    { path: 'd[0]', position: at(7, 6) },
    { path: 'd[1]', position: at(7, 10) },
  ];
  it('is the last value starting at or before the position', () => {
    expect(valueAt(located, at(3, 11))).toBe('a');
    expect(valueAt(located, at(5, 8))).toBe('b.c');
    expect(valueAt(located, at(7, 11))).toBe('d[1]');
    expect(valueAt(located, at(2, 1))).toBeUndefined();
  });
});

describe('traceValuesPositions', () => {
  const origin = {
    valuesFile: 'values.cue',
    mergedSource: merged,
    baseSource: base,
    bundle: {
      positionOf: (path: string) => (bundle as Record<string, { file: string; line: number; column: number }>)[path],
    },
  };

  it('points a typo at the bundle line, once however many copies of the config refuse it', () => {
    const traced = traceValuesPositions(engine, origin, [
      {
        path: 'timoni.instance.config.replcas',
        message: 'field not allowed',
        positions: [at(3, 2)],
        inputPositionsOnly: true,
      },
      {
        path: 'timoni.instance.objects.sa.metadata.#config.replcas',
        message: 'field not allowed',
        positions: [at(3, 2)],
        inputPositionsOnly: true,
      },
    ]);
    expect(traced).toEqual([
      expect.objectContaining({
        path: 'values.replcas',
        message: 'field not allowed',
        positions: [bundle.replcas],
        inBundle: true,
      }),
    ]);
  });

  it("keeps the module's positions after the bundle's, as also", () => {
    const moduleLine = at(26, 13, 'templates/config.cue');
    const [traced] = traceValuesPositions(engine, origin, [
      {
        path: 'values.image.tag',
        message: 'conflicting values 3 and string',
        positions: [moduleLine, at(5, 8)],
        inputPositionsOnly: true,
      },
    ]);
    expect(traced?.positions).toEqual([bundle['image.tag'], moduleLine]);
  });

  it('a list element the bundle set points at the list, the nearest value the bundle names', () => {
    const [traced] = traceValuesPositions(engine, origin, [
      { path: 'values.ports[1]', message: 'conflicting values "x" and int', positions: [at(7, 14)] },
    ]);
    expect(traced).toMatchObject({ path: 'values.ports[1]', positions: [bundle.ports], inBundle: true });
  });

  it("a value the bundle did not set points at the module's own values.cue", () => {
    const [traced] = traceValuesPositions(engine, origin, [
      { path: 'values.message', message: 'conflicting values "m" and int', positions: [at(8, 11)] },
    ]);
    expect(traced?.positions).toEqual([at(4, 2)]);
    expect(traced?.inBundle).toBeUndefined();
  });

  it('leaves errors without a position in the merged values as they are', () => {
    const diagnostic = {
      path: 'timoni.apply.app',
      message: 'incomplete value',
      positions: [at(9, 3, 'templates/app.cue')],
    };
    expect(traceValuesPositions(engine, origin, [diagnostic])).toEqual([diagnostic]);
  });
});

describe('parentPath', () => {
  it('cuts the last selector, a quoted label with dots kept whole', () => {
    expect(parentPath('timoni.instance.config.replcas')).toBe('timoni.instance.config');
    expect(parentPath('values."a.b"[2]')).toBe('values."a.b"');
    expect(parentPath('values."a.b"')).toBe('values');
    expect(parentPath('values')).toBeUndefined();
  });
});
