// Builds and pushes a Timoni module artifact in the format of `timoni mod push`
// (Timoni v0.32, internal/oci/build_image.go and push_module.go): an OCI image manifest
// whose config is go-containerregistry's empty image config under Timoni's config
// media type, two gzip tar layers (`module/vendor` with cue.mod/, then `module`), and
// manifest annotations: the version, then created/source/revision from Git when absent.
import { ociManifestMediaType, describe, serializeManifest, sha256Digest, type ImageManifest } from './oci-manifest.js';
import { appendGitMetadata } from './git-metadata.js';
import { goGzip } from './go-gzip.js';
import { gzipLayer, moduleLayers, type ModuleLayer } from './module-layers.js';
import { pushArtifact, tagManifest } from './push.js';
import type { ClientCredentials } from './distribution-client.js';

export const timoniConfigMediaType = 'application/vnd.timoni.config.v1+json';
export const timoniContentMediaType = 'application/vnd.timoni.content.v1.tar+gzip';
export const timoniContentTypeAnnotation = 'sh.timoni.content.type';
export const versionAnnotation = 'org.opencontainers.image.version';

/**
 * The config blob of every Timoni module: go-containerregistry's empty image config,
 * left as is because the config media type is not an image config type.
 */
export const timoniConfigBlob = Buffer.from(
  '{"architecture":"","created":"0001-01-01T00:00:00Z","os":"","rootfs":{"type":"layers","diff_ids":null},"config":{}}',
);

/** Timoni's check: strict semver (no leading 'v', no build metadata). */
export function validateModuleVersion(version: string): void {
  if (version === '') throw new Error('module version is required');
  if (version.includes('+')) throw new Error(`module version ${version}: build metadata is not supported`);
  const id = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
  const semver = new RegExp(`^(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)(?:-${id}(?:\\.${id})*)?$`);
  if (!semver.test(version))
    throw new Error(
      `module version ${JSON.stringify(version)} is not in strict semver format (MAJOR.MINOR.PATCH[-PRERELEASE])`,
    );
}

export interface BuildTimoniModuleOptions {
  moduleDir: string;
  /** The module version: the tag and the `org.opencontainers.image.version` annotation. */
  version: string;
  /** Extra manifest annotations (`timoni mod push -a key=value`); the version always wins. */
  annotations?: Record<string, string>;
  /** Add created/source/revision from the module's Git checkout as Timoni does (default true). */
  gitMetadata?: boolean;
  /**
   * Gzip encoder: `go` (default) is Go's compress/gzip as in Timoni, so layer and manifest
   * digests equal `timoni mod push`'s for files with modes 0644/0755; `node` is zlib
   * (no helper process, other bytes).
   */
  gzip?: 'go' | 'node';
}

export interface BuiltTimoniModule {
  manifest: ImageManifest;
  manifestBytes: Buffer;
  /** sha256 of the manifest bytes: the module digest. */
  digest: string;
  config: Buffer;
  layers: ModuleLayer[];
}

/** Builds the artifact without pushing it. */
export async function buildTimoniModule(options: BuildTimoniModuleOptions): Promise<BuiltTimoniModule> {
  validateModuleVersion(options.version);
  const annotations: Record<string, string> = { ...options.annotations, [versionAnnotation]: options.version };
  if (options.gitMetadata ?? true) await appendGitMetadata(options.moduleDir, annotations);
  const layers = await moduleLayers(
    options.moduleDir,
    (options.gzip ?? 'go') === 'go' ? goGzip : async (tar) => gzipLayer(tar),
  );
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: ociManifestMediaType,
    config: describe(timoniConfigBlob, timoniConfigMediaType),
    layers: layers.map((layer) =>
      describe(layer.gzip, timoniContentMediaType, { [timoniContentTypeAnnotation]: layer.contentType }),
    ),
    annotations,
  };
  const manifestBytes = serializeManifest(manifest);
  return { manifest, manifestBytes, digest: sha256Digest(manifestBytes), config: timoniConfigBlob, layers };
}

export interface PushTimoniModuleOptions {
  /** `http://127.0.0.1:PORT` or `127.0.0.1:PORT`, e.g. a RegistryHandle's `url`. */
  registry: string;
  /** e.g. `modules/podinfo`. */
  repository: string;
  /** The module version, used literally as the tag. */
  tag: string;
  moduleDir: string;
  credentials?: ClientCredentials;
  annotations?: Record<string, string>;
  /** Also tag the manifest `latest`, as `timoni mod push` does by default (default true). */
  latest?: boolean;
  gitMetadata?: boolean;
  gzip?: 'go' | 'node';
}

export interface PushedTimoniModule {
  /** sha256 of the manifest bytes. */
  digest: string;
  /** `HOST/REPOSITORY:TAG`. */
  reference: string;
  /** `oci://HOST/REPOSITORY`, the `module.url` of a bundle. */
  url: string;
  /** `HOST/REPOSITORY@sha256:...`. */
  digestReference: string;
  manifest: ImageManifest;
  manifestBytes: Buffer;
  layers: ModuleLayer[];
  blobsUploaded: number;
  blobsSkipped: number;
}

export async function pushTimoniModule(options: PushTimoniModuleOptions): Promise<PushedTimoniModule> {
  const built = await buildTimoniModule({
    moduleDir: options.moduleDir,
    version: options.tag,
    annotations: options.annotations,
    gitMetadata: options.gitMetadata,
    gzip: options.gzip,
  });
  const pushed = await pushArtifact({
    registry: options.registry,
    repository: options.repository,
    tag: options.tag,
    manifest: built.manifestBytes,
    config: built.config,
    layers: built.layers.map((layer) => layer.gzip),
    credentials: options.credentials,
  });
  if (options.latest ?? true) {
    await tagManifest({
      registry: options.registry,
      repository: options.repository,
      digest: pushed.digest,
      tag: 'latest',
      credentials: options.credentials,
    });
  }
  const host = pushed.reference.slice(0, pushed.reference.indexOf('/'));
  return {
    digest: pushed.digest,
    reference: pushed.reference,
    url: `oci://${host}/${options.repository}`,
    digestReference: pushed.digestReference,
    manifest: built.manifest,
    manifestBytes: built.manifestBytes,
    layers: built.layers,
    blobsUploaded: pushed.blobsUploaded,
    blobsSkipped: pushed.blobsSkipped,
  };
}
