// Modules pulled from a real registry, end to end through the CLI: pulled once for a whole
// run, kept in the one cache folder, and recorded in the instance Secret as Timoni records them.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeInstanceSecret } from '../../src/kube/instance/inventory.js';
import type { KubeObject } from '../../src/kube/object.js';
import { runCliCaptured, type CliResult } from '../cli/run-cli.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import {
  pushTimoniModule,
  startRegistry,
  type PushedTimoniModule,
  type RecordedRequest,
  type RegistryHandle,
} from '../harness/registry/index.js';

// End to end through `timoni-fleet build` against a real registry: a bundle whose three
// instances use the same OCI module (version and digest pinned), built for a runtime of
// three clusters, pulls the module once for the whole run (one manifest fetch, one fetch
// per layer), and a pinned digest that does not match the version fails with Timoni's
// words (cmd/timoni/bundle_apply.go, fetchBundleInstanceModule).
describe('one module for a whole run', () => {
  const webappDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'modules', 'webapp');
  const repository = 'modules/webapp';

  let registry: RegistryHandle;
  let v1: PushedTimoniModule;
  let v2: PushedTimoniModule;
  let work: string;
  const saved = { cache: process.env.XDG_CACHE_HOME, actions: process.env.GITHUB_ACTIONS };

  const runtimeCue = `runtime: {
	apiVersion: "v1alpha1"
	name:       "pull-once"
	clusters: {
		"staging-1": {group: "staging", kubeContext: "fleet-1"}
		"production-eu": {group: "production", kubeContext: "fleet-2"}
		"production-us": {group: "production", kubeContext: "fleet-3"}
	}
}
`;

  /** Three instances of one module, each with its own values. */
  function bundleCue(url: string, version: string, digest: string): string {
    const instance = (name: string, values: string) => `		${name}: {
			module: {
				url:     "${url}"
				version: "${version}"
				digest:  "${digest}"
			}
			namespace: "shop"
			values: ${values}
		}`;
    return `bundle: {
	_cluster: name: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
	apiVersion: "v1alpha1"
	name:       "shop"
	instances: {
${instance('frontend', '{message: "frontend on \\(_cluster.name)"}')}
${instance('backend', '{replicas: 2}')}
${instance('worker', '{test: enabled: false}')}
	}
}
`;
  }

  /** Runs `timoni-fleet build -o json` on the bundle and returns the result and the registry requests it made. */
  async function build(bundle: string): Promise<{ result: CliResult; requests: RecordedRequest[] }> {
    const dir = await mkdtemp(join(work, 'run-'));
    await writeFile(join(dir, 'bundle.cue'), bundle);
    await writeFile(join(dir, 'runtime.cue'), runtimeCue);
    const before = registry.requests.length;
    const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue', '-o', 'json'], {
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    return { result, requests: registry.requests.slice(before) };
  }

  const manifestRequests = (requests: RecordedRequest[]) => requests.filter((r) => r.path.includes('/manifests/'));
  const blobRequests = (requests: RecordedRequest[]) => requests.filter((r) => r.path.includes('/blobs/'));
  const layerDigests = (pushed: PushedTimoniModule) => pushed.manifest.layers.map((layer) => layer.digest).sort();

  interface BuildDocument {
    clusters: Array<{
      name: string;
      instances: Array<{
        name: string;
        module: { url: string; version: string; digest: string; name: string };
        sets: Array<{ name: string; objects: Array<{ kind: string; data?: Record<string, string> }> }>;
      }>;
    }>;
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'pull-once-'));
    // A module cache folder of its own: the default one keeps modules across runs, and the
    // same module pushed again has the same digest (this test counts downloads).
    process.env.XDG_CACHE_HOME = join(work, 'cache');
    delete process.env.GITHUB_ACTIONS;
    registry = await startRegistry({ auth: 'anonymous' });
    v1 = await pushTimoniModule({
      registry: registry.url,
      repository,
      tag: '1.0.0',
      moduleDir: webappDir,
      gitMetadata: false,
      latest: false,
    });
    v2 = await pushTimoniModule({
      registry: registry.url,
      repository,
      tag: '1.1.0',
      moduleDir: webappDir,
      gitMetadata: false,
    });
  });

  afterAll(async () => {
    await registry?.stop();
    if (work) await rm(work, { recursive: true, force: true });
    if (saved.cache === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved.cache;
    if (saved.actions !== undefined) process.env.GITHUB_ACTIONS = saved.actions;
  });

  describe('one module for three instances on three clusters', () => {
    it('is pulled once: one manifest fetch and one fetch per layer for the whole run', async () => {
      expect(v1.digest).not.toBe(v2.digest);
      expect(v1.manifest.layers.length).toBe(2); // module/vendor (cue.mod) and module
      const { result, requests } = await build(bundleCue(v1.url, '1.0.0', v1.digest));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);

      const document = JSON.parse(result.stdout) as BuildDocument;
      expect(document.clusters.map((c) => c.name)).toEqual(['staging-1', 'production-eu', 'production-us']);
      for (const cluster of document.clusters) {
        expect(cluster.instances.map((i) => i.name)).toEqual(['frontend', 'backend', 'worker']);
        for (const instance of cluster.instances) {
          expect(instance.module).toEqual({
            url: v1.url,
            version: '1.0.0',
            digest: v1.digest,
            name: 'example.com/webapp',
          });
        }
        const configMap = cluster.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'ConfigMap');
        expect(configMap?.data?.message).toBe(`frontend on ${cluster.name}`);
      }

      const manifests = manifestRequests(requests);
      expect(manifests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `GET /v2/${repository}/manifests/1.0.0 200`,
      ]);
      const blobs = blobRequests(requests);
      expect(blobs.every((r) => r.method === 'GET' && r.status === 200)).toBe(true);
      expect(blobs.map((r) => r.path.slice(r.path.lastIndexOf('/') + 1)).sort()).toEqual(layerDigests(v1));
      // Nothing else but the API version check, if the client makes one.
      const others = requests.filter((r) => !manifests.includes(r) && !blobs.includes(r));
      expect(others.every((r) => r.path === '/v2/' || r.path === '/v2')).toBe(true);
    });

    it('fails on a version whose digest is not the pinned one, with Timoni words, after one pull', async () => {
      // Version 1.1.0 pinned to the digest of 1.0.0, as Timoni's "digest mismatch" bundle test does.
      const { result, requests } = await build(bundleCue(v1.url, '1.1.0', v1.digest));
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        `the upstream digest ${v2.digest} of version 1.1.0 doesn't match the specified digest ${v1.digest}`,
      );
      expect(result.stderr).toContain(`${v1.url}:1.1.0`);
      expect(manifestRequests(requests).map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /v2/${repository}/manifests/1.1.0`,
      ]);
      expect(blobRequests(requests).length).toBeLessThanOrEqual(v2.manifest.layers.length);
    });

    it('fails on a digest pinned to no version, with Timoni words, after one pull', async () => {
      const wrong = `sha256:${'0'.repeat(64)}`;
      const { result, requests } = await build(bundleCue(v1.url, '1.0.0', wrong));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `the upstream digest ${v1.digest} of version 1.0.0 doesn't match the specified digest ${wrong}`,
      );
      expect(manifestRequests(requests).map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /v2/${repository}/manifests/1.0.0`,
      ]);
    });
  });
});

// A module pulled from a real registry, end to end through the CLI on the local fleet:
//
// - The instance record (inventory Secret `timoni.<instance>`, data.instance) holds what
//   Timoni v0.33 writes (internal/reconciler/reconciler.go Init -> runtime.NewInstanceManager):
//   `module.annotations` = the artifact manifest's annotations as pulled
//   (internal/oci/pull_module.go: ModuleReference.Annotations = manifest.Annotations),
//   `org.opencontainers.image.version` and, for a module with images.cue, `sh.timoni.images`
//   (cmd/timoni/mod_images.go: sorted `repository[:tag][@digest]` of the images' defaults,
//   joined by commas); and `values` = ModuleBuilder.GetDefaultValues: the merged values
//   struct as CUE text, without `package` or `values:`.
// - Pulled modules are kept in one cache folder keyed by digest (here $XDG_CACHE_HOME/
//   timoni-fleet/modules): a run leaves no folder of its own in the temporary folder; the
//   cache folder is private, and one that others can write or another user owns is refused.
describe('a module pulled and recorded', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const moduleDir = join(here, 'fixtures', 'config-checksum');
  const repository = join(here, '..', '..');
  // What `timoni mod push` v0.33 adds for this module's images.cue: repository and tag
  // defaults, no digest (its default is "").
  const imagesAnnotation = 'docker.io/nginx:1.31.4-alpine';

  let registry: RegistryHandle;
  let pushed: PushedTimoniModule;
  let work: string;
  let cacheHome: string;
  const namespace = `record-${process.pid}`;
  const savedCacheHome = process.env.XDG_CACHE_HOME;
  const savedActions = process.env.GITHUB_ACTIONS;

  const runtimeCue = `runtime: {
	apiVersion: "v1alpha1"
	name:       "record"
	clusters: one: {group: "staging", kubeContext: "fleet-1"}
}
`;

  function bundleCue(
    values = '{\n\t\t\tmessage: "pulled"\n\t\t\treplicas: 2\n\t\t\ttest: enabled: false\n\t\t}',
  ): string {
    return `bundle: {
	apiVersion: "v1alpha1"
	name:       "record"
	instances: web: {
		module: {
			url:     "${pushed.url}"
			version: "1.0.0"
		}
		namespace: "${namespace}"
		values: ${values}
	}
}
`;
  }

  async function cli(...args: string[]) {
    return runCliCaptured(
      [...args, '-f', 'bundle.cue', '-r', 'runtime.cue', '--kubeconfig', testFleet().kubeconfigPath],
      { cwd: work, env: { PATH: process.env.PATH } },
    );
  }

  beforeAll(async () => {
    work = scratchDir('pulled-record');
    cacheHome = join(work, 'cache');
    // The CLI runs in this process: the module cache folder follows this variable.
    process.env.XDG_CACHE_HOME = cacheHome;
    delete process.env.GITHUB_ACTIONS; // in GitHub Actions the folder would be under RUNNER_TEMP
    registry = await startRegistry({ auth: 'anonymous' });
    pushed = await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/checksum',
      tag: '1.0.0',
      moduleDir,
      gitMetadata: false,
      annotations: { 'sh.timoni.images': imagesAnnotation },
    });
    writeFileSync(join(work, 'bundle.cue'), bundleCue());
    writeFileSync(join(work, 'runtime.cue'), runtimeCue);
  });

  afterAll(async () => {
    await cli('delete', '--timeout', '60s').catch(() => undefined);
    await registry?.stop();
    if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = savedCacheHome;
    if (savedActions !== undefined) process.env.GITHUB_ACTIONS = savedActions;
  });

  describe('a pulled module', () => {
    it('is cached by digest in the one cache folder, private, and a CLI run leaves nothing in the temporary folder', async () => {
      // A CLI process of its own (through tsx), with a temporary folder of its own: whatever
      // it leaves there at exit is a leftover. tsx keeps a folder of its own there (tsx-<uid>).
      const temporary = join(work, 'tmp');
      mkdirSync(temporary);
      const run = await promisify(execFile)(
        join(repository, 'node_modules', '.bin', 'tsx'),
        [
          '--no-cache',
          join(repository, 'src', 'cli.ts'),
          'build',
          '-f',
          'bundle.cue',
          '-r',
          'runtime.cue',
          '-o',
          'json',
        ],
        {
          cwd: work,
          env: { PATH: process.env.PATH, TMPDIR: temporary, XDG_CACHE_HOME: cacheHome, HOME: work },
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      expect((JSON.parse(run.stdout) as { clusters: unknown[] }).clusters.length).toBe(1);
      expect(readdirSync(temporary).filter((name) => !name.startsWith('tsx-'))).toEqual([]);
      const root = join(cacheHome, 'timoni-fleet', 'modules');
      expect(statSync(root).mode & 0o777).toBe(0o700);
      const hex = pushed.digest.replace('sha256:', '');
      expect(statSync(join(root, 'sha256', hex)).isDirectory()).toBe(true);
      expect(readFileSync(join(root, 'sha256', hex, 'images.cue'), 'utf8')).toContain('docker.io/nginx');
      // No temporary folder of the fill is left in the cache either.
      expect(readdirSync(root).filter((name) => name.startsWith('.tmp-'))).toEqual([]);
    });

    it('is refused from a cache folder that others can write or another user owns', async () => {
      const root = join(cacheHome, 'timoni-fleet', 'modules');
      chmodSync(root, 0o777);
      try {
        const open = await cli('build', '-o', 'json');
        expect(open.code).not.toBe(0);
        expect(open.stderr).toContain(`module cache folder ${root}: can be written by others (mode 777)`);
      } finally {
        chmodSync(root, 0o700);
      }
      if (process.getuid?.() === 0) {
        const foreign = join(work, 'foreign');
        mkdirSync(join(foreign, 'timoni-fleet', 'modules'), { recursive: true, mode: 0o700 });
        chownSync(join(foreign, 'timoni-fleet', 'modules'), 4242, 4242);
        process.env.XDG_CACHE_HOME = foreign;
        try {
          const result = await cli('build', '-o', 'json');
          expect(result.code).not.toBe(0);
          expect(result.stderr).toContain('is owned by user 4242, not by this user (0)');
        } finally {
          process.env.XDG_CACHE_HOME = cacheHome;
        }
      }
    });

    it('fails a build with the module URL and positions relative to the module, not the cache folder', async () => {
      const dir = join(work, 'bad');
      mkdirSync(dir);
      writeFileSync(join(dir, 'bundle.cue'), bundleCue('{port: 70000, message: "m"}'));
      writeFileSync(join(dir, 'runtime.cue'), runtimeCue);
      const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue'], {
        cwd: dir,
        env: { PATH: process.env.PATH },
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(`instance web (module ${pushed.url}): build failed:`);
      // The value's own line in bundle.cue, the module's positions relative to the module (not the cache folder) as also.
      const lines = readFileSync(join(dir, 'bundle.cue'), 'utf8').split('\n');
      const line = lines.findIndex((text) => text.includes('port: 70000'));
      const at = `bundle.cue:${line + 1}:${(lines[line] ?? '').indexOf('port: 70000') + 1}`;
      expect(result.stderr).toContain(
        `${at}: values.port: conflicting values 80 and 70000 (also ./templates/config.cue:28:13, ./timoni.cue:10:9)`,
      );
      expect(result.stderr).not.toContain(cacheHome);
    });

    it('is recorded in the instance Secret as Timoni v0.33 records it: manifest annotations, values struct', async () => {
      const apply = await cli('apply', '--timeout', '60s');
      expect(apply.code, apply.stderr).toBe(0);
      const secret = await clusterClient(0).getOrNull<KubeObject>({
        apiVersion: 'v1',
        kind: 'Secret',
        namespace,
        name: 'timoni.web',
      });
      expect(secret).not.toBeNull();
      const { instance } = decodeInstanceSecret(secret as KubeObject);
      expect(instance.module).toEqual({
        name: 'timoni.sh/checksum',
        repository: pushed.url,
        version: '1.0.0',
        digest: pushed.digest,
        annotations: { 'org.opencontainers.image.version': '1.0.0', 'sh.timoni.images': imagesAnnotation },
      });
      expect(instance.module.annotations).toEqual(pushed.manifest.annotations);
      // The merged values (bundle over values.cue) in label order, as the module test checks
      // against Timoni: the struct alone, tab-indented.
      expect(instance.values).toBe('{\n\tmessage:  "pulled"\n\treplicas: 2\n\ttest: {\n\t\tenabled: false\n\t}\n}');
    });
  });
});
