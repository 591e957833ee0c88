// Fetches an OCI artifact (manifest, config, layers) for tests to check what was pushed.
// Every blob is checked against its descriptor's digest and size.
import { DistributionClient, type ClientCredentials } from './distribution-client.js';
import {
  dockerManifestMediaType,
  ociIndexMediaType,
  ociManifestMediaType,
  sha256Digest,
  type Descriptor,
  type ImageManifest,
} from './oci-manifest.js';

export interface PullArtifactOptions {
  registry: string;
  repository: string;
  /** A tag or a `sha256:` digest. */
  reference: string;
  credentials?: ClientCredentials;
}

export interface PulledArtifact {
  /** sha256 of the manifest bytes as fetched. */
  digest: string;
  /** The registry's Docker-Content-Digest header. */
  registryDigest: string | undefined;
  contentType: string | undefined;
  manifestBytes: Buffer;
  manifest: ImageManifest;
  config: Buffer;
  layers: Array<{ descriptor: Descriptor; bytes: Buffer }>;
}

async function fetchBlob(client: DistributionClient, descriptor: Descriptor, what: string): Promise<Buffer> {
  const response = await client.send('GET', `/v2/${client.repository}/blobs/${descriptor.digest}`, {
    expect: [200],
    what,
  });
  const actual = sha256Digest(response.body);
  if (actual !== descriptor.digest)
    throw new Error(`${what}: content hashes to ${actual}, the manifest says ${descriptor.digest}`);
  if (response.body.length !== descriptor.size)
    throw new Error(`${what}: ${response.body.length} bytes, the manifest says ${descriptor.size}`);
  return response.body;
}

const manifestAccept = [ociManifestMediaType, ociIndexMediaType, dockerManifestMediaType].join(', ');

async function fetchManifest(
  client: DistributionClient,
  reference: string,
): Promise<Omit<PulledArtifact, 'manifest' | 'config' | 'layers'>> {
  const response = await client.send('GET', `/v2/${client.repository}/manifests/${reference}`, {
    headers: { accept: manifestAccept },
    expect: [200],
    what: `fetching the manifest of ${client.repository}:${reference}`,
  });
  const registryDigest = response.headers['docker-content-digest'];
  return {
    digest: sha256Digest(response.body),
    manifestBytes: response.body,
    contentType: response.headers['content-type'],
    registryDigest: typeof registryDigest === 'string' ? registryDigest : undefined,
  };
}

/** Fetches only the manifest; returns its bytes and their digest. */
export async function pullManifest(
  options: PullArtifactOptions,
): Promise<Omit<PulledArtifact, 'manifest' | 'config' | 'layers'>> {
  const client = new DistributionClient(options.registry, options.repository, options.credentials, ['pull']);
  try {
    return await fetchManifest(client, options.reference);
  } finally {
    client.close();
  }
}

/** Fetches the manifest, then the config and every layer, over one connection and one token. */
export async function pullArtifact(options: PullArtifactOptions): Promise<PulledArtifact> {
  const client = new DistributionClient(options.registry, options.repository, options.credentials, ['pull']);
  try {
    const fetched = await fetchManifest(client, options.reference);
    let manifest: ImageManifest;
    try {
      manifest = JSON.parse(fetched.manifestBytes.toString('utf8')) as ImageManifest;
    } catch (error) {
      throw new Error(
        `the manifest of ${options.repository}:${options.reference} is not JSON: ${(error as Error).message}`,
      );
    }
    if (!manifest.config || !Array.isArray(manifest.layers)) {
      throw new Error(
        `the manifest of ${options.repository}:${options.reference} is not an image manifest (mediaType ${manifest.mediaType ?? 'unset'})`,
      );
    }
    const config = await fetchBlob(
      client,
      manifest.config,
      `fetching the config of ${options.repository}:${options.reference}`,
    );
    const layers = [];
    for (const [index, descriptor] of manifest.layers.entries()) {
      layers.push({
        descriptor,
        bytes: await fetchBlob(
          client,
          descriptor,
          `fetching layer ${index} of ${options.repository}:${options.reference}`,
        ),
      });
    }
    return { ...fetched, manifest, config, layers };
  } finally {
    client.close();
  }
}
