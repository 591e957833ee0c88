import { describe, expect, it } from 'vitest';
import { CueError } from '../../../src/cue/index.js';
import { engine, engineKinds, failure } from '../engines.js';

const bundle = `bundle: {
	apiVersion: "v1alpha1"
	name:       "apps"
	instances: podinfo: {
		module: url: "oci://ghcr.io/stefanprodan/modules/podinfo"
		namespace: "apps"
		values: {
			host:     *"podinfo.local" | string @timoni(runtime:string:INGRESS_HOST)
			replicas: int @timoni(runtime:number:REPLICAS)
			debug:    *false | bool @timoni(runtime:bool:DEBUG)
			_cluster: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
			cluster:  _cluster
		}
	}
}
`;

describe.each(engineKinds)('CueEngine.injectRuntimeValues (%s engine)', (kind) => {
  it('replaces the values of attributed fields at any depth, hidden ones included', async () => {
    const cue = await engine(kind);
    const out = cue.injectRuntimeValues('bundle.cue', bundle, {
      INGRESS_HOST: 'podinfo.example.com',
      REPLICAS: '3',
      DEBUG: 'true',
      TIMONI_CLUSTER_NAME: 'eu-1',
    });
    const v = cue.compile(out, { filename: 'bundle.cue' });
    expect(v.lookup('bundle.instances.podinfo.values').toJSON()).toEqual({
      host: 'podinfo.example.com',
      replicas: 3,
      debug: true,
      cluster: 'eu-1',
    });
    v.free();
  });

  it('leaves fields without a value as written, so defaults survive and bare types stay incomplete', async () => {
    const cue = await engine(kind);
    const out = cue.injectRuntimeValues('bundle.cue', bundle, { REPLICAS: '2' });
    expect(out).toContain('*"podinfo.local" | string');
    const values = cue.compile(out).lookup('bundle.instances.podinfo.values');
    expect(values.lookup('host').toJSON()).toBe('podinfo.local');
    expect(values.lookup('replicas').toJSON()).toBe(2);
    const error = failure(() => values.toJSON()) as CueError;
    // Paths are absolute; hidden fields are not exported, so only `cluster` is reported.
    expect(error.diagnostics.map((d) => d.path)).toEqual(['bundle.instances.podinfo.values.cluster']);
  });

  it('reads YAML and JSON bundles', async () => {
    const cue = await engine(kind);
    const yaml = cue.injectRuntimeValues(
      'bundle.yaml',
      'bundle:\n  name: apps\n  instances:\n    a: {namespace: x}\n',
      {},
    );
    expect(cue.compile(yaml).toJSON()).toEqual({ bundle: { name: 'apps', instances: { a: { namespace: 'x' } } } });
    const json = cue.injectRuntimeValues('bundle.json', '{"bundle": {"name": "apps"}}', {});
    expect(cue.compile(json).toJSON()).toEqual({ bundle: { name: 'apps' } });
  });

  it('names the file, position and attribute of a bad value but never the value', async () => {
    const cue = await engine(kind);
    const secret = 'hunter2-do-not-log';
    for (const [values, pattern, line] of [
      [{ REPLICAS: secret }, /@timoni\(runtime:number:REPLICAS\)'?: value must be a CUE number/, 9],
      [{ DEBUG: secret }, /@timoni\(runtime:bool:DEBUG\)'?: value must be 'true' or 'false'/, 10],
    ] as const) {
      const error = failure(() => cue.injectRuntimeValues('bundles/apps.cue', bundle, values)) as CueError;
      expect(error).toBeInstanceOf(CueError);
      expect(error.message).toMatch(pattern);
      expect(error.message).toMatch(
        new RegExp(`^bundles/apps\\.cue:${line}:\\d+: bundle\\.instances\\.podinfo\\.values\\.\\w+: `),
      );
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error.diagnostics)).not.toContain(secret);
    }
    const unknownType = failure(() =>
      cue.injectRuntimeValues('b.cue', 'a: _ @timoni(runtime:list:L)', { L: secret }),
    ) as CueError;
    expect(unknownType.message).toMatch(/unknown type 'list'/);
    expect(unknownType.message).not.toContain(secret);
  });

  it('lists runtime attributes with their fields and positions', async () => {
    const cue = await engine(kind);
    const lines = bundle.split('\n');
    const at = (name: string) => {
      const index = lines.findIndex((line) => line.includes(`:${name})`));
      return { file: 'bundle.cue', line: index + 1, column: (lines[index]?.indexOf('@timoni') ?? 0) + 1 };
    };
    const values = 'bundle.instances.podinfo.values';
    expect(cue.listRuntimeAttributes('bundle.cue', bundle)).toEqual([
      { name: 'INGRESS_HOST', type: 'string', field: `${values}.host`, position: at('INGRESS_HOST') },
      { name: 'REPLICAS', type: 'number', field: `${values}.replicas`, position: at('REPLICAS') },
      { name: 'DEBUG', type: 'bool', field: `${values}.debug`, position: at('DEBUG') },
      { name: 'TIMONI_CLUSTER_NAME', type: 'string', field: `${values}._cluster`, position: at('TIMONI_CLUSTER_NAME') },
    ]);
    expect(at('REPLICAS')).toEqual({ file: 'bundle.cue', line: 9, column: 18 });
  });
});
