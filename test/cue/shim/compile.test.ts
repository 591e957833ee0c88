import { describe, expect, it } from 'vitest';
import { CueError } from '../../../src/cue/index.js';
import { engine, engineKinds, failure } from '../engines.js';

// A Kubernetes object as a runtime query reads it.
const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'redis', namespace: 'apps', labels: { tier: 'cache' } },
  data: { password: 'cGFzcw==', host: 'cmVkaXM=' },
};

describe.each(engineKinds)('CueEngine.compile (%s engine)', (kind) => {
  it('binds scope values as identifiers, as runtime queries bind obj', async () => {
    const cue = await engine(kind);
    const selectors = {
      REDIS_HOST: 'obj.data.host',
      TIER: 'obj.metadata.labels.tier',
      KEYS: '{ for k, _ in obj.data { (k): k } }',
    };
    const results = Object.fromEntries(
      Object.entries(selectors).map(([name, expression]) => {
        const v = cue.compile(expression, { scope: { obj: secret }, filename: `runtime.cue:${name}` });
        try {
          return [name, v.toJSON()];
        } finally {
          v.free();
        }
      }),
    );
    expect(results).toEqual({ REDIS_HOST: 'cmVkaXM=', TIER: 'cache', KEYS: { password: 'password', host: 'host' } });
  });

  it('compiles whole files and reports errors under the given file name', async () => {
    const cue = await engine(kind);
    const v = cue.compile('package x\na: 1\nb: a + 1\n', { filename: 'x.cue' });
    expect(v.toJSON()).toEqual({ a: 1, b: 2 });
    const error = failure(() => cue.compile('a: 1\nb: missing + 1\n', { filename: 'query.cue' })) as CueError;
    expect(error).toBeInstanceOf(CueError);
    expect(error.diagnostics[0]).toMatchObject({ path: 'b', positions: [{ file: 'query.cue', line: 2, column: 4 }] });
    expect(error.diagnostics[0]?.message).toMatch(/reference "missing" not found/);
    const unknown = failure(() => cue.compile('obj.metadata.name', {})) as CueError;
    expect(unknown.diagnostics[0]?.message).toMatch(/reference "obj" not found/);
  });

  it('rejects a scope that is not an object', async () => {
    const cue = await engine(kind);
    expect(() => cue.compile('x', { scope: [1] as unknown as Record<string, unknown> })).toThrow(
      /scope must be a JSON object/,
    );
  });
});
