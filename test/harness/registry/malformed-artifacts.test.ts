// Malformed artifacts can be pushed as they are, for tests of the product's puller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import {
  absolutePathLayer,
  hardlinkLayer,
  notGzipLayer,
  oversizedLayer,
  parentTraversalLayer,
  symlinkLayer,
  timoniMaxUntarSize,
} from './malformed-layers.js';
import { buildManifest } from './oci-manifest.js';
import { pullArtifact } from './pull.js';
import { pushArtifact } from './push.js';
import { startRegistry, type RegistryHandle } from './registry.js';
import { readTarGzip } from './tar-reader.js';
import { timoniConfigBlob, timoniConfigMediaType, timoniContentMediaType } from './timoni-module.js';

let registry: RegistryHandle;
beforeAll(async () => {
  registry = await startRegistry({ auth: 'basic' });
});
afterAll(async () => {
  await registry?.stop();
});

async function pushOneLayer(
  repository: string,
  layer: Buffer,
  options: { configMediaType?: string; layerMediaType?: string } = {},
) {
  const manifest = buildManifest({
    config: { bytes: timoniConfigBlob, mediaType: options.configMediaType ?? timoniConfigMediaType },
    layers: [
      {
        bytes: layer,
        mediaType: options.layerMediaType ?? timoniContentMediaType,
        annotations: { 'sh.timoni.content.type': 'module' },
      },
    ],
    annotations: { 'org.opencontainers.image.version': '1.0.0' },
  });
  const pushed = await pushArtifact({
    registry: registry.url,
    repository,
    tag: '1.0.0',
    manifest,
    config: timoniConfigBlob,
    layers: [layer],
    credentials: registry.credentials,
  });
  const pulled = await pullArtifact({
    registry: registry.url,
    repository,
    reference: '1.0.0',
    credentials: registry.credentials,
  });
  expect(pulled.digest).toBe(pushed.digest);
  return pulled;
}

describe('malformed artifacts', () => {
  it('keeps a parent-directory escape', async () => {
    const pulled = await pushOneLayer('bad/traversal', parentTraversalLayer('escaped.txt', 2));
    expect(readTarGzip(pulled.layers[0]?.bytes ?? Buffer.alloc(0)).map((member) => member.name)).toEqual([
      'timoni.cue',
      'values.cue',
      '../../escaped.txt',
    ]);
  });

  it('keeps an absolute path', async () => {
    const pulled = await pushOneLayer('bad/absolute', absolutePathLayer('/tmp/absolute.txt'));
    expect(readTarGzip(pulled.layers[0]?.bytes ?? Buffer.alloc(0)).at(-1)?.name).toBe('/tmp/absolute.txt');
    expect(() => absolutePathLayer('relative.txt')).toThrow(/not absolute/);
  });

  it('keeps a symlink out of the folder and a file written through it, and a hard link', async () => {
    const symlinked = readTarGzip(
      (await pushOneLayer('bad/symlink', symlinkLayer())).layers[0]?.bytes ?? Buffer.alloc(0),
    );
    expect(symlinked.slice(2).map((member) => [member.name, member.typeflag, member.linkname])).toEqual([
      ['templates', '2', '/etc'],
      ['templates/through-symlink.cue', '0', ''],
    ]);
    const hardlinked = readTarGzip(
      (await pushOneLayer('bad/hardlink', hardlinkLayer())).layers[0]?.bytes ?? Buffer.alloc(0),
    );
    expect(hardlinked.at(-1)).toMatchObject({ name: 'passwd', typeflag: '1', linkname: '/etc/passwd' });
  });

  it('keeps a layer that unpacks beyond 100 MiB while its blob stays small', async () => {
    const layer = oversizedLayer();
    expect(layer.length).toBeLessThan(1024 * 1024);
    const pulled = await pushOneLayer('bad/oversized', layer);
    expect(gunzipSync(pulled.layers[0]?.bytes ?? Buffer.alloc(0)).length).toBeGreaterThan(timoniMaxUntarSize);
  });

  it('keeps wrong media types and a layer that is not gzip', async () => {
    const pulled = await pushOneLayer('bad/types', notGzipLayer(), {
      configMediaType: 'application/vnd.oci.image.config.v1+json',
      layerMediaType: 'application/vnd.oci.image.layer.v1.tar',
    });
    expect(pulled.manifest.config.mediaType).toBe('application/vnd.oci.image.config.v1+json');
    expect(pulled.manifest.layers[0]?.mediaType).toBe('application/vnd.oci.image.layer.v1.tar');
    expect(() => gunzipSync(pulled.layers[0]?.bytes ?? Buffer.alloc(0))).toThrow();
  });

  it('pushes exact manifest bytes, and the registry rejects a manifest naming a blob it lacks', async () => {
    const manifest = buildManifest({
      config: { bytes: timoniConfigBlob, mediaType: timoniConfigMediaType },
      layers: [{ bytes: Buffer.from('never uploaded'), mediaType: timoniContentMediaType }],
    });
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    const pushing = pushArtifact({
      registry: registry.url,
      repository: 'bad/missing',
      tag: '1.0.0',
      manifest: bytes,
      config: timoniConfigBlob,
      layers: [],
      credentials: registry.credentials,
    });
    await expect(pushing).rejects.toMatchObject({ status: 400 });
    await expect(pushing).rejects.toThrow(/MANIFEST_BLOB_UNKNOWN/);

    const pretty = Buffer.from(
      JSON.stringify(
        buildManifest({ config: { bytes: timoniConfigBlob, mediaType: timoniConfigMediaType }, layers: [] }),
        null,
        2,
      ),
    );
    const pushed = await pushArtifact({
      registry: registry.url,
      repository: 'bad/pretty',
      tag: '1.0.0',
      manifest: pretty,
      config: timoniConfigBlob,
      layers: [],
      credentials: registry.credentials,
    });
    const pulled = await pullArtifact({
      registry: registry.url,
      repository: 'bad/pretty',
      reference: '1.0.0',
      credentials: registry.credentials,
    });
    expect(pulled.manifestBytes.equals(pretty)).toBe(true);
    expect(pulled.digest).toBe(pushed.digest);
  });
});
