// Pushes an OCI artifact (blobs, then the manifest) with the distribution API, skipping
// blobs the registry already has, as crane does for `timoni mod push`.
import { DistributionClient, type ClientCredentials } from './distribution-client.js';
import { ociManifestMediaType, serializeManifest, sha256Digest, type ImageManifest } from './oci-manifest.js';

export interface PushArtifactOptions {
  /** `http://127.0.0.1:PORT` or `127.0.0.1:PORT`. */
  registry: string;
  /** e.g. `modules/podinfo`. */
  repository: string;
  /** Tag to push under; without one the manifest is pushed by digest. */
  tag?: string;
  /** The manifest: an object (serialised as go-containerregistry does) or exact bytes (malformed on purpose, say). */
  manifest: ImageManifest | Buffer;
  /** Content-Type of the manifest PUT; default the manifest's own mediaType, else the OCI manifest type. */
  manifestMediaType?: string;
  config: Buffer;
  layers: Buffer[];
  /** Further blobs to upload (e.g. ones a hand-written manifest refers to). */
  extraBlobs?: Buffer[];
  credentials?: ClientCredentials;
}

export interface PushResult {
  /** sha256 of the manifest bytes, as the registry stores them. */
  digest: string;
  /** `HOST/REPOSITORY:TAG`, or `HOST/REPOSITORY@DIGEST` without a tag. */
  reference: string;
  /** `HOST/REPOSITORY@DIGEST`. */
  digestReference: string;
  manifestBytes: Buffer;
  blobsUploaded: number;
  blobsSkipped: number;
}

function manifestMediaTypeOf(bytes: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as { mediaType?: unknown };
    return typeof parsed.mediaType === 'string' ? parsed.mediaType : undefined;
  } catch {
    return undefined;
  }
}

/** Uploads one blob unless the registry has it; returns whether it was uploaded. */
export async function pushBlob(client: DistributionClient, bytes: Buffer): Promise<boolean> {
  const digest = sha256Digest(bytes);
  const blobPath = `/v2/${client.repository}/blobs/${digest}`;
  const head = await client.send('HEAD', blobPath, { expect: [200, 404], what: `checking blob ${digest}` });
  if (head.status === 200) return false;
  const started = await client.send('POST', `/v2/${client.repository}/blobs/uploads/`, {
    expect: [202],
    what: `starting the upload of blob ${digest}`,
  });
  const location = started.headers.location;
  if (!location)
    throw new Error(
      `starting the upload of blob ${digest} to ${client.base.host}/${client.repository}: no Location header in the 202 answer`,
    );
  const uploadUrl = new URL(location, client.base);
  uploadUrl.searchParams.set('digest', digest);
  await client.send('PUT', uploadUrl.href, {
    headers: { 'content-type': 'application/octet-stream' },
    body: bytes,
    expect: [201],
    what: `uploading blob ${digest} (${bytes.length} bytes)`,
  });
  return true;
}

/** Pushes config, layers and manifest; returns the manifest digest the registry confirmed. */
export async function pushArtifact(options: PushArtifactOptions): Promise<PushResult> {
  const client = new DistributionClient(options.registry, options.repository, options.credentials, ['pull', 'push']);
  try {
    let uploaded = 0;
    let skipped = 0;
    const seen = new Set<string>();
    for (const blob of [options.config, ...options.layers, ...(options.extraBlobs ?? [])]) {
      const digest = sha256Digest(blob);
      if (seen.has(digest)) continue;
      seen.add(digest);
      if (await pushBlob(client, blob)) uploaded++;
      else skipped++;
    }

    const manifestBytes = Buffer.isBuffer(options.manifest) ? options.manifest : serializeManifest(options.manifest);
    const digest = sha256Digest(manifestBytes);
    const mediaType = options.manifestMediaType ?? manifestMediaTypeOf(manifestBytes) ?? ociManifestMediaType;
    const target = options.tag ?? digest;
    const put = await client.send('PUT', `/v2/${options.repository}/manifests/${target}`, {
      headers: { 'content-type': mediaType },
      body: manifestBytes,
      expect: [201],
      what: `pushing the manifest of ${client.base.host}/${options.repository}:${target}`,
    });
    const confirmed = put.headers['docker-content-digest'];
    if (typeof confirmed === 'string' && confirmed !== digest) {
      throw new Error(
        `registry ${client.base.host} stored the manifest of ${options.repository}:${target} as ${confirmed}, expected ${digest}`,
      );
    }
    const repositoryRef = `${client.base.host}/${options.repository}`;
    return {
      digest,
      reference: options.tag ? `${repositoryRef}:${options.tag}` : `${repositoryRef}@${digest}`,
      digestReference: `${repositoryRef}@${digest}`,
      manifestBytes,
      blobsUploaded: uploaded,
      blobsSkipped: skipped,
    };
  } finally {
    client.close();
  }
}

/** Points `tag` at an existing manifest (what `timoni mod push --latest` does with `latest`). */
export async function tagManifest(options: {
  registry: string;
  repository: string;
  digest: string;
  tag: string;
  credentials?: ClientCredentials;
}): Promise<void> {
  const client = new DistributionClient(options.registry, options.repository, options.credentials, ['pull', 'push']);
  try {
    const accept = [
      ociManifestMediaType,
      'application/vnd.oci.image.index.v1+json',
      'application/vnd.docker.distribution.manifest.v2+json',
    ].join(', ');
    const what = `tagging ${options.repository}@${options.digest} as ${options.tag}`;
    const got = await client.send('GET', `/v2/${options.repository}/manifests/${options.digest}`, {
      headers: { accept },
      expect: [200],
      what,
    });
    const contentType = got.headers['content-type'] ?? ociManifestMediaType;
    await client.send('PUT', `/v2/${options.repository}/manifests/${options.tag}`, {
      headers: { 'content-type': contentType },
      body: got.body,
      expect: [201],
      what,
    });
  } finally {
    client.close();
  }
}
