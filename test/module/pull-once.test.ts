// End to end through `timoni-fleet build` against a real registry: a bundle whose three
// instances use the same OCI module (version and digest pinned), built for a runtime of
// three clusters, pulls the module once for the whole run (one manifest fetch, one fetch
// per layer), and a pinned digest that does not match the version fails with Timoni's
// words (cmd/timoni/bundle_apply.go, fetchBundleInstanceModule).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushTimoniModule, startRegistry, type PushedTimoniModule, type RecordedRequest, type RegistryHandle } from '../registry/index.js';
import { runCliCaptured, type CliResult } from '../cli/run-cli.js';

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
  const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue', '-o', 'json'], { cwd: dir, env: { PATH: process.env.PATH } });
  return { result, requests: registry.requests.slice(before) };
}

const manifestRequests = (requests: RecordedRequest[]) => requests.filter((r) => r.path.includes('/manifests/'));
const blobRequests = (requests: RecordedRequest[]) => requests.filter((r) => r.path.includes('/blobs/'));
const layerDigests = (pushed: PushedTimoniModule) => pushed.manifest.layers.map((layer) => layer.digest).sort();

interface BuildDocument {
  clusters: Array<{
    name: string;
    instances: Array<{ name: string; module: { url: string; version: string; digest: string; name: string }; sets: Array<{ name: string; objects: Array<{ kind: string; data?: Record<string, string> }> }> }>;
  }>;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pull-once-'));
  // A module cache folder of its own: the default one keeps modules across runs, and the
  // same module pushed again has the same digest (this test counts downloads).
  process.env.XDG_CACHE_HOME = join(work, 'cache');
  delete process.env.GITHUB_ACTIONS;
  registry = await startRegistry({ auth: 'anonymous' });
  v1 = await pushTimoniModule({ registry: registry.url, repository, tag: '1.0.0', moduleDir: webappDir, gitMetadata: false, latest: false });
  v2 = await pushTimoniModule({ registry: registry.url, repository, tag: '1.1.0', moduleDir: webappDir, gitMetadata: false });
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
        expect(instance.module).toEqual({ url: v1.url, version: '1.0.0', digest: v1.digest, name: 'example.com/webapp' });
      }
      const configMap = cluster.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'ConfigMap');
      expect(configMap?.data?.message).toBe(`frontend on ${cluster.name}`);
    }

    const manifests = manifestRequests(requests);
    expect(manifests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /v2/${repository}/manifests/1.0.0 200`]);
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
    expect(result.stderr).toContain(`the upstream digest ${v2.digest} of version 1.1.0 doesn't match the specified digest ${v1.digest}`);
    expect(result.stderr).toContain(`${v1.url}:1.1.0`);
    expect(manifestRequests(requests).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/${repository}/manifests/1.1.0`]);
    expect(blobRequests(requests).length).toBeLessThanOrEqual(v2.manifest.layers.length);
  });

  it('fails on a digest pinned to no version, with Timoni words, after one pull', async () => {
    const wrong = `sha256:${'0'.repeat(64)}`;
    const { result, requests } = await build(bundleCue(v1.url, '1.0.0', wrong));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the upstream digest ${v1.digest} of version 1.0.0 doesn't match the specified digest ${wrong}`);
    expect(manifestRequests(requests).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/${repository}/manifests/1.0.0`]);
  });
});
