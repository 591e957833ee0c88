import { describe, expect, it } from 'vitest';
import { CueError } from '../../../src/cue/index.js';
import { engine, engineKinds, failure } from '../engines.js';
import { readFixture } from '../fixture-files.js';

describe.each(engineKinds)('CueEngine.mergeInstanceValues (%s engine)', (kind) => {
  it("lays the bundle's values over the module's values.cue", async () => {
    const cue = await engine(kind);
    const { source, values } = cue.mergeInstanceValues({
      base: 'package main\nvalues: {\n\timage: {repository: "ghcr.io/x/app", tag: *"1.0.0" | string}\n\treplicas: *1 | int\n\tports: [{name: "http", port: 80}, {name: "grpc", port: 90}]\n}\n',
      overlays: ['{\n\treplicas: 3\n\tports: [{\n\t\tport: 8080\n\t}]\n}', '{\n\timage: tag: "2.0.0"\n}'],
      packageName: 'main',
    });
    expect(source.startsWith('package main\nvalues: ')).toBe(true);
    expect(cue.compile(source).lookup('values').toJSON()).toEqual({
      image: { repository: 'ghcr.io/x/app', tag: '2.0.0' },
      replicas: 3,
      ports: [{ name: 'http', port: 8080 }],
    });
    // The record's values: the evaluated struct alone, as Timoni's GetDefaultValues prints it.
    expect(values.startsWith('{')).toBe(true);
    expect(cue.compile(values).toJSON()).toEqual(cue.compile(source).lookup('values').toJSON());
  });

  it("keeps the module's defaults where the bundle sets nothing", async () => {
    const cue = await engine(kind);
    const { source } = cue.mergeInstanceValues({
      base: 'values: {\n\treplicas: *1 | int\n\tmessage: "hi"\n}',
      overlays: ['{\n\tmessage: "hello"\n}'],
    });
    // The bundle's fields come first (they are the overlay), then the module's; CUE aligns the values.
    expect(source).toBe('package main\nvalues: {\n\tmessage:  "hello"\n\treplicas: *1 | int\n}');
  });

  it('produces a values.cue the module builds with', async () => {
    const cue = await engine(kind);
    const files = readFixture('k8s-app');
    const { source } = cue.mergeInstanceValues({
      base: files['values.cue'] ?? '',
      overlays: ['{\n\treplicas: 5\n\timage: tag: "9.9.9"\n}'],
    });
    const root = cue.load({
      files: { ...files, 'values.cue': source },
      package: 'main',
      tags: ['name=web', 'namespace=apps'],
      tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
    });
    const [deployment] = root.lookup('timoni.apply.app').toJSON() as {
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
    }[];
    expect(deployment?.spec.replicas).toBe(5);
    expect(deployment?.spec.template.spec.containers[0]?.image).toBe('ghcr.io/example/app:9.9.9');
    root.free();
  });

  it('says which input is wrong', async () => {
    const cue = await engine(kind);
    const noValues = failure(() => cue.mergeInstanceValues({ base: 'package main\nother: 1\n', overlays: [] }));
    expect(noValues).toBeInstanceOf(CueError);
    expect(noValues.message).toMatch(/loading values from values\.cue failed/);
    const badOverlay = failure(() => cue.mergeInstanceValues({ base: 'values: {}', overlays: ['{a: '] }));
    expect(badOverlay.message).toMatch(/loading bundle values \(overlay 1\) failed/);
  });
});
