// The test registry library: a real OCI registry per test suite, and a pusher and puller
// of Timoni module artifacts. See README.md beside this file.
export {
  startRegistry,
  type RegistryHandle,
  type StartRegistryOptions,
  type RegistryCredentials,
  type RegistryAuthMode,
  type RegistryUser,
  type FailureInjection,
  type RecordedRequest,
  type RequestMatch,
} from './registry.js';
export {
  pushTimoniModule,
  buildTimoniModule,
  validateModuleVersion,
  timoniConfigBlob,
  timoniConfigMediaType,
  timoniContentMediaType,
  timoniContentTypeAnnotation,
  versionAnnotation,
  type PushTimoniModuleOptions,
  type PushedTimoniModule,
  type BuiltTimoniModule,
} from './timoni-module.js';
export { pushArtifact, pushBlob, tagManifest, type PushArtifactOptions, type PushResult } from './push.js';
export { pullArtifact, pullManifest, type PullArtifactOptions, type PulledArtifact } from './pull.js';
export {
  buildManifest,
  serializeManifest,
  describe,
  sha256Digest,
  ociManifestMediaType,
  ociIndexMediaType,
  dockerManifestMediaType,
  type ImageManifest,
  type Descriptor,
  type BlobSpec,
} from './oci-manifest.js';
export { writeTar, type TarEntry, type TarEntryType } from './tar-writer.js';
export { readTar, readTarGzip, type TarMember } from './tar-reader.js';
export { moduleLayers, gzipLayer, type ModuleLayer } from './module-layers.js';
export {
  tarGzip,
  parentTraversalLayer,
  absolutePathLayer,
  symlinkLayer,
  hardlinkLayer,
  oversizedLayer,
  notGzipLayer,
  timoniMaxUntarSize,
} from './malformed-layers.js';
export { RegistryHttpError, type ClientCredentials } from './distribution-client.js';
export { writeSampleModule, sampleModuleFiles } from './sample-module.js';
export { timoniReferenceExtract, type ReferenceExtraction, type ExtractedPath } from './reference-extract.js';
export { writeDockerConfig, type DockerConfigEntry } from './docker-config.js';
