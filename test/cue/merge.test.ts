import { describe, expect, it } from 'vitest';
import { CueError } from '../../src/cue/index.js';
import { engine, engineKinds, failure } from './engine.js';
import { readFixture } from './fixture-files.js';

describe.each(engineKinds)('CueEngine.mergeValues (%s engine)', (kind) => {
  it("lays the bundle's values over the module's values.cue", async () => {
    const cue = await engine(kind);
    const source = cue.mergeValues({
      base: 'package main\nvalues: {\n\timage: {repository: "ghcr.io/x/app", tag: *"1.0.0" | string}\n\treplicas: *1 | int\n\tports: [{name: "http", port: 80}, {name: "grpc", port: 90}]\n}\n',
      baseFilename: 'modules/app/values.cue',
      overlays: [{ replicas: 3, ports: [{ port: 8080 }] }, { image: { tag: '2.0.0' } }],
      packageName: 'main',
    });
    expect(source.startsWith('package main\nvalues: ')).toBe(true);
    const values = cue.compile(source).lookup('values');
    expect(values.toJSON()).toEqual({
      image: { repository: 'ghcr.io/x/app', tag: '2.0.0' },
      replicas: 3,
      ports: [{ name: 'http', port: 8080 }],
    });
  });

  it('produces a values.cue the module builds with', async () => {
    const cue = await engine(kind);
    const files = readFixture('k8s-app');
    const valuesSource = cue.mergeValues({
      base: files['values.cue'] ?? '',
      baseFilename: 'values.cue',
      overlays: [{ replicas: 5, image: { tag: '9.9.9' } }],
    });
    const root = cue.load({
      files: { ...files, 'values.cue': valuesSource },
      package: 'main',
      tags: ['name=web', 'namespace=apps'],
      tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
    });
    const [deployment] = root.lookup('timoni.apply.app').toJSON() as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }[];
    expect(deployment?.spec.replicas).toBe(5);
    expect(deployment?.spec.template.spec.containers[0]?.image).toBe('ghcr.io/example/app:9.9.9');
    root.free();
  });

  it('says which file lacks a values field', async () => {
    const cue = await engine(kind);
    const error = failure(() => cue.mergeValues({ base: 'package main\nother: 1\n', baseFilename: 'modules/app/values.cue', overlays: [] }));
    expect(error).toBeInstanceOf(CueError);
    expect(error.message).toMatch(/modules\/app\/values\.cue: no "values" field/);
  });
});
