// A module's imports from cue.mod (the Kubernetes schemas under cue.mod/gen), built once per
// set of cue.mod files and reused by later loads (src/cue/shim/modulecontext.go): what a load
// gives must not depend on what the engine loaded before.
import { afterAll, describe, expect, it } from 'vitest';
import { BridgeCueEngine } from '../../../src/cue/engine.js';
import { CueError, type CueEngine, type LoadOptions } from '../../../src/cue/index.js';
import { startNative, type NativeEngine } from '../../../src/cue/native-runtime.js';
import { engine, engineKinds, failure } from '../engines.js';
import { lineOf, readFixture } from '../fixture-files.js';

describe('a module with the Kubernetes schemas', () => {
  // test/cue/fixtures/k8s-app: a Timoni-style module with generated Kubernetes schemas.
  const files = readFixture('k8s-app');

  function moduleOptions(overrides: Partial<LoadOptions> = {}): LoadOptions {
    const displayNames = Object.fromEntries(Object.keys(files).map((path) => [path, `modules/app/${path}`]));
    return {
      files,
      package: 'main',
      dataFiles: true,
      tags: ['name=podinfo', 'namespace=apps'],
      tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
      displayNames,
      ...overrides,
    };
  }

  const labels = {
    'app.kubernetes.io/name': 'podinfo',
    'app.kubernetes.io/version': '1.0.0',
    'app.kubernetes.io/managed-by': 'timoni',
  };

  describe.each(engineKinds)('a Timoni-style module with Kubernetes schemas (%s engine)', (kind) => {
    it('loads and exports a Deployment and a Service', async () => {
      const cue = await engine(kind);
      expect(Object.keys(files).filter((path) => path.startsWith('cue.mod/gen/k8s.io/api/')).length).toBeGreaterThan(5);
      const root = cue.load(moduleOptions());
      const objects = root.lookup('timoni.apply.app').toJSON() as Record<string, unknown>[];
      expect(objects).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'podinfo', namespace: 'apps', labels },
          spec: {
            replicas: 2,
            selector: { matchLabels: { 'app.kubernetes.io/name': 'podinfo' } },
            template: {
              metadata: { labels },
              spec: {
                containers: [
                  {
                    name: 'app',
                    image: 'ghcr.io/example/app:1.2.3',
                    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
                  },
                ],
              },
            },
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'podinfo', namespace: 'apps', labels },
          spec: {
            ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }],
            selector: { 'app.kubernetes.io/name': 'podinfo' },
            type: 'ClusterIP',
          },
        },
      ]);
      // Key order is CUE's: the Service spec follows corev1.#ServiceSpec, not the template.
      expect(Object.keys((objects[1] as { spec: object }).spec)).toEqual(['ports', 'selector', 'type']);
      expect(root.lookup('timoni.instance.config.kubeVersion').toJSON()).toBe('1.36.3');
      root.free();
    });

    it('checks values against the generated schemas', async () => {
      const cue = await engine(kind);
      const root = cue.load(moduleOptions());
      // corev1.#ResourceRequirements.claims is a list of #ResourceClaim.
      const withBadType = root.fill('values.resources', { claims: 'gpu' });
      const error = failure(() => withBadType.lookup('timoni.apply.app').toJSON()) as CueError;
      expect(error).toBeInstanceOf(CueError);
      expect(
        error.diagnostics.some((d) => d.path.endsWith('resources.claims') && /conflicting values/.test(d.message)),
      ).toBe(true);
      expect(
        error.diagnostics
          .flatMap((d) => d.positions)
          .some((p) => p.file === 'modules/app/cue.mod/gen/k8s.io/api/core/v1/types_go_gen.cue'),
      ).toBe(true);
      const withResources = root.fill('values.resources', { limits: { memory: '128Mi' } });
      const [deployment] = withResources.lookup('timoni.apply.app').toJSON() as {
        spec: { template: { spec: { containers: { resources?: unknown }[] } } };
      }[];
      expect(deployment?.spec.template.spec.containers[0]?.resources).toEqual({ limits: { memory: '128Mi' } });
    });

    it('reports a missing required field with its file and line', async () => {
      const cue = await engine(kind);
      const values = files['values.cue']?.replace(/\timage: \{[^}]*\}\n/, '') ?? '';
      expect(values).not.toContain('image');
      const root = cue.load(moduleOptions({ files: { ...files, 'values.cue': values } }));
      const error = failure(() => root.lookup('timoni.instance').toJSON()) as CueError;
      expect(error).toBeInstanceOf(CueError);
      const missing = error.diagnostics.find((d) => d.message === 'field is required but not present');
      expect(missing?.path).toBe('timoni.instance.config.image');
      const config = files['templates/config.cue'] ?? '';
      expect(missing?.positions).toContainEqual({
        file: 'modules/app/templates/config.cue',
        line: lineOf(config, 'image!:'),
        column: 2,
      });
      expect(error.message).toContain(
        `modules/app/templates/config.cue:${lineOf(config, 'image!:')}:2: timoni.instance.config.image: field is required but not present`,
      );
    });

    it('reports an invalid tag value at load time', async () => {
      const cue = await engine(kind);
      const error = failure(() => cue.load(moduleOptions({ tags: ['name=Not_A_Name', 'namespace=apps'] }))) as CueError;
      expect(error).toBeInstanceOf(CueError);
      expect(error.diagnostics[0]?.path).toMatch(/metadata\.name$/);
      expect(error.diagnostics[0]?.positions.some((p) => p.file.startsWith('modules/app/'))).toBe(true);
    });
  });
});

describe('loads that reuse built imports', () => {
  const module = readFixture('k8s-app');
  const natives: NativeEngine[] = [];
  afterAll(() => {
    for (const native of natives) native.stop();
  });

  /** An engine that has loaded nothing yet. */
  async function freshNative(): Promise<CueEngine> {
    const native = await startNative();
    natives.push(native);
    return new BridgeCueEngine(native.bridge, native.later, 'native');
  }

  function build(cue: CueEngine, name: string, files: Record<string, string> = module): string {
    const root = cue.load({
      files,
      package: 'main',
      tags: [`name=${name}`, 'namespace=apps'],
      tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
    });
    try {
      return root.lookup('timoni').toYAML();
    } finally {
      root.free();
    }
  }

  describe.each(engineKinds)('loads of one module (%s engine)', (kind) => {
    it('give what an engine that loaded nothing before gives', async () => {
      const cue = await engine(kind);
      const first = build(await freshNative(), 'first');
      const renamed = build(await freshNative(), 'other');
      expect(renamed).not.toBe(first);
      for (let i = 0; i < 20; i += 1)
        expect(build(cue, i % 2 === 0 ? 'first' : 'other')).toBe(i % 2 === 0 ? first : renamed);
    });
  });
});
