// Fetches and reads manifests: OCI and Docker image manifests, and indexes (OCI index,
// Docker manifest list) resolved to the manifest for the wanted platform (linux/amd64 by
// default) or to their only manifest. The digest of a manifest is the sha256 of its
// bytes as fetched; a manifest fetched by digest must hash to that digest. The media types
// and annotations of Timoni's artifacts are named here too.
import { createHash } from 'node:crypto';
import { OciError } from './errors.js';
import { BodyTooLargeError, readBody } from './http.js';
import type { RegistryClient } from './registry-client.js';

// Media types and annotations of OCI artifacts, Docker manifests and Timoni modules
// (api/v1alpha1/artifact.go in Timoni).

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';

export const MANIFEST_TYPES: readonly string[] = [OCI_MANIFEST, DOCKER_MANIFEST];
export const INDEX_TYPES: readonly string[] = [OCI_INDEX, DOCKER_MANIFEST_LIST];

/** The Accept header of manifest requests: every manifest and index type we can read. */
export const MANIFEST_ACCEPT = [OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST].join(', ');

export const TIMONI_CONFIG = 'application/vnd.timoni.config.v1+json';
export const TIMONI_CONTENT = 'application/vnd.timoni.content.v1.tar+gzip';

export const CONTENT_TYPE_ANNOTATION = 'sh.timoni.content.type';
export const CONTENT_TYPE_VENDOR = 'module/vendor';

export const VERSION_ANNOTATION = 'org.opencontainers.image.version';
/** Held the version in modules pushed by Timoni v0.13 and older. */
export const REVISION_ANNOTATION = 'org.opencontainers.image.revision';

export const USER_AGENT = 'timoni-fleet/v1';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations: Record<string, string>;
  platform?: { os?: string; architecture?: string; variant?: string };
}

export interface ImageManifest {
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations: Record<string, string>;
}

export interface FetchedManifest {
  /** sha256 of `bytes`. */
  digest: string;
  mediaType: string;
  bytes: Buffer;
}

export interface Platform {
  os: string;
  architecture: string;
}

export const defaultPlatform: Platform = { os: 'linux', architecture: 'amd64' };
export const MAX_MANIFEST_SIZE = 4 * 1024 * 1024;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

export function sha256Digest(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function bad(url: string, what: string, reason: string): OciError {
  return new OciError('media-type', url, `${what} is not a valid manifest: ${reason}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

export function parseDescriptor(value: unknown, url: string, what: string): Descriptor {
  if (!isRecord(value)) throw bad(url, what, 'a descriptor is not an object');
  const { mediaType, digest, size } = value;
  if (typeof mediaType !== 'string') throw bad(url, what, 'a descriptor has no mediaType');
  if (typeof digest !== 'string' || !DIGEST.test(digest))
    throw bad(url, what, `descriptor digest ${JSON.stringify(digest)} is not sha256:<64 hex>`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw bad(url, what, `descriptor ${digest} has no valid size`);
  const descriptor: Descriptor = { mediaType, digest, size, annotations: stringMap(value.annotations) };
  if (isRecord(value.platform)) {
    const { os, architecture, variant } = value.platform;
    descriptor.platform = {
      ...(typeof os === 'string' ? { os } : {}),
      ...(typeof architecture === 'string' ? { architecture } : {}),
      ...(typeof variant === 'string' ? { variant } : {}),
    };
  }
  return descriptor;
}

function parseJson(bytes: Buffer, url: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw bad(url, what, 'it is not JSON');
  }
  if (!isRecord(parsed)) throw bad(url, what, 'it is not a JSON object');
  return parsed;
}

/** The media type a manifest declares, else the one the registry sent as Content-Type. */
function declaredType(json: Record<string, unknown>, contentType: string): string {
  if (typeof json.mediaType === 'string' && json.mediaType !== '') return json.mediaType;
  if (Array.isArray(json.manifests)) return INDEX_TYPES.includes(contentType) ? contentType : INDEX_TYPES[0]!;
  return contentType.split(';')[0]?.trim() ?? '';
}

export function parseImageManifest(manifest: FetchedManifest, url: string, what: string): ImageManifest {
  const json = parseJson(manifest.bytes, url, what);
  if (json.schemaVersion !== 2) throw bad(url, what, `schemaVersion is ${JSON.stringify(json.schemaVersion)}, not 2`);
  if (!MANIFEST_TYPES.includes(manifest.mediaType)) {
    throw new OciError(
      'media-type',
      url,
      `${what} has media type '${manifest.mediaType}', not an OCI or Docker image manifest`,
    );
  }
  if (!Array.isArray(json.layers)) throw bad(url, what, 'it has no layers');
  return {
    mediaType: manifest.mediaType,
    config: parseDescriptor(json.config, url, what),
    layers: json.layers.map((layer) => parseDescriptor(layer, url, what)),
    annotations: stringMap(json.annotations),
  };
}

/** The manifest of an index to pull: the wanted platform, else the only entry. */
export function selectFromIndex(manifest: FetchedManifest, platform: Platform, url: string, what: string): Descriptor {
  const json = parseJson(manifest.bytes, url, what);
  if (!Array.isArray(json.manifests)) throw bad(url, what, 'the index has no manifests');
  const entries = json.manifests
    .map((entry) => parseDescriptor(entry, url, what))
    .filter((d) => MANIFEST_TYPES.includes(d.mediaType));
  const match = entries.find(
    (d) => d.platform?.os === platform.os && d.platform?.architecture === platform.architecture,
  );
  if (match) return match;
  if (entries.length === 1 && entries[0]) return entries[0];
  const platforms = entries.map((d) => `${d.platform?.os ?? '?'}/${d.platform?.architecture ?? '?'}`).join(', ');
  throw new OciError(
    'not-found',
    url,
    `${what} is an index of ${entries.length} image manifests (${platforms || 'none'}), none for ${platform.os}/${platform.architecture}`,
  );
}

/** GETs a manifest by tag or digest; verifies the bytes against the digest when there is one. */
export async function fetchManifest(
  client: RegistryClient,
  identifier: string,
  what: string,
): Promise<FetchedManifest> {
  return client.get(`manifests/${identifier}`, what, MANIFEST_ACCEPT, async (res) => {
    let bytes: Buffer;
    try {
      bytes = await readBody(res, MAX_MANIFEST_SIZE);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        throw new OciError('too-large', client.url, `${what} is larger than ${MAX_MANIFEST_SIZE} bytes`);
      throw error;
    }
    const digest = sha256Digest(bytes);
    if (DIGEST.test(identifier) && digest !== identifier) {
      throw new OciError(
        'digest-mismatch',
        client.url,
        `${what}: the registry sent a manifest whose sha256 is ${digest}, not the requested ${identifier}`,
      );
    }
    const json = parseJson(bytes, client.url, what);
    const contentType = String(res.headers['content-type'] ?? '');
    return { digest, mediaType: declaredType(json, contentType), bytes };
  });
}

export interface ResolvedManifest {
  /** Digest of what the tag or digest points at (the index, for an index): the module digest. */
  digest: string;
  /** Digest of the image manifest read (differs from `digest` only behind an index). */
  manifestDigest: string;
  manifest: ImageManifest;
}

/** Fetches the manifest `identifier` names, through an index when it is one. */
export async function resolveManifest(
  client: RegistryClient,
  identifier: string,
  platform: Platform,
): Promise<ResolvedManifest> {
  const what = `manifest ${identifier}`;
  const top = await fetchManifest(client, identifier, what);
  if (!INDEX_TYPES.includes(top.mediaType)) {
    return { digest: top.digest, manifestDigest: top.digest, manifest: parseImageManifest(top, client.url, what) };
  }
  const chosen = selectFromIndex(top, platform, client.url, what);
  const childWhat = `manifest ${chosen.digest} (from the index ${identifier})`;
  const child = await fetchManifest(client, chosen.digest, childWhat);
  if (child.bytes.length !== chosen.size) {
    throw new OciError(
      'digest-mismatch',
      client.url,
      `${childWhat} is ${child.bytes.length} bytes, the index says ${chosen.size}`,
    );
  }
  return {
    digest: top.digest,
    manifestDigest: child.digest,
    manifest: parseImageManifest({ ...child, mediaType: child.mediaType || chosen.mediaType }, client.url, childWhat),
  };
}
