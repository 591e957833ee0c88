import { describe, expect, it } from 'vitest';
import { CueError } from '../../src/cue/index.js';
import { engine, engineKinds, failure } from './engines.js';

const source = `package app
#Port: int & >0 & <65536
config: {
	name:     string
	port:     #Port | *8080
	labels?: [string]: string
	"x-y":    true
	_secret:  "hidden"
	tier!:    "web" | "db"
	replicas: *1 | int @timoni(runtime:number:REPLICAS) @doc(count)
}
`;

describe.each(engineKinds)('CueValue (%s engine)', (kind) => {
  it('looks up, fills with JSON and exports in declaration order', async () => {
    const cue = await engine(kind);
    const root = cue.load({ files: { 'app.cue': source }, package: 'app' });
    const config = root.lookup('config');
    expect(config.kind()).toBe('struct');
    expect(config.lookup('name').kind()).toBe('incomplete');
    expect(config.lookup('port').kind()).toBe('int');
    expect(config.lookup('"x-y"').toJSON()).toBe(true);
    expect(config.lookup('nope').exists()).toBe(false);
    expect(config.lookup('nope').kind()).toBe('bottom');

    const filled = root.fill('config', { tier: 'web', name: 'podinfo', labels: { b: '2', a: '1' } });
    expect(filled.lookup('config').toJSON()).toEqual({
      name: 'podinfo',
      port: 8080,
      labels: { b: '2', a: '1' },
      'x-y': true,
      tier: 'web',
      replicas: 1,
    });
    // JSON keys follow CUE's field order, which merges the schema's and the filled value's orders.
    const filledConfig = filled.lookup('config');
    expect(Object.keys(filledConfig.toJSON() as object)).toEqual(filledConfig.fields().map((f) => f.name));
    expect(Object.keys(filledConfig.toJSON() as object)).toEqual(['labels', 'name', 'port', 'tier', 'x-y', 'replicas']);
    expect(Object.keys(filled.lookup('config.labels').toJSON() as object)).toEqual(['b', 'a']);

    const bad = root.fill('config.port', 70000);
    const error = failure(() => bad.toJSON()) as CueError;
    expect(error).toBeInstanceOf(CueError);
    expect(error.diagnostics.every((d) => d.path === 'config.port')).toBe(true);
    expect(error.diagnostics.map((d) => d.message)).toEqual(
      expect.arrayContaining([
        '2 errors in empty disjunction:',
        expect.stringMatching(/invalid value 70000 \(out of bound <65536\)/),
      ]),
    );
    for (const v of [root, config, filled, bad]) v.free();
  });

  it('fills and unifies with other values', async () => {
    const cue = await engine(kind);
    const root = cue.load({ files: { 'app.cue': source }, package: 'app' });
    const name = cue.compile('"from-compile"');
    const withName = root.fillValue('config.name', name);
    expect(withName.lookup('config.name').toJSON()).toBe('from-compile');
    const unified = root.lookup('config').unify(cue.compile('{tier: "db", name: "x", replicas: 2}'));
    expect(unified.toJSON()).toMatchObject({ tier: 'db', name: 'x', replicas: 2 });
    const conflict = unified.unify(cue.compile('{replicas: 3}'));
    expect(conflict.kind()).toBe('bottom');
    expect(conflict.validate()[0]?.message).toBe('conflicting values 3 and 2');
  });

  it('lists fields with their kind of label, attributes and positions', async () => {
    const cue = await engine(kind);
    const config = cue
      .load({ files: { 'app.cue': source }, package: 'app', displayNames: { 'app.cue': 'src/app.cue' } })
      .lookup('config');
    // Required fields (tier!) are regular fields; optional ones (labels?) need `optional`.
    expect(config.fields().map((f) => f.label)).toEqual(['name', 'port', '"x-y"', 'tier', 'replicas']);
    const all = config.fields({ hidden: true, optional: true, definitions: true });
    expect(all.map((f) => [f.label, f.name, f.optional, f.required, f.hidden])).toEqual([
      ['name', 'name', false, false, false],
      ['port', 'port', false, false, false],
      ['labels', 'labels', true, false, false],
      ['"x-y"', 'x-y', false, false, false],
      ['_secret', '_secret', false, false, true],
      ['tier', 'tier', false, true, false],
      ['replicas', 'replicas', false, false, false],
    ]);
    const replicas = all.find((f) => f.name === 'replicas');
    expect(replicas?.attributes).toEqual([
      { name: 'timoni', body: 'runtime:number:REPLICAS' },
      { name: 'doc', body: 'count' },
    ]);
    expect(replicas?.position).toEqual({ file: 'src/app.cue', line: 10, column: 2 });
    expect(config.lookup('port').position()).toEqual({ file: 'src/app.cue', line: 5, column: 2 });
    expect(
      cue.load({ files: { 'a.cue': 'package a\n#D: x: 1\n' }, package: 'a' }).fields({ definitions: true })[0],
    ).toMatchObject({
      label: '#D',
      definition: true,
    });
  });

  it('renders YAML and CUE text', async () => {
    const cue = await engine(kind);
    const v = cue.compile('b: 2\na: {list: [1, "two"], s: "x"}');
    expect(v.toYAML()).toBe('b: 2\na:\n  list:\n    - 1\n    - two\n  s: x\n');
    expect(v.toCUE()).toBe('{\n\tb: 2\n\ta: {\n\t\tlist: [1, "two"]\n\t\ts: "x"\n\t}\n}');
    expect(cue.compile('a: *1 | int').toCUE()).toContain('*1 | int');
  });

  it('tells whether its YAML export holds bytes, without the export', async () => {
    const cue = await engine(kind);
    const cases: Array<[string, boolean]> = [
      ['items: [{data: {a: "text"}}, {binaryData: {b: \'\\x00\\x01\'}}]', true],
      ['items: [{data: {a: "!!binary AAE="}}]', false],
      ["#def: {b: 'x'}, _hidden: 'y', items: [1, 2.5, \"s\", null]", false],
    ];
    for (const [source, bytes] of cases) {
      const value = cue.compile(source);
      try {
        value.toJSON();
        expect(value.hasBytes(), source).toBe(bytes);
        // The tag itself, not the text inside a quoted string.
        expect(/(?:^|[:-] )!!binary /m.test(value.toYAML()), source).toBe(bytes);
      } finally {
        value.free();
      }
    }
  });

  it('reports kinds', async () => {
    const cue = await engine(kind);
    const kinds = Object.fromEntries(
      ['null', 'true', '1', '1.5', 'number', '"s"', "'b'", '{}', '[]', '_', 'string', '*2 | int'].map((src) => {
        const v = cue.compile(`{x: ${src}}`).lookup('x');
        try {
          return [src, v.kind()];
        } finally {
          v.free();
        }
      }),
    );
    expect(kinds).toEqual({
      null: 'null',
      true: 'bool',
      '1': 'int',
      '1.5': 'float',
      number: 'number',
      '"s"': 'string',
      "'b'": 'bytes',
      '{}': 'struct',
      '[]': 'list',
      _: 'top',
      string: 'incomplete',
      '*2 | int': 'int',
    });
    expect(cue.compile('{a: int}').fill('a', 'text').lookup('a').kind()).toBe('bottom');
  });

  it('frees values on the Go side and refuses to use a freed value', async () => {
    const cue = await engine(kind);
    const before = cue.liveValues();
    const values = Array.from({ length: 20 }, (_, i) => cue.compile(`a: ${i}`));
    expect(cue.liveValues()).toBe(before + 20);
    for (const v of values) v.free();
    expect(cue.liveValues()).toBe(before);
    const [first] = values;
    expect(() => first?.toJSON()).toThrow(/was freed/);
    expect(() => first?.free()).not.toThrow();
  });
});
