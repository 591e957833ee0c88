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
export const CONTENT_TYPE_MODULE = 'module';
export const CONTENT_TYPE_VENDOR = 'module/vendor';

export const VERSION_ANNOTATION = 'org.opencontainers.image.version';
/** Held the version in modules pushed by Timoni v0.13 and older. */
export const REVISION_ANNOTATION = 'org.opencontainers.image.revision';

export const USER_AGENT = 'timoni-fleet/v1';
