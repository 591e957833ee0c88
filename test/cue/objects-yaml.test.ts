// CueEngine.objectsYaml, the YAML of `timoni-fleet build`, against real go-yaml output:
// every case of test/cli/fixtures/go-yaml/cases.json printed by sigs.k8s.io/yaml v1.6.0
// (go.yaml.in/yaml/v2 v2.4.4, what Timoni v0.33.0 links) into fixtures/go-yaml/golden/ by
// the Go program beside them (`go run .`). Both engines (native and WebAssembly) must
// print each case byte for byte as the golden file has it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CueError } from '../../src/cue/index.js';
import { engine, engineKinds, failure } from './engines.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'fixtures', 'go-yaml');
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Record<string, unknown>;
// go-yaml's key order is not transitive when keys mix digit runs and letters ("10" < "1a",
// "1a" < "2", "2" < "10"), and Go starts sorting from its random map order: these cases
// print in a different order from run to run in Go itself, so only their lines are compared.
const orderRandomInGo = new Set(['ambiguousKeys', 'keyOrderMixed']);
const sortedLines = (text: string) => text.split('\n').sort();

describe('the YAML printer has a golden file for every case', () => {
  it('and a case for every golden file', () => {
    const golden = readdirSync(join(dir, 'golden')).map((name) => name.replace(/\.yaml$/, ''));
    expect(golden.sort()).toEqual(Object.keys(cases).sort());
  });
});

describe.each(engineKinds)('objectsYaml of the %s engine, against sigs.k8s.io/yaml', (kind) => {
  for (const [name, value] of Object.entries(cases)) {
    it(`prints case ${name} byte for byte`, async () => {
      const expected = readFileSync(join(dir, 'golden', `${name}.yaml`), 'utf8');
      const printed = (await engine(kind)).objectsYaml([value]);
      if (orderRandomInGo.has(name)) expect(sortedLines(printed)).toEqual(sortedLines(expected));
      else expect(printed).toBe(expected);
    });
  }

  it('prints several objects as one text, `---` between them, and nothing for none', async () => {
    const cue = await engine(kind);
    const values = Object.entries(cases)
      .filter(([name]) => !orderRandomInGo.has(name))
      .map(([, value]) => value);
    const each = values.map((value) => cue.objectsYaml([value]));
    expect(cue.objectsYaml(values)).toBe(each.join('---\n'));
    expect(cue.objectsYaml([])).toBe('');
  });

  it('formats numbers as Go does after the JSON round trip', async () => {
    const printed = (await engine(kind)).objectsYaml([
      { numbers: [0, -1, 2 ** 60, 1.5, 0.000001, 1e21, 1234567.5, 100000.5, 2e20, -1e19] },
    ]);
    expect(printed).toBe(
      [
        'numbers:',
        ...[
          '0',
          '-1',
          '1152921504606846976',
          '1.5',
          '1e-06',
          '1e+21',
          '1.2345675e+06',
          '100000.5',
          '2e+20',
          '-1e+19',
        ].map((n) => `- ${n}`),
        '',
      ].join('\n'),
    );
  });

  it('orders keys naturally, digits as numbers', async () => {
    const printed = (await engine(kind)).objectsYaml([{ a10: 1, a: 1, a2: 1, _x: 1, B: 1 }]);
    const keys = printed
      .trimEnd()
      .split('\n')
      .map((line) => line.split(':')[0]);
    const before = (first: string, second: string) =>
      expect(keys.indexOf(first), `${first} before ${second} in ${keys.join(' ')}`).toBeLessThan(keys.indexOf(second));
    before('a2', 'a10');
    before('_x', 'a');
    before('B', 'a');
    expect(keys.sort()).toEqual(['B', '_x', 'a', 'a10', 'a2']);
  });

  // A YAML 1.1 reader takes these for a boolean, null, number, date or base 60 number:
  // go-yaml v2 quotes them. It leaves the others plain.
  it('quotes the strings a YAML 1.1 reader would take for something else', async () => {
    const cue = await engine(kind);
    for (const text of [
      'yes',
      'No',
      'ON',
      'off',
      'y',
      'N',
      '~',
      '',
      '1_000',
      '0x1F',
      '0755',
      '08',
      '1e3',
      '.5',
      '12:30',
      '2001-12-14',
      '2001-12-14 21:59:43,10',
      '0b+1',
    ]) {
      expect(cue.objectsYaml([{ v: text }]), text).toBe(`v: ${JSON.stringify(text)}\n`);
    }
    for (const text of ['yes please', 'n/a', '2001-02-30', '2001-13-01', '1e400', '<<', '0x', '12:60', '.iNf', 'inf']) {
      expect(cue.objectsYaml([{ v: text }]), text).toBe(`v: ${text}\n`);
    }
  });

  it('refuses control characters as go-yaml does, naming the object', async () => {
    const cue = await engine(kind);
    for (const text of ['del\u007f', 'c1\u0090']) {
      const error = failure(() =>
        cue.objectsYaml([
          { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } },
          { kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, stringData: { a: text } },
        ]),
      );
      expect(error).toBeInstanceOf(CueError);
      expect(error.message).toMatch(
        /object 2 of 2 \(Secret ns\/s\) cannot be printed as YAML: .*control characters are not allowed/,
      );
    }
  });
});
