// OCI image manifests and descriptors, serialised byte for byte as go-containerregistry
// (the library behind `timoni mod push`) serialises them: Go struct field order,
// annotations sorted by key, compact JSON with Go's HTML-safe escaping.
import { createHash } from 'node:crypto';

export const ociManifestMediaType = 'application/vnd.oci.image.manifest.v1+json';
export const ociIndexMediaType = 'application/vnd.oci.image.index.v1+json';
export const dockerManifestMediaType = 'application/vnd.docker.distribution.manifest.v2+json';

export interface Descriptor {
  mediaType: string;
  size: number;
  digest: string;
  urls?: string[];
  annotations?: Record<string, string>;
  artifactType?: string;
}

export interface ImageManifest {
  schemaVersion: number;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
  subject?: Descriptor;
  artifactType?: string;
}

export function sha256Digest(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A descriptor of `bytes` (size and sha256 digest computed here). */
export function describe(bytes: Buffer, mediaType: string, annotations?: Record<string, string>): Descriptor {
  const descriptor: Descriptor = { mediaType, size: bytes.length, digest: sha256Digest(bytes) };
  if (annotations && Object.keys(annotations).length > 0) descriptor.annotations = annotations;
  return descriptor;
}

function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Go's encoding/json sorts map keys bytewise. */
function sortedMap(map: Record<string, string>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(map).sort(byBytes)) sorted[key] = map[key] ?? '';
  return sorted;
}

/** Orders descriptor fields as gcr's v1.Descriptor declares them; empty optional fields are omitted. */
function orderedDescriptor(descriptor: Descriptor): Record<string, unknown> {
  const out: Record<string, unknown> = {
    mediaType: descriptor.mediaType,
    size: descriptor.size,
    digest: descriptor.digest,
  };
  if (descriptor.urls?.length) out.urls = descriptor.urls;
  if (descriptor.annotations && Object.keys(descriptor.annotations).length > 0)
    out.annotations = sortedMap(descriptor.annotations);
  if (descriptor.artifactType) out.artifactType = descriptor.artifactType;
  return out;
}

/** JSON as Go's json.Marshal writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The manifest bytes as gcr's v1.Manifest marshals them (field order of the Go struct). */
export function serializeManifest(manifest: ImageManifest): Buffer {
  const out: Record<string, unknown> = { schemaVersion: manifest.schemaVersion };
  if (manifest.mediaType) out.mediaType = manifest.mediaType;
  out.config = orderedDescriptor(manifest.config);
  out.layers = manifest.layers.map(orderedDescriptor);
  if (manifest.annotations && Object.keys(manifest.annotations).length > 0)
    out.annotations = sortedMap(manifest.annotations);
  if (manifest.subject) out.subject = orderedDescriptor(manifest.subject);
  if (manifest.artifactType) out.artifactType = manifest.artifactType;
  return Buffer.from(goJson(out));
}

export interface BlobSpec {
  bytes: Buffer;
  mediaType: string;
  annotations?: Record<string, string>;
}

/** An OCI image manifest describing `config` and `layers` (any media types, for malformed artifacts too). */
export function buildManifest(input: {
  config: BlobSpec;
  layers: BlobSpec[];
  annotations?: Record<string, string>;
  mediaType?: string;
}): ImageManifest {
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: input.mediaType ?? ociManifestMediaType,
    config: describe(input.config.bytes, input.config.mediaType, input.config.annotations),
    layers: input.layers.map((layer) => describe(layer.bytes, layer.mediaType, layer.annotations)),
  };
  if (input.annotations && Object.keys(input.annotations).length > 0) manifest.annotations = input.annotations;
  return manifest;
}
