import { describe, expect, it } from 'vitest';
import { OciError } from '../../../src/module/oci/errors.js';
import {
  isLocalRegistry,
  manifestIdentifier,
  moduleReference,
  parseReference,
  referenceUrl,
  repositoryUrl,
} from '../../../src/module/oci/reference.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

describe('parseReference', () => {
  it('splits registry with port, repository and tag; local registries use http', () => {
    const ref = parseReference('oci://127.0.0.1:5000/modules/podinfo:6.5.4');
    expect(ref).toEqual({
      registry: '127.0.0.1:5000',
      apiHost: '127.0.0.1:5000',
      repository: 'modules/podinfo',
      tag: '6.5.4',
      digest: undefined,
      scheme: 'http',
    });
    expect(manifestIdentifier(ref)).toBe('6.5.4');
  });

  it('uses https for public registries, and http when insecure is asked', () => {
    const ref = parseReference('oci://ghcr.io/stefanprodan/modules/podinfo');
    expect(ref.scheme).toBe('https');
    expect(ref.tag).toBeUndefined();
    expect(manifestIdentifier(ref)).toBe('latest');
    expect(parseReference('oci://registry.example.com/a', { insecure: true }).scheme).toBe('http');
  });

  it('reads a digest reference', () => {
    const ref = parseReference(`oci://localhost:5000/a/b@${DIGEST}`);
    expect(ref.digest).toBe(DIGEST);
    expect(ref.registry).toBe('localhost:5000');
    expect(manifestIdentifier(ref)).toBe(DIGEST);
    expect(referenceUrl(ref)).toBe(`oci://localhost:5000/a/b@${DIGEST}`);
  });

  it('normalises Docker Hub names', () => {
    for (const url of [
      'oci://docker.io/nginx',
      'oci://index.docker.io/nginx',
      'oci://nginx',
      'oci://registry-1.docker.io/library/nginx',
    ]) {
      const ref = parseReference(url);
      expect(ref.registry, url).toBe('index.docker.io');
      expect(ref.apiHost, url).toBe('registry-1.docker.io');
      expect(ref.repository, url).toBe('library/nginx');
      expect(ref.scheme, url).toBe('https');
    }
    expect(parseReference('oci://docker.io/stefanprodan/podinfo').repository).toBe('stefanprodan/podinfo');
    expect(parseReference('oci://stefanprodan/podinfo').registry).toBe('index.docker.io');
    expect(repositoryUrl(parseReference('oci://docker.io/nginx'))).toBe('oci://index.docker.io/library/nginx');
  });

  it.each([
    ['https://ghcr.io/a/b', /does not start with oci:\/\//],
    ['oci://ghcr.io/A/b', /invalid repository/],
    ['oci://ghcr.io/a/b:bad tag', /invalid tag/],
    ['oci://ghcr.io/a/b@sha512:abc', /unsupported digest algorithm/],
    ['oci://ghcr.io/a/b@sha256:xyz', /malformed digest/],
    ['oci://ghcr.io/', /invalid repository/],
  ])('refuses %s', (url, message) => {
    expect(() => parseReference(url)).toThrow(message);
    expect(() => parseReference(url)).toThrow(OciError);
  });
});

describe('isLocalRegistry', () => {
  it.each([
    ['127.0.0.1:5000', true],
    ['localhost:5000', true],
    ['localhost', false],
    ['127.0.0.2:5000', true],
    ['registry.localhost:5000', true],
    ['registry.local', true],
    ['[::1]:5000', true],
    ['10.1.2.3:5000', true],
    ['172.20.0.1', true],
    ['192.168.1.1:443', true],
    ['172.32.0.1', false],
    ['ghcr.io', false],
    ['localhost.example.com', false],
  ])('%s -> %s', (registry, local) => {
    expect(isLocalRegistry(registry)).toBe(local);
  });
});

describe('moduleReference', () => {
  it('uses the version literally as the tag', () => {
    const ref = moduleReference('oci://127.0.0.1:5000/modules/app', '1.2.3-rc.1', undefined);
    expect(ref.tag).toBe('1.2.3-rc.1');
    expect(ref.digest).toBeUndefined();
  });

  it('pulls by digest when the version is latest and a digest is pinned', () => {
    const ref = moduleReference('oci://127.0.0.1:5000/modules/app', 'latest', DIGEST);
    expect(ref.digest).toBe(DIGEST);
    expect(ref.tag).toBeUndefined();
  });

  it('pulls by tag when a version and a digest are both given (the digest is checked after)', () => {
    const ref = moduleReference('oci://127.0.0.1:5000/modules/app', '1.0.0', DIGEST);
    expect(ref.tag).toBe('1.0.0');
    expect(ref.digest).toBeUndefined();
  });

  it('refuses a URL with a tag, a range as version, and a malformed digest', () => {
    expect(() => moduleReference('oci://127.0.0.1:5000/modules/app:1.0.0', '1.0.0', undefined)).toThrow(
      /must not carry a tag/,
    );
    expect(() => moduleReference('oci://127.0.0.1:5000/modules/app', '>=1.0.0', undefined)).toThrow(
      /invalid version ">=1.0.0"/,
    );
    expect(() => moduleReference('oci://127.0.0.1:5000/modules/app', 'latest', 'md5:abc')).toThrow(/invalid digest/);
  });
});
