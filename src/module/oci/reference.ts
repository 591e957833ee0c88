// Parses `oci://host[:port]/repo` module URLs with a tag or digest, as Timoni reads them
// (internal/oci/url.go and go-containerregistry's name package): the first path segment
// is a registry when it holds a `.` or `:` or is `localhost`, otherwise the reference is
// on Docker Hub, whose single-segment names get the `library/` prefix. Registries that
// look local (loopback, localhost, *.local, RFC 1918 addresses) are spoken to over plain
// HTTP, as go-containerregistry decides; everything else over HTTPS.
import { OciError } from './errors.js';

export const OCI_PREFIX = 'oci://';
export const LATEST = 'latest';

/** Docker Hub's name as references write it, and the host that serves its API. */
export const DOCKER_HUB_NAME = 'index.docker.io';
export const DOCKER_HUB_API = 'registry-1.docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REPOSITORY_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

export interface Reference {
  /** Registry as named in references: `127.0.0.1:5000`, `ghcr.io`, `index.docker.io`. */
  registry: string;
  /** Host (and port) that serves the distribution API: `registry-1.docker.io` for Docker Hub. */
  apiHost: string;
  /** Repository path inside the registry: `stefanprodan/modules/podinfo`. */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
  scheme: 'http' | 'https';
}

/** `oci://<registry>/<repository>`, as Timoni records a module's repository. */
export function repositoryUrl(ref: Reference): string {
  return `${OCI_PREFIX}${ref.registry}/${ref.repository}`;
}

/** `oci://<registry>/<repository>:<tag>` or `...@<digest>`, for messages. */
export function referenceUrl(ref: Reference): string {
  return `${repositoryUrl(ref)}${ref.digest ? `@${ref.digest}` : `:${ref.tag ?? LATEST}`}`;
}

/** The tag or digest that names the manifest in `/v2/<repo>/manifests/<it>`. */
export function manifestIdentifier(ref: Reference): string {
  return ref.digest ?? ref.tag ?? LATEST;
}

/**
 * go-containerregistry's rule for registries spoken to over plain HTTP (name.Registry.Scheme),
 * except that any 127.0.0.0/8 address counts as loopback, not only 127.0.0.1.
 */
export function isLocalRegistry(registry: string): boolean {
  const host = registry.startsWith('[') ? registry.slice(1, registry.indexOf(']')) : registry.replace(/:\d+$/, '');
  // go-containerregistry: `localhost:<port>` (bare `localhost` stays https), *.local, *.localhost.
  if (registry.startsWith('localhost:') || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (host === '::1' || /^127\./.test(host)) return true;
  const octets = host.split('.').map(Number);
  if (octets.length === 4 && octets.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
    const [a = 0, b = 0] = octets;
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  return false;
}

function invalid(url: string, reason: string): OciError {
  return new OciError(
    'invalid-reference',
    url,
    `invalid module URL: ${reason} (expected 'oci://<domain>/<org>/<repo>')`,
  );
}

/**
 * Parses `oci://host[:port]/repo[:tag][@sha256:...]`. `insecure` forces plain HTTP, as
 * Timoni's `--registry-insecure`.
 */
export function parseReference(url: string, options: { insecure?: boolean } = {}): Reference {
  if (!url.startsWith(OCI_PREFIX)) throw invalid(url, `it does not start with ${OCI_PREFIX}`);
  let rest = url.slice(OCI_PREFIX.length);
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) {
      throw invalid(
        url,
        /^[a-z0-9]+:/.test(digest) && !digest.startsWith('sha256:')
          ? `unsupported digest algorithm in ${JSON.stringify(digest)}`
          : `malformed digest ${JSON.stringify(digest)}`,
      );
    }
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.indexOf(':', lastSlash + 1);
  if (colon !== -1) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(url, `invalid tag ${JSON.stringify(tag)}`);
  }
  if (rest === '') throw invalid(url, 'no repository');

  const firstSlash = rest.indexOf('/');
  const first = firstSlash === -1 ? '' : rest.slice(0, firstSlash);
  let registry: string;
  let repository: string;
  if (first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first.toLowerCase();
    repository = rest.slice(firstSlash + 1);
    if (!/^(?:\[[0-9a-f:]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.test(registry))
      throw invalid(url, `invalid registry ${JSON.stringify(first)}`);
  } else {
    registry = DOCKER_HUB_NAME;
    repository = rest;
  }
  if (DOCKER_HUB_ALIASES.has(registry)) {
    registry = DOCKER_HUB_NAME;
    if (!repository.includes('/')) repository = `library/${repository}`;
  }
  if (repository === '' || !repository.split('/').every((part) => REPOSITORY_COMPONENT.test(part))) {
    throw invalid(url, `invalid repository ${JSON.stringify(repository)} (lowercase letters, digits and separators)`);
  }
  const apiHost = registry === DOCKER_HUB_NAME ? DOCKER_HUB_API : registry;
  const scheme = options.insecure || isLocalRegistry(registry) ? 'http' : 'https';
  return { registry, apiHost, repository, tag, digest, scheme };
}

/**
 * The reference a bundle instance pulls, as Timoni's fetcher composes it: `url:version`,
 * or `url@digest` when the version is `latest` and a digest is given. The version is a tag
 * used literally.
 */
export function moduleReference(
  url: string,
  version: string,
  digest: string | undefined,
  options: { insecure?: boolean } = {},
): Reference {
  const base = parseReference(url, options);
  if (base.digest !== undefined || base.tag !== undefined) {
    throw invalid(url, 'the module URL must not carry a tag or digest; set `version` (and `digest`) instead');
  }
  if (digest !== undefined && digest !== '' && !DIGEST.test(digest)) {
    throw new OciError(
      'invalid-reference',
      `${url}:${version}`,
      `invalid digest ${JSON.stringify(digest)} (expected sha256:<64 hex>)`,
    );
  }
  const pinned = version === LATEST && digest !== undefined && digest !== '';
  if (pinned) return { ...base, tag: undefined, digest };
  if (!TAG.test(version))
    throw invalid(`${url}:${version}`, `invalid version ${JSON.stringify(version)}: the version is used as the tag`);
  return { ...base, tag: version };
}
