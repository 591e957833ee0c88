// Pulls a Timoni module from an OCI registry, as Timoni's PullModule does
// (internal/oci/pull_module.go): resolve the reference (`url:version`, or `url@digest`
// when the version is `latest` and a digest is pinned), fetch the manifest, take its
// digest from the bytes fetched, check Timoni's config media type, download every
// content layer (verified against its digest) and extract them into one folder, the
// vendor layer first. A pinned digest must match the upstream digest, on every use.
import { createHash } from 'node:crypto';
import { RegistryAuth } from './auth.js';
import { ModuleCache, type CachedModule } from './cache.js';
import type { CredentialOptions } from './credentials.js';
import { OciError } from './errors.js';
import { BodyTooLargeError, NetworkError, readBody } from './http.js';
import {
  CONTENT_TYPE_ANNOTATION,
  CONTENT_TYPE_VENDOR,
  defaultPlatform,
  resolveManifest,
  REVISION_ANNOTATION,
  TIMONI_CONFIG,
  TIMONI_CONTENT,
  USER_AGENT,
  VERSION_ANNOTATION,
  type Descriptor,
  type Platform,
} from './manifest.js';
import { manifestIdentifier, moduleReference, referenceUrl, repositoryUrl, type Reference } from './reference.js';
import { RegistryClient, type ClientContext } from './registry-client.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';
import { SecretRegistry as SecretRedactor, type RegisterSecret as SecretSink } from '../../secrets.js';
import { defaultExtractLimits, extractTarGz, UnsafeArchiveError, type ExtractLimits } from '../tar/extract.js';
import { TarFormatError } from '../tar/reader.js';

export interface PullLimits extends ExtractLimits {
  /** Largest compressed layer downloaded, in bytes (default 100 MiB). */
  maxLayerSize: number;
}

export interface ModuleClientOptions extends CredentialOptions {
  /** Shared module cache; default one per client, in `cacheDir` or the module cache folder (src/private-cache-dir.ts). */
  cache?: ModuleCache;
  cacheDir?: string;
  /** Plain HTTP for every registry (Timoni's `--registry-insecure`); local registries always use it. */
  insecure?: boolean;
  /** Called once with every credential value the client handles, so it can be masked. */
  secrets?: SecretSink;
  retry?: Partial<RetryPolicy>;
  /** Socket idle timeout per request (default 30 s). */
  timeoutMs?: number;
  /** Time limit of one whole request, body included (default 120 s). */
  totalMs?: number;
  limits?: Partial<PullLimits>;
  /** Platform picked from an index (default linux/amd64). */
  platform?: Platform;
  userAgent?: string;
  signal?: AbortSignal;
}

export interface PulledModule {
  /** The module URL as given. */
  url: string;
  /** `oci://<registry>/<repository>`, as Timoni records it (Docker Hub: index.docker.io). */
  repository: string;
  /** `org.opencontainers.image.version` (or the v0.13 revision annotation), else "". */
  version: string;
  /** sha256 of the manifest the reference points at (the module digest). */
  digest: string;
  /** Digest of the image manifest read; differs from `digest` only behind an index. */
  manifestDigest: string;
  /** `oci://<registry>/<repository>@<digest>`. */
  reference: string;
  annotations: Record<string, string>;
  /** The extracted module, shared between uses: read it, never modify it. */
  dir: string;
}

/** Content layers in extraction order: `module/vendor` first, then the rest as listed. */
export function contentLayers(layers: Descriptor[]): Descriptor[] {
  const content = layers.filter((layer) => layer.mediaType === TIMONI_CONTENT);
  const vendor = content.filter((layer) => layer.annotations[CONTENT_TYPE_ANNOTATION] === CONTENT_TYPE_VENDOR);
  return [...vendor, ...content.filter((layer) => !vendor.includes(layer))];
}

// Downloads a blob (a module layer) into memory: the declared size is checked against a
// limit before the download, the bytes are hashed as they arrive, and the result must
// match the descriptor's size and sha256 digest exactly.

export async function downloadBlob(client: RegistryClient, descriptor: Descriptor, maxSize: number): Promise<Buffer> {
  const what = `blob ${descriptor.digest}`;
  if (descriptor.size > maxSize) {
    throw new OciError(
      'too-large',
      client.url,
      `${what} is ${descriptor.size} bytes, more than the limit of ${maxSize}`,
    );
  }
  return client.get(`blobs/${descriptor.digest}`, what, undefined, async (res) => {
    const hash = createHash('sha256');
    let bytes: Buffer;
    try {
      // One byte more than declared is enough to tell that the blob is not the one described.
      bytes = await readBody(res, descriptor.size + 1, (chunk) => hash.update(chunk));
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new OciError(
          'digest-mismatch',
          client.url,
          `${what} is larger than the ${descriptor.size} bytes its descriptor says`,
        );
      }
      throw error;
    }
    if (bytes.length < descriptor.size) {
      // A body shorter than declared with a clean end: the transfer was cut; try again.
      throw new NetworkError('ESHORTBODY', `${what}: got ${bytes.length} of ${descriptor.size} bytes`);
    }
    const digest = `sha256:${hash.digest('hex')}`;
    if (digest !== descriptor.digest) {
      throw new OciError('digest-mismatch', client.url, `${what} failed verification: its content hashes to ${digest}`);
    }
    return bytes;
  });
}

/** A client for one run: it keeps registry sessions (tokens) and the module cache. */
export class ModuleClient {
  readonly cache: ModuleCache;
  readonly #options: ModuleClientOptions;
  readonly #secrets: SecretRedactor;
  readonly #context: ClientContext;
  readonly #limits: PullLimits;
  readonly #sessions = new Map<string, RegistryAuth>();

  constructor(options: ModuleClientOptions = {}) {
    this.#options = options;
    this.cache = options.cache ?? new ModuleCache(options.cacheDir !== undefined ? { dir: options.cacheDir } : {});
    this.#secrets = new SecretRedactor(options.secrets);
    if (options.credentials) this.#secrets.add(options.credentials);
    for (const credential of Object.values(options.hostCredentials ?? {})) this.#secrets.add(credential);
    this.#context = {
      retry: { ...defaultRetryPolicy, ...options.retry },
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.totalMs !== undefined ? { totalMs: options.totalMs } : {}),
      userAgent: options.userAgent ?? USER_AGENT,
      secrets: this.#secrets,
      signal: options.signal,
    };
    this.#limits = { ...defaultExtractLimits, maxLayerSize: 100 * 1024 * 1024, ...options.limits };
  }

  /** Pulls `url` at `version` (a tag, or `latest`), checking `digest` when given. */
  async pull(url: string, version = 'latest', digest?: string): Promise<PulledModule> {
    const ref = moduleReference(url, version, digest, { insecure: this.#options.insecure });
    const key = referenceUrl(ref);
    const module = await this.cache.shared(key, () => this.#fetch(ref, key));
    if (digest && module.digest !== digest) {
      // Timoni's words (cmd/timoni/bundle_apply.go).
      throw new OciError(
        'digest-mismatch',
        key,
        `the upstream digest ${module.digest} of version ${version} doesn't match the specified digest ${digest}`,
      );
    }
    return {
      url,
      repository: repositoryUrl(ref),
      version: module.version,
      digest: module.digest,
      manifestDigest: module.manifestDigest,
      reference: `${repositoryUrl(ref)}@${module.digest}`,
      annotations: module.annotations,
      dir: module.dir,
    };
  }

  #session(ref: Reference): RegistryAuth {
    const key = `${ref.scheme}://${ref.apiHost}`;
    let session = this.#sessions.get(key);
    if (!session) {
      session = new RegistryAuth(ref.registry, { ...this.#context, credentials: this.#options });
      this.#sessions.set(key, session);
    }
    return session;
  }

  async #fetch(ref: Reference, url: string): Promise<CachedModule> {
    if (ref.digest) {
      const cached = await this.cache.lookup(ref.digest);
      if (cached) return cached;
    }
    const client = new RegistryClient(ref, this.#session(ref), this.#context, url);
    const resolved = await resolveManifest(client, manifestIdentifier(ref), this.#options.platform ?? defaultPlatform);
    const { manifest } = resolved;
    if (manifest.config.mediaType !== TIMONI_CONFIG) {
      throw new OciError(
        'media-type',
        url,
        `unsupported artifact type '${manifest.config.mediaType}', must be '${TIMONI_CONFIG}'`,
      );
    }
    const layers = contentLayers(manifest.layers);
    if (layers.length === 0)
      throw new OciError('media-type', url, `no layer found in artifact with media type '${TIMONI_CONTENT}'`);
    const annotations = manifest.annotations;
    const version = annotations[VERSION_ANNOTATION] ?? annotations[REVISION_ANNOTATION] ?? '';
    const meta = { digest: resolved.digest, manifestDigest: resolved.manifestDigest, version, annotations };
    return this.cache.store(meta, async (dir) => {
      for (const layer of layers) {
        const blob = await downloadBlob(client, layer, this.#limits.maxLayerSize);
        try {
          await extractTarGz(blob, dir, this.#limits);
        } catch (error) {
          if (error instanceof UnsafeArchiveError || error instanceof TarFormatError) {
            const kind = layer.annotations[CONTENT_TYPE_ANNOTATION];
            throw new OciError(
              'archive',
              url,
              `extracting layer ${layer.digest}${kind ? ` (${kind})` : ''} failed: ${error.message}`,
            );
          }
          throw error;
        }
      }
    });
  }
}

/**
 * Pulls one module. Pass the same `client` (or `cache`) for every use in a run so that a
 * module is pulled once; without one, this call makes its own client.
 */
export function pullModule(
  url: string,
  version: string,
  digest: string | undefined,
  options: ModuleClientOptions & { client?: ModuleClient } = {},
): Promise<PulledModule> {
  return (options.client ?? new ModuleClient(options)).pull(url, version, digest);
}
