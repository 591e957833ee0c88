// Building modules into Kubernetes objects through the real CUE engine: a module written
// here (examples/modules), one build per distinct input (InstanceBuilds), and a module in the
// shape of Timoni's blueprint whose config checksum must come out as Timoni's.
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateBundle } from '../../src/bundle/bundle.js';
import type { BundleInstance } from '../../src/bundle/types.js';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import { buildInstance, InstanceBuildError, InstanceBuilds, type BuiltInstance } from '../../src/module/build.js';
import { loadLocalModule, type ModuleSource } from '../../src/module/source.js';

// Building a module written here into Kubernetes objects through the real CUE engine.
describe('a module written here', () => {
  const examples = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'modules');
  let engine: CueEngine;
  let webapp: ModuleSource;

  beforeAll(async () => {
    engine = await loadCueEngine();
    webapp = loadLocalModule('file://webapp', examples, engine);
  });

  const names = (objects: Array<{ kind: string; metadata: Record<string, unknown> }>) =>
    objects.map((o) => `${o.kind}/${String(o.metadata.name)}`);

  describe('buildInstance', () => {
    it('reads the module name and the devel version of a local module', async () => {
      expect(webapp).toMatchObject({ name: 'example.com/webapp', version: '0.0.0-devel', digest: 'unknown' });
    });

    it('builds the apply sets in declaration order with tags and tag variables', async () => {
      const built = await buildInstance(engine, webapp, {
        name: 'shop',
        namespace: 'apps',
        values: '{}',
        kubeVersion: '1.36.3',
      });
      expect(built.sets.map((s) => s.name)).toEqual(['app', 'test']);
      expect(names(built.sets[0]?.objects ?? [])).toEqual([
        'ServiceAccount/shop',
        'ConfigMap/shop',
        'Service/shop',
        'Deployment/shop',
      ]);
      expect(names(built.sets[1]?.objects ?? [])).toEqual(['Job/shop-test']);
      const configMap = built.sets[0]?.objects[1];
      expect(configMap?.metadata).toEqual({
        name: 'shop',
        namespace: 'apps',
        labels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/version': '0.0.0-devel' },
      });
      expect(configMap?.data).toEqual({ message: 'hello', kubeVersion: '1.36.3' });
      expect(built.images).toEqual(['ghcr.io/example/webapp:1.4.0']);
    });

    it('merges bundle values onto values.cue: scalars win, structs merge, optional parts switch on', async () => {
      const built = await buildInstance(engine, webapp, {
        name: 'shop',
        namespace: 'apps',
        values: JSON.stringify({
          replicas: 3,
          image: { digest: 'sha256:' + 'a'.repeat(64) },
          ingress: { enabled: true, host: 'shop.example.com' },
          test: { enabled: false },
        }),
        kubeVersion: '1.35.0',
      });
      const app = built.sets[0]?.objects ?? [];
      expect(names(app)).toEqual([
        'ServiceAccount/shop',
        'ConfigMap/shop',
        'Service/shop',
        'Deployment/shop',
        'Ingress/shop',
      ]);
      const deployment = app[3] as unknown as {
        spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
      };
      expect(deployment.spec.replicas).toBe(3);
      expect(deployment.spec.template.spec.containers[0]?.image).toBe(
        `ghcr.io/example/webapp@sha256:${'a'.repeat(64)}`,
      );
      expect(built.sets[1]?.objects).toEqual([]);
      expect(built.images).toEqual([`ghcr.io/example/webapp@sha256:${'a'.repeat(64)}`]);
      expect(built.valuesSource).toMatch(/^package main\nvalues: \{/);
      expect(built.valuesSource).toContain('replicas: 3');
      // What the instance record stores: the merged values struct alone.
      expect(built.values).toMatch(/^\{\n/);
      expect(built.values).toContain('replicas: 3');
    });

    it('reports values that break the module schema with the instance and the field', async () => {
      let error: unknown;
      try {
        await buildInstance(engine, webapp, {
          name: 'shop',
          namespace: 'apps',
          values: '{replicas: -1}',
          kubeVersion: '1.36.3',
        });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InstanceBuildError);
      expect((error as Error).message).toContain('instance shop (module file://webapp): build failed:\n');
      expect((error as InstanceBuildError).diagnostics.some((d) => d.path.includes('replicas'))).toBe(true);
    });

    it('reports an invalid object name with its CUE path', async () => {
      await expect(
        buildInstance(engine, webapp, { name: 'Shop_1', namespace: 'apps', values: '{}', kubeVersion: '1.36.3' }),
      ).rejects.toThrow(/invalid object at path timoni\.apply\.app\[0\]: metadata\.name "Shop_1"/);
    });
  });
});

// One build per distinct input: the same instance for several clusters with the same values
// is evaluated once, through the real CUE engine on a module with the Kubernetes schemas;
// every caller gets the same objects as a build of its own, and a copy it may change.
describe('one build per distinct input', () => {
  const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'cue', 'fixtures');
  let engine: CueEngine;
  let loads = 0;
  let k8sApp: ModuleSource;

  beforeAll(async () => {
    const real = await loadCueEngine();
    // The engine as the builds see it, counting the module loads (the expensive part).
    engine = new Proxy(real, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property === 'loadAsync' && typeof value === 'function') {
          return (...args: unknown[]) => {
            loads += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    k8sApp = loadLocalModule('file://k8s-app', fixtures, real);
  });

  describe('InstanceBuilds', () => {
    it('evaluates 3 clusters x 2 instances with 2 distinct inputs twice, with the same result as separate builds', async () => {
      const builds = new InstanceBuilds(engine);
      const before = loads;
      const results = [];
      for (let cluster = 0; cluster < 3; cluster += 1) {
        for (const name of ['api', 'web'])
          results.push(
            await builds.build(k8sApp, { name, namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' }),
          );
      }
      const loadsForSix = loads - before;
      expect(builds.counts()).toEqual({ builds: 2, reused: 4 });
      const single = await buildInstance(engine, k8sApp, {
        name: 'api',
        namespace: 'apps',
        values: '{replicas: 2}',
        kubeVersion: '1.36.3',
      });
      const loadsForOne = loads - before - loadsForSix;
      expect(loadsForSix).toBe(2 * loadsForOne);
      expect(results[0]).toEqual(single);
      expect(results[2]).toEqual(single);
    });

    it('builds again when anything that decides the result differs: values, namespace, Kubernetes version', async () => {
      const builds = new InstanceBuilds(engine);
      const base = { name: 'api', namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' };
      await builds.build(k8sApp, base);
      await builds.build(k8sApp, { ...base, values: '{replicas: 3}' });
      await builds.build(k8sApp, { ...base, namespace: 'other' });
      await builds.build(k8sApp, { ...base, kubeVersion: '1.35.0' });
      expect(builds.counts()).toEqual({ builds: 4, reused: 0 });
    });

    it('gives each caller its own copy, and the same error for the same failing input', async () => {
      const builds = new InstanceBuilds(engine);
      const input = { name: 'api', namespace: 'apps', values: '{replicas: 2}', kubeVersion: '1.36.3' };
      const first = await builds.build(k8sApp, input);
      const object = first.sets[0]?.objects[0];
      if (object) object.metadata.name = 'changed-by-one-cluster';
      expect((await builds.build(k8sApp, input)).sets[0]?.objects[0]?.metadata.name).not.toBe('changed-by-one-cluster');
      const bad = { ...input, values: '{replicas: "many"}' };
      const error = await builds.build(k8sApp, bad).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InstanceBuildError);
      await expect(builds.build(k8sApp, bad)).rejects.toBe(error);
      expect(builds.counts()).toEqual({ builds: 2, reused: 2 });
    });
  });
});

// A module in the shape of Timoni's blueprint (test/module/fixtures/config-checksum): its
// test Job carries `timoni.sh/checksum: uuid.SHA1(uuid.ns.DNS, yaml.Marshal(#config))`.
// The bundle's values reach the module as Timoni's bundle commands hand them over
// (cmd/timoni/bundle_build.go -> ModuleBuilder.OverlayValuesFileWithDefaults): the
// bundle's values value printed with %v (CUE text, defaults kept), compiled as
// `values: <text>` without a file name, merged onto values.cue (also compiled without a
// file name) by MergeValue, the result printed with %v as the in-memory values.cue. CUE
// orders a struct's fields by the source positions they come from, and positions of text
// without a file name compare by offset alone: the config's field order, and so the
// checksum, follow from that, not from the bundle's declaration order.
describe("a module in the shape of Timoni's blueprint", () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const fixtures = join(here, 'fixtures');
  let engine: CueEngine;
  let module: ModuleSource;

  beforeAll(async () => {
    engine = await loadCueEngine();
    module = loadLocalModule('file://config-checksum', fixtures, engine);
  });

  /** The bundle's instance `web` with these values, as the bundle evaluation reads it. */
  function bundleInstance(values: string): BundleInstance {
    const content = `bundle: {
	apiVersion: "v1alpha1"
	name:       "checksum"
	instances: web: {
		module: url: "file://config-checksum"
		namespace: "apps"
		values: ${values}
	}
}
`;
    const evaluated = evaluateBundle(engine, {
      files: [{ path: 'bundle.cue', absolutePath: join(fixtures, 'bundle.cue'), format: 'cue', content }],
      moduleFiles: {},
      values: {},
      context: 'test',
    });
    const instance = evaluated.bundle.instances[0];
    if (!instance) throw new Error('no instance');
    return instance;
  }

  function build(values: string): Promise<BuiltInstance> {
    const instance = bundleInstance(values);
    return buildInstance(engine, module, {
      name: instance.name,
      namespace: instance.namespace,
      values: instance.valuesCue,
      kubeVersion: '1.36.3',
    });
  }

  function checksumOf(built: BuiltInstance): string | undefined {
    const job = built.sets.find((s) => s.name === 'test')?.objects[0];
    return (job?.metadata.annotations as Record<string, string> | undefined)?.['timoni.sh/checksum'];
  }

  async function buildError(values: string): Promise<InstanceBuildError> {
    try {
      await build(values);
    } catch (error) {
      if (error instanceof InstanceBuildError) return error;
      throw error;
    }
    throw new Error('the build did not fail');
  }

  /** RFC 4122 version 5 UUID (what CUE's uuid.SHA1 computes), written out here to check the module's. */
  function uuidV5(namespace: string, name: string): string {
    const hash = createHash('sha1')
      .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
      .update(name)
      .digest();
    hash[6] = (hash[6]! & 0x0f) | 0x50;
    hash[8] = (hash[8]! & 0x3f) | 0x80;
    const hex = hash.subarray(0, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  const dnsNamespace = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

  const bundleValues = `{
			replicas: 2
			message:  "from the bundle"
			image: tag: "1.31.5-alpine"
			test: enabled: true
		}`;

  describe('bundle values reach the module as in Timoni', () => {
    it('hands the module the bundle values as CUE text and merges them as Timoni does', async () => {
      const instance = bundleInstance(bundleValues);
      // Go's %v of the values: the simplified export, tab-indented, in declaration order.
      expect(instance.valuesCue).toBe(
        '{\n\treplicas: 2\n\tmessage:  "from the bundle"\n\timage: {\n\t\ttag: "1.31.5-alpine"\n\t}\n\ttest: {\n\t\tenabled: true\n\t}\n}',
      );
      const built = await build(bundleValues);
      // MergeValue starts from the overlay and fills in what values.cue adds (message,
      // replicas and test are set by both; nothing is new), then %v prints the merged struct.
      expect(built.valuesSource.startsWith('package main\nvalues: {\n')).toBe(true);
      expect(built.valuesSource).toContain('replicas: 2');
      expect(built.valuesSource).toContain('message:  "from the bundle"');
    });

    it('gives the test Job the checksum of the config in the order Timoni builds it', async () => {
      const built = await build(bundleValues);
      // yaml.Marshal(#config) as Timoni's build gives it: MergeValue's FillPath calls leave
      // the merged values in label order (image, message, replicas, test: see valuesSource),
      // and the schema's own fields take their places among them (port between message and
      // replicas). The Timoni CLI v0.33.0, built from its source, prints the same checksum
      // for this bundle (d62a8069-d3d9-5417-868a-88fabb7bbc86, checked by hand).
      const config = [
        'kubeVersion: 1.36.3',
        'moduleVersion: 0.0.0-devel',
        'metadata:',
        '  name: web',
        '  namespace: apps',
        '  labels:',
        '    app.kubernetes.io/name: web',
        '    app.kubernetes.io/version: 0.0.0-devel',
        'image:',
        '  repository: docker.io/nginx',
        '  tag: 1.31.5-alpine',
        '  digest: ""',
        '  reference: docker.io/nginx:1.31.5-alpine',
        'message: from the bundle',
        'port: 80',
        'replicas: 2',
        'test:',
        '  enabled: true',
        '',
      ].join('\n');
      expect(built.valuesSource).toBe(
        'package main\nvalues: {\n\timage: {\n\t\ttag: "1.31.5-alpine"\n\t}\n\tmessage:  "from the bundle"\n\treplicas: 2\n\ttest: {\n\t\tenabled: true\n\t}\n}',
      );
      expect(checksumOf(built)).toBe(uuidV5(dnsNamespace, config));
      // images.cue (Timoni v0.33) is a file of the package: its defaults complete the image,
      // which the instance record lists (GetContainerImages: structs with repository, tag,
      // digest and reference). Timoni's record for this bundle lists the same.
      expect(built.images).toEqual(['docker.io/nginx:1.31.5-alpine']);
    });

    it('gives the same checksum whatever the order of the bundle values (as Timoni, not declaration order)', async () => {
      const reordered = await build(`{
			test: enabled: true
			image: tag: "1.31.5-alpine"
			message:  "from the bundle"
			replicas: 2
		}`);
      expect(reordered.valuesSource).toBe((await build(bundleValues)).valuesSource);
      expect(checksumOf(reordered)).toBe(checksumOf(await build(bundleValues)));
    });

    it('records the values as Timoni stores them: the evaluated values struct, no package or field name', async () => {
      const built = await build(bundleValues);
      expect(built.values).toBe(
        '{\n\timage: {\n\t\ttag: "1.31.5-alpine"\n\t}\n\tmessage:  "from the bundle"\n\treplicas: 2\n\ttest: {\n\t\tenabled: true\n\t}\n}',
      );
    });
  });

  describe('values that Timoni refuses', () => {
    it('fails on a default in the bundle values, as Timoni does (incomplete value), every error in its order', async () => {
      // The default travels as `*2 | int` and meets the module's `*1 | int & >0`: two
      // different defaults, so none survives and the value is incomplete. The text after
      // "build failed" is what the Timoni CLI v0.33.0 prints for this bundle (checked by hand):
      // cue/errors.Details, errors without a position of their own first, positions relative
      // to the module.
      const error = await buildError('{replicas: *2 | int}');
      expect(error.message).toBe(
        [
          'instance web (module file://config-checksum): build failed:',
          'timoni.instance.config.replicas: incomplete value 2 | 1 | >0 & int',
          'timoni.instance.objects.0.data.replicas: invalid interpolation: unresolved disjunction 2 | 1 | >0 & int (type int):',
          '    ./templates/config.cue:40:14',
          'timoni.instance.tests.0.metadata._checksum: invalid interpolation: error in call to encoding/yaml.Marshal: incomplete value 2 | 1 | >0 & int:',
          '    ./templates/config.cue:53:39',
          '    ./templates/config.cue:52:43',
        ].join('\n'),
      );
      expect(error.diagnostics.map((d) => d.path)).toContain('timoni.instance.config.replicas');
    });

    it('names the module URL and every position relative to the module; annotations point at the real files', async () => {
      // port: 70000 breaks `*80 | int & >0 & <65536` (templates/config.cue line 28): the
      // default 80 (column 13) conflicts, reached through `values: templates.#Config`
      // (timoni.cue line 10, column 9) and the value in the merged values.cue (line 3, column
      // 12: MergeValue starts from the overlay, so `port` is its first field, aligned with the
      // longest label, `replicas:`); the bound is at column 29. The Timoni CLI v0.33.0 prints
      // the same text for this bundle (checked by hand).
      const error = await buildError('{port: 70000, message: "m"}');
      expect(error.message).toBe(
        [
          'instance web (module file://config-checksum): build failed:',
          'values.port: 2 errors in empty disjunction:',
          'values.port: conflicting values 80 and 70000:',
          '    ./templates/config.cue:28:13',
          '    ./timoni.cue:10:9',
          '    ./values.cue:3:12',
          'values.port: invalid value 70000 (out of bound <65536):',
          '    ./templates/config.cue:28:29',
          '    ./values.cue:3:12',
        ].join('\n'),
      );
      expect(error.message).not.toContain(fixtures);
      // For annotations: the real files of the local module, relative to the working
      // directory; the generated values.cue has no such lines on disk and is left out.
      const conflict = error.diagnostics.find((d) => d.message.startsWith('conflicting values'));
      expect(conflict?.positions).toEqual([
        { file: 'config-checksum/templates/config.cue', line: 28, column: 13 },
        { file: 'config-checksum/timoni.cue', line: 10, column: 9 },
      ]);
    });

    it('builds when the bundle default agrees with the module default', async () => {
      // `*1 | int` & `*1 | int & >0`: the defaults agree, the value is 1.
      const built = await build('{replicas: *1 | int, test: enabled: false}');
      expect(built.sets[0]?.objects[0]?.data).toMatchObject({ replicas: '1' });
    });
  });
});
