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
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeInstanceSecret } from '../../src/kube/inventory.js';
import type { KubeObject } from '../../src/kube/object.js';
import { runCliCaptured } from '../cli/run-cli.js';
import { clusterClient, scratchDir, testFleet } from '../fleet/test-context.js';
import { pushTimoniModule, startRegistry, type PushedTimoniModule, type RegistryHandle } from '../registry/index.js';

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

function bundleCue(values = '{\n\t\t\tmessage: "pulled"\n\t\t\treplicas: 2\n\t\t\ttest: enabled: false\n\t\t}'): string {
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
  return runCliCaptured([...args, '-f', 'bundle.cue', '-r', 'runtime.cue', '--kubeconfig', testFleet().kubeconfigPath], { cwd: work, env: { PATH: process.env.PATH } });
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
    const run = await promisify(execFile)(join(repository, 'node_modules', '.bin', 'tsx'), ['--no-cache', join(repository, 'src', 'cli.ts'), 'build', '-f', 'bundle.cue', '-r', 'runtime.cue', '-o', 'json'], {
      cwd: work,
      env: { PATH: process.env.PATH, TMPDIR: temporary, XDG_CACHE_HOME: cacheHome, HOME: work },
      maxBuffer: 16 * 1024 * 1024,
    });
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
    const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue'], { cwd: dir, env: { PATH: process.env.PATH } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`instance web (module ${pushed.url}): build failed:`);
    expect(result.stderr).toContain('values.port: conflicting values 80 and 70000:\n    ./templates/config.cue:28:13\n    ./timoni.cue:10:9\n    ./values.cue:3:12');
    expect(result.stderr).not.toContain(cacheHome);
  });

  it('is recorded in the instance Secret as Timoni v0.33 records it: manifest annotations, values struct', async () => {
    const apply = await cli('apply', '--timeout', '60s');
    expect(apply.code, apply.stderr).toBe(0);
    const secret = await clusterClient(0).getOrNull<KubeObject>({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'timoni.web' });
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
