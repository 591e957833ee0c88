import { describe, expect, it } from 'vitest';
import { OciError } from '../../../src/module/oci/errors.js';
import {
  DOCKER_MANIFEST,
  OCI_INDEX,
  OCI_MANIFEST,
  parseImageManifest,
  selectFromIndex,
  sha256Digest,
  TIMONI_CONFIG,
  TIMONI_CONTENT,
  type FetchedManifest,
} from '../../../src/module/oci/manifest.js';

const d = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;
const fetched = (json: unknown, mediaType = OCI_MANIFEST): FetchedManifest => {
  const bytes = Buffer.from(JSON.stringify(json));
  return { bytes, mediaType, digest: sha256Digest(bytes) };
};
const URL = 'oci://r.example/a:1.0.0';

describe('parseImageManifest', () => {
  it('reads config, layers with annotations and manifest annotations', () => {
    const manifest = parseImageManifest(
      fetched({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        config: { mediaType: TIMONI_CONFIG, digest: d(1), size: 10 },
        layers: [
          { mediaType: TIMONI_CONTENT, digest: d(2), size: 20, annotations: { 'sh.timoni.content.type': 'module' } },
        ],
        annotations: { 'org.opencontainers.image.version': '1.0.0', ignored: 5 },
      }),
      URL,
      'manifest 1.0.0',
    );
    expect(manifest.config).toEqual({ mediaType: TIMONI_CONFIG, digest: d(1), size: 10, annotations: {} });
    expect(manifest.layers[0]?.annotations).toEqual({ 'sh.timoni.content.type': 'module' });
    expect(manifest.annotations).toEqual({ 'org.opencontainers.image.version': '1.0.0' });
  });

  it.each([
    [{ schemaVersion: 1 }, OCI_MANIFEST, /schemaVersion is 1, not 2/],
    [
      { schemaVersion: 2, config: { mediaType: 'x', digest: 'md5:1', size: 1 }, layers: [] },
      OCI_MANIFEST,
      /descriptor digest "md5:1"/,
    ],
    [
      { schemaVersion: 2, config: { mediaType: 'x', digest: d(1), size: -1 }, layers: [] },
      OCI_MANIFEST,
      /has no valid size/,
    ],
    [{ schemaVersion: 2, config: { mediaType: 'x', digest: d(1), size: 1 } }, OCI_MANIFEST, /has no layers/],
    [
      { schemaVersion: 2, config: { mediaType: 'x', digest: d(1), size: 1 }, layers: [] },
      'application/vnd.oci.artifact.manifest.v1+json',
      /not an OCI or Docker image manifest/,
    ],
  ])('refuses %j', (json, mediaType, message) => {
    expect(() => parseImageManifest(fetched(json, mediaType), URL, 'manifest 1.0.0')).toThrow(message);
    expect(() => parseImageManifest(fetched(json, mediaType), URL, 'manifest 1.0.0')).toThrow(OciError);
  });

  it('accepts the Docker manifest type', () => {
    const json = {
      schemaVersion: 2,
      mediaType: DOCKER_MANIFEST,
      config: { mediaType: TIMONI_CONFIG, digest: d(1), size: 1 },
      layers: [],
    };
    expect(parseImageManifest(fetched(json, DOCKER_MANIFEST), URL, 'm').mediaType).toBe(DOCKER_MANIFEST);
  });
});

describe('selectFromIndex', () => {
  const entry = (n: number, os: string, architecture: string) => ({
    mediaType: OCI_MANIFEST,
    digest: d(n),
    size: n,
    platform: { os, architecture },
  });
  it('picks linux/amd64, or the wanted platform', () => {
    const index = fetched(
      { schemaVersion: 2, manifests: [entry(1, 'linux', 'arm64'), entry(2, 'linux', 'amd64')] },
      OCI_INDEX,
    );
    expect(selectFromIndex(index, { os: 'linux', architecture: 'amd64' }, URL, 'm').digest).toBe(d(2));
    expect(selectFromIndex(index, { os: 'linux', architecture: 'arm64' }, URL, 'm').digest).toBe(d(1));
  });
  it('takes the only manifest whatever its platform', () => {
    const index = fetched(
      { schemaVersion: 2, manifests: [{ mediaType: OCI_MANIFEST, digest: d(3), size: 3 }] },
      OCI_INDEX,
    );
    expect(selectFromIndex(index, { os: 'linux', architecture: 'amd64' }, URL, 'm').digest).toBe(d(3));
  });
  it('says which platforms exist when none matches', () => {
    const index = fetched(
      { schemaVersion: 2, manifests: [entry(1, 'linux', 'arm64'), entry(2, 'windows', 'amd64')] },
      OCI_INDEX,
    );
    expect(() => selectFromIndex(index, { os: 'linux', architecture: 'amd64' }, URL, 'manifest 1.0.0')).toThrow(
      `${URL}: manifest 1.0.0 is an index of 2 image manifests (linux/arm64, windows/amd64), none for linux/amd64`,
    );
  });
});
