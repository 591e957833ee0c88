// What the puller does with the artifacts and failures real registries produce: pinned
// digests, missing tags, foreign media types, hostile tarballs, dropped connections and
// persistent 5xx, Docker manifests and indexes. One anonymous registry serves them all.
// Content layers are extracted vendor layer first.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModuleClient, OciError, pullModule } from '../../../src/module/oci/index.js';
import { TIMONI_CONTENT, type Descriptor } from '../../../src/module/oci/manifest.js';
import { contentLayers } from '../../../src/module/oci/pull.js';
import {
  absolutePathLayer,
  buildManifest,
  dockerManifestMediaType,
  hardlinkLayer,
  notGzipLayer,
  ociIndexMediaType,
  oversizedLayer,
  parentTraversalLayer,
  pushArtifact,
  pushTimoniModule,
  sha256Digest,
  startRegistry,
  symlinkLayer,
  tarGzip,
  timoniConfigBlob,
  timoniConfigMediaType,
  timoniContentMediaType,
  timoniContentTypeAnnotation,
  type PushedTimoniModule,
  type RegistryHandle,
} from '../../harness/registry/index.js';
import { writeSampleModule } from '../../harness/registry/sample-module.js';
import { expectedTree, fastRetry, readTree } from './registry-fixtures.js';

let registry: RegistryHandle;
let pushed: PushedTimoniModule;
let moduleDir: string;
let work: string;
const options = (): { env: NodeJS.ProcessEnv; dockerConfigDir: string; retry: typeof fastRetry; cacheDir: string } => ({
  env: { PATH: process.env.PATH },
  dockerConfigDir: join(work, 'no-docker-config'),
  retry: fastRetry,
  cacheDir: join(work, 'cache'),
});

/** Pushes an artifact whose one content layer is `layer`, under `repository:1.0.0`. */
async function pushLayer(
  repository: string,
  layer: Buffer,
  configMediaType = timoniConfigMediaType,
  layerMediaType = timoniContentMediaType,
): Promise<string> {
  const manifest = buildManifest({
    config: { bytes: timoniConfigBlob, mediaType: configMediaType },
    layers: [{ bytes: layer, mediaType: layerMediaType, annotations: { [timoniContentTypeAnnotation]: 'module' } }],
    annotations: { 'org.opencontainers.image.version': '1.0.0' },
  });
  await pushArtifact({
    registry: registry.url,
    repository,
    tag: '1.0.0',
    manifest,
    config: timoniConfigBlob,
    layers: [layer],
  });
  return `oci://${registry.host}/${repository}`;
}

async function pullError(
  url: string,
  version = '1.0.0',
  digest?: string,
  extra: Record<string, unknown> = {},
): Promise<OciError> {
  const error = await pullModule(url, version, digest, { ...options(), ...extra }).then(
    () => new Error('the pull succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OciError);
  return error as OciError;
}

const manifestGets = (repository: string) =>
  registry.requests.filter(
    (r) => r.method === 'GET' && r.path.startsWith(`/v2/${repository}/manifests/`) && r.status === 200,
  );
const blobGets = (repository: string) =>
  registry.requests.filter(
    (r) => r.method === 'GET' && r.path.startsWith(`/v2/${repository}/blobs/`) && r.status === 200,
  );

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'oci-pull-errors-'));
  registry = await startRegistry({ auth: 'anonymous' });
  moduleDir = await writeSampleModule();
  pushed = await pushTimoniModule({ registry: registry.url, repository: 'modules/sample', tag: '1.0.0', moduleDir });
});
afterAll(async () => {
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
  if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
});

describe('digests and versions', () => {
  it('accepts a pinned digest that matches', async () => {
    const module = await pullModule(pushed.url, '1.0.0', pushed.digest, options());
    expect(module.digest).toBe(pushed.digest);
  });

  it('refuses a pinned digest that does not match, in Timoni words', async () => {
    const wrong = sha256Digest(Buffer.from('another manifest'));
    const error = await pullError(pushed.url, '1.0.0', wrong);
    expect(error.code).toBe('digest-mismatch');
    expect(error.message).toBe(
      `oci://${registry.host}/modules/sample:1.0.0: the upstream digest ${pushed.digest} of version 1.0.0 doesn't match the specified digest ${wrong}`,
    );
  });

  it('pulls by digest when the version is latest and a digest is pinned', async () => {
    registry.clearRequests();
    const module = await pullModule(pushed.url, 'latest', pushed.digest, {
      ...options(),
      cacheDir: join(work, 'by-digest'),
    });
    expect(module.digest).toBe(pushed.digest);
    expect(manifestGets('modules/sample').map((r) => r.path)).toEqual([
      `/v2/modules/sample/manifests/${pushed.digest}`,
    ]);
  });

  it('says not found for a missing tag and for an unknown pinned digest', async () => {
    const missing = await pullError(pushed.url, '9.9.9');
    expect(missing.code).toBe('not-found');
    expect(missing.status).toBe(404);
    expect(missing.message).toBe(
      `oci://${registry.host}/modules/sample:9.9.9: manifest 9.9.9 not found in ${registry.host}/modules/sample (404 MANIFEST_UNKNOWN: manifest unknown)`,
    );
    const unknown = sha256Digest(Buffer.from('nothing'));
    const byDigest = await pullError(pushed.url, 'latest', unknown);
    expect(byDigest.code).toBe('not-found');
    expect(byDigest.message).toContain(
      `oci://${registry.host}/modules/sample@${unknown}: manifest ${unknown} not found`,
    );
    const repository = await pullError(`oci://${registry.host}/modules/absent`);
    expect(repository.code).toBe('not-found');
    expect(repository.message).toMatch(/modules\/absent \(404 (NAME|MANIFEST)_UNKNOWN/);
  });
});

describe('media types', () => {
  it("refuses an artifact whose config is not Timoni's, in Timoni words", async () => {
    const url = await pushLayer(
      'wrong/config',
      tarGzip([{ name: 'timoni.cue', type: 'file', content: 'package main\n' }]),
      'application/vnd.oci.image.config.v1+json',
    );
    const error = await pullError(url);
    expect(error.code).toBe('media-type');
    expect(error.message).toBe(
      `${url}:1.0.0: unsupported artifact type 'application/vnd.oci.image.config.v1+json', must be '${timoniConfigMediaType}'`,
    );
  });

  it('refuses an artifact without a Timoni content layer', async () => {
    const url = await pushLayer(
      'wrong/layer',
      tarGzip([{ name: 'timoni.cue', type: 'file', content: 'package main\n' }]),
      timoniConfigMediaType,
      'application/vnd.oci.image.layer.v1.tar+gzip',
    );
    const error = await pullError(url);
    expect(error.code).toBe('media-type');
    expect(error.message).toContain(`no layer found in artifact with media type '${timoniContentMediaType}'`);
  });

  it('reads a module whose manifest has the Docker media type', async () => {
    const layer = tarGzip([{ name: 'timoni.cue', type: 'file', content: 'package main // docker\n' }]);
    const manifest = buildManifest({
      mediaType: dockerManifestMediaType,
      config: { bytes: timoniConfigBlob, mediaType: timoniConfigMediaType },
      layers: [{ bytes: layer, mediaType: timoniContentMediaType }],
    });
    const result = await pushArtifact({
      registry: registry.url,
      repository: 'docker/module',
      tag: '2.0.0',
      manifest,
      config: timoniConfigBlob,
      layers: [layer],
    });
    const module = await pullModule(`oci://${registry.host}/docker/module`, '2.0.0', undefined, options());
    expect(module.digest).toBe(result.digest);
    expect(module.version).toBe('');
    expect((await readTree(module.dir))['timoni.cue']).toBe('package main // docker\n');
  });

  it('resolves an index to its linux/amd64 manifest; the module digest is the index digest', async () => {
    const arm = await pushByDigest('indexed/module', 'package main // arm64\n', 'arm');
    const amd = await pushByDigest('indexed/module', 'package main // amd64\n', 'amd');
    const entry = (bytes: Buffer, architecture: string) => ({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: sha256Digest(bytes),
      size: bytes.length,
      platform: { os: 'linux', architecture },
    });
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: ociIndexMediaType,
        manifests: [entry(arm, 'arm64'), entry(amd, 'amd64')],
      }),
    );
    const pushedIndex = await pushArtifact({
      registry: registry.url,
      repository: 'indexed/module',
      tag: '3.0.0',
      manifest: index,
      manifestMediaType: ociIndexMediaType,
      config: timoniConfigBlob,
      layers: [],
    });
    const module = await pullModule(`oci://${registry.host}/indexed/module`, '3.0.0', pushedIndex.digest, options());
    expect(module.digest).toBe(pushedIndex.digest);
    expect(module.manifestDigest).toBe(sha256Digest(amd));
    expect(module.version).toBe('amd');
    expect((await readTree(module.dir))['timoni.cue']).toBe('package main // amd64\n');
  });
});

/** Pushes a one-layer module by digest (no tag) and returns its manifest bytes. */
async function pushByDigest(repository: string, content: string, version: string): Promise<Buffer> {
  const layer = tarGzip([{ name: 'timoni.cue', type: 'file', content }]);
  const manifest = buildManifest({
    config: { bytes: timoniConfigBlob, mediaType: timoniConfigMediaType },
    layers: [{ bytes: layer, mediaType: timoniContentMediaType }],
    annotations: { 'org.opencontainers.image.version': version },
  });
  const result = await pushArtifact({
    registry: registry.url,
    repository,
    manifest,
    config: timoniConfigBlob,
    layers: [layer],
  });
  return result.manifestBytes;
}

describe('hostile layers', () => {
  it.each([
    [
      'a `..` entry',
      'hostile/parent',
      () => parentTraversalLayer('escaped.txt', 2),
      /entry "\.\.\/\.\.\/escaped\.txt" contains a "\.\." segment/,
    ],
    [
      'an absolute path',
      'hostile/absolute',
      () => absolutePathLayer(join(tmpdir(), 'timoni-fleet-absolute.txt')),
      /is an absolute path/,
    ],
    ['a symlink', 'hostile/symlink', () => symlinkLayer(), /is a symlink \(to "\/etc"\); links are not allowed/],
    ['a hard link', 'hostile/hardlink', () => hardlinkLayer(), /is a hardlink/],
    [
      'content over 100 MiB',
      'hostile/oversized',
      () => oversizedLayer(),
      /is 105906176 bytes, more than the limit of 104857600/,
    ],
    ['bytes that are not gzip', 'hostile/not-gzip', () => notGzipLayer(), /not a valid gzip stream/],
  ])('refuses a layer with %s and leaves nothing behind', async (_what, repository, layer, message) => {
    const url = await pushLayer(repository, layer());
    const cacheDir = join(work, `cache-${repository.replace('/', '-')}`);
    const error = await pullError(url, '1.0.0', undefined, { cacheDir });
    expect(error.code).toBe('archive');
    expect(error.message).toMatch(
      new RegExp(
        `^${url.replace(/[.]/g, '\\.')}:1\\.0\\.0: extracting layer sha256:[a-f0-9]{64} \\(module\\) failed: `,
      ),
    );
    expect(error.message).toMatch(message);
    // nothing extracted: no module folder, no temporary folder, no escaped file
    expect(await readdir(join(cacheDir, 'sha256'))).toEqual([]);
    expect((await readdir(cacheDir)).filter((name) => name.startsWith('.tmp-'))).toEqual([]);
    await expect(stat(join(cacheDir, '..', 'escaped.txt'))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(tmpdir(), 'timoni-fleet-absolute.txt'))).rejects.toThrow(/ENOENT/);
  });
});

describe('transient failures', () => {
  it('retries a manifest request whose connection is dropped once', async () => {
    registry.clearRequests();
    registry.failNext({ count: 1, mode: 'reset', match: (r) => r.method === 'GET' && r.path.includes('/manifests/') });
    const module = await pullModule(pushed.url, '1.0.0', undefined, {
      ...options(),
      cacheDir: join(work, 'reset-manifest'),
    });
    expect(module.digest).toBe(pushed.digest);
    const manifestRequests = registry.requests.filter((r) => r.path.includes('/manifests/'));
    expect(manifestRequests.map((r) => r.outcome)).toEqual(['injected-reset', 'forwarded']);
    expect(manifestRequests[1]?.status).toBe(200);
  });

  it('retries a blob download dropped once and a 429', async () => {
    registry.clearRequests();
    registry.failNext({ count: 1, mode: 'reset', match: (r) => r.path.includes('/blobs/') });
    registry.failNext({ count: 1, mode: 'status', status: 429, match: (r) => r.path.includes('/blobs/') });
    const module = await pullModule(pushed.url, '1.0.0', undefined, {
      ...options(),
      cacheDir: join(work, 'reset-blob'),
    });
    expect(await readTree(module.dir)).toEqual(expectedTree(pushed));
    const outcomes = registry.requests.filter((r) => r.path.includes('/blobs/')).map((r) => r.outcome);
    expect(outcomes).toEqual(['injected-reset', 'injected-status', 'forwarded', 'forwarded']);
  });

  it('retries a blob whose body is cut halfway, and a manifest cut halfway', async () => {
    registry.clearRequests();
    registry.failNext({ count: 1, mode: 'truncate', match: (r) => r.path.includes('/manifests/') });
    registry.failNext({ count: 1, mode: 'truncate', match: (r) => r.path.includes('/blobs/') });
    const module = await pullModule(pushed.url, '1.0.0', undefined, {
      ...options(),
      cacheDir: join(work, 'truncated'),
    });
    expect(module.digest).toBe(pushed.digest);
    expect(await readTree(module.dir)).toEqual(expectedTree(pushed));
    expect(registry.requests.filter((r) => r.outcome === 'injected-truncate')).toHaveLength(2);
    expect(blobGets('modules/sample')).toHaveLength(pushed.layers.length);
  });

  it('gives up after the last try, naming the URL and the last status', async () => {
    registry.clearRequests();
    registry.failNext({ count: 10, mode: 'status', status: 503, match: (r) => r.path.includes('/manifests/') });
    try {
      const error = await pullError(pushed.url, '1.0.0', undefined, { cacheDir: join(work, 'unavailable') });
      expect(error.code).toBe('registry');
      expect(error.status).toBe(503);
      expect(error.message).toMatch(
        new RegExp(
          `^oci://${registry.host.replace(/\./g, '\\.')}/modules/sample:1\\.0\\.0: fetching manifest 1\\.0\\.0 from http://${registry.host.replace(/\./g, '\\.')}/v2/modules/sample/manifests/1\\.0\\.0 failed after 3 attempts in [0-9.]+ s; last status 503`,
        ),
      );
      expect(registry.requests.filter((r) => r.outcome === 'injected-status')).toHaveLength(3);
    } finally {
      registry.clearRequests();
      // use up the remaining injected failures so later tests see a healthy registry
      for (let i = 0; i < 7; i++)
        await fetch(`${registry.url}/v2/modules/sample/manifests/1.0.0`).then((r) => r.arrayBuffer());
    }
  });

  it('gives up on a registry that always drops the connection', async () => {
    registry.failNext({ count: 3, mode: 'reset', match: (r) => r.path.includes('/manifests/') });
    const error = await pullError(pushed.url, '1.0.0', undefined, { cacheDir: join(work, 'always-reset') });
    expect(error.code).toBe('network');
    expect(error.message).toMatch(/failed after 3 attempts in [0-9.]+ s; last error (ECONNRESET|EPIPE)/);
  });
});

describe('one pull per run', () => {
  it('pulls a module once for three uses, concurrent and sequential', async () => {
    registry.clearRequests();
    const client = new ModuleClient({ ...options(), cacheDir: join(work, 'shared') });
    const [a, b] = await Promise.all([
      client.pull(pushed.url, '1.0.0'),
      client.pull(pushed.url, '1.0.0', pushed.digest),
    ]);
    const c = await client.pull(pushed.url, '1.0.0');
    expect(new Set([a.dir, b.dir, c.dir]).size).toBe(1);
    expect(manifestGets('modules/sample')).toHaveLength(1);
    expect(blobGets('modules/sample')).toHaveLength(pushed.layers.length);
    // the pinned digest is still checked on a cache hit
    await expect(client.pull(pushed.url, '1.0.0', sha256Digest(Buffer.from('x')))).rejects.toThrow(
      /doesn't match the specified digest/,
    );
    expect(manifestGets('modules/sample')).toHaveLength(1);
  });

  it('reuses the cache folder in a later run: no blob downloads, and none at all when pinned by digest', async () => {
    registry.clearRequests();
    const later = new ModuleClient({ ...options(), cacheDir: join(work, 'shared') });
    const byTag = await later.pull(pushed.url, '1.0.0');
    expect(manifestGets('modules/sample')).toHaveLength(1);
    expect(blobGets('modules/sample')).toHaveLength(0);
    registry.clearRequests();
    const pinned = await new ModuleClient({ ...options(), cacheDir: join(work, 'shared') }).pull(
      pushed.url,
      'latest',
      pushed.digest,
    );
    expect(registry.requests).toHaveLength(0);
    expect(pinned.dir).toBe(byTag.dir);
    expect(pinned.version).toBe('1.0.0');
  });

  it('shares one pull between concurrent uses by tag and by digest', async () => {
    registry.clearRequests();
    const client = new ModuleClient({ ...options(), cacheDir: join(work, 'concurrent') });
    const results = await Promise.all([
      client.pull(pushed.url, '1.0.0'),
      client.pull(pushed.url, 'latest', pushed.digest),
      client.pull(pushed.url, '1.0.0'),
    ]);
    expect(new Set(results.map((r) => r.dir)).size).toBe(1);
    expect(blobGets('modules/sample')).toHaveLength(pushed.layers.length);
  });
});

const d = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

describe('contentLayers', () => {
  it('keeps Timoni content layers only, vendor first', () => {
    const layer = (n: number, mediaType: string, type?: string): Descriptor => ({
      mediaType,
      digest: d(n),
      size: n,
      annotations: type ? { 'sh.timoni.content.type': type } : {},
    });
    const layers = [
      layer(1, TIMONI_CONTENT, 'module'),
      layer(2, 'application/vnd.oci.image.layer.v1.tar+gzip'),
      layer(3, TIMONI_CONTENT, 'module/vendor'),
      layer(4, TIMONI_CONTENT),
    ];
    expect(contentLayers(layers).map((l) => l.digest)).toEqual([d(3), d(1), d(4)]);
  });
});
