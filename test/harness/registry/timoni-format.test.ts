// The artifact pushTimoniModule writes, field by field, against what `timoni mod push`
// (Timoni v0.32.0: cmd/timoni/mod_push.go, internal/oci/build_image.go,
// build_artifact.go, metadata.go, with go-containerregistry v0.21.9) produces for the
// same folder. The Timoni CLI cannot be built here (its Go module is not on the proxy),
// so these expectations come from reading that code, not from running it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pullArtifact } from './pull.js';
import { startRegistry, type RegistryHandle } from './registry.js';
import { writeSampleModule } from './sample-module.js';
import { readTar, readTarGzip } from './tar-reader.js';
import { buildTimoniModule, pushTimoniModule, validateModuleVersion } from './timoni-module.js';

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const folders: string[] = [];
async function moduleFolder(extra: Record<string, string> = {}): Promise<string> {
  const dir = await writeSampleModule(extra);
  folders.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('manifest and config', () => {
  let registry: RegistryHandle;
  beforeAll(async () => {
    registry = await startRegistry({ auth: 'anonymous' });
  });
  afterAll(async () => {
    await registry?.stop();
  });

  it('is an OCI image manifest with the fields, order and values of go-containerregistry', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    const moduleDir = await moduleFolder();
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: 'format/sample',
      tag: '3.1.4',
      moduleDir,
      annotations: { 'org.opencontainers.image.description': 'A <sample> & more' },
    });
    const pulled = await pullArtifact({ registry: registry.url, repository: 'format/sample', reference: '3.1.4' });
    expect(pulled.contentType).toBe('application/vnd.oci.image.manifest.v1+json');

    const manifest = JSON.parse(pulled.manifestBytes.toString('utf8')) as Record<string, unknown>;
    // v1.Manifest field order: schemaVersion, mediaType, config, layers, annotations (no subject, no artifactType).
    expect(Object.keys(manifest)).toEqual(['schemaVersion', 'mediaType', 'config', 'layers', 'annotations']);
    expect(manifest.schemaVersion).toBe(2);
    expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');

    // The config is gcr's empty image config, kept byte for byte under Timoni's media type
    // (mutate leaves non-image config blobs alone), so every module shares it.
    expect(pulled.config.toString('utf8')).toBe(
      '{"architecture":"","created":"0001-01-01T00:00:00Z","os":"","rootfs":{"type":"layers","diff_ids":null},"config":{}}',
    );
    const config = manifest.config as Record<string, unknown>;
    expect(Object.keys(config)).toEqual(['mediaType', 'size', 'digest']);
    expect(config).toEqual({
      mediaType: 'application/vnd.timoni.config.v1+json',
      size: 115,
      digest: 'sha256:5b943e2b943f6c81dbbd4e2eca5121f4fcc39139e3d1219d6d89bd925b77d9fe',
    });
    expect(sha256(pulled.config)).toBe(config.digest);

    // Two layers, vendor first, each annotated with its content type only.
    const layers = manifest.layers as Array<Record<string, unknown>>;
    expect(layers).toHaveLength(2);
    expect(layers.map((layer) => Object.keys(layer))).toEqual([
      ['mediaType', 'size', 'digest', 'annotations'],
      ['mediaType', 'size', 'digest', 'annotations'],
    ]);
    expect(layers.map((layer) => layer.mediaType)).toEqual([
      'application/vnd.timoni.content.v1.tar+gzip',
      'application/vnd.timoni.content.v1.tar+gzip',
    ]);
    expect(layers.map((layer) => layer.annotations)).toEqual([
      { 'sh.timoni.content.type': 'module/vendor' },
      { 'sh.timoni.content.type': 'module' },
    ]);
    for (const [index, layer] of pulled.layers.entries()) {
      expect(layers[index]?.size).toBe(layer.bytes.length);
      expect(layers[index]?.digest).toBe(sha256(layer.bytes));
    }

    // Annotations: the user's, then the version; no Git checkout, no SOURCE_DATE_EPOCH, so nothing else.
    // Keys sorted (a Go map), `<`, `>` and `&` escaped as Go's json.Marshal does.
    expect(manifest.annotations).toEqual({
      'org.opencontainers.image.description': 'A <sample> & more',
      'org.opencontainers.image.version': '3.1.4',
    });
    expect(pulled.manifestBytes.toString('utf8')).toContain(
      '"org.opencontainers.image.description":"A \\u003csample\\u003e \\u0026 more","org.opencontainers.image.version":"3.1.4"}}',
    );
    // Compact: no whitespace between tokens.
    const text = pulled.manifestBytes.toString('utf8');
    expect(
      text
        .replace(/\\u003c/g, '<')
        .replace(/\\u003e/g, '>')
        .replace(/\\u0026/g, '&'),
    ).toBe(JSON.stringify(JSON.parse(text)));
    expect(pushed.digest).toBe(sha256(pulled.manifestBytes));
  });
});

describe('annotations', () => {
  it('sets the version over a user-given version annotation', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    const built = await buildTimoniModule({
      moduleDir: await moduleFolder(),
      version: '1.0.0',
      annotations: { 'org.opencontainers.image.version': '9.9.9' },
    });
    expect(built.manifest.annotations).toEqual({ 'org.opencontainers.image.version': '1.0.0' });
  });

  it('takes created from SOURCE_DATE_EPOCH as RFC 3339 UTC', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '1700000000');
    const built = await buildTimoniModule({ moduleDir: await moduleFolder(), version: '1.0.0' });
    expect(built.manifest.annotations).toEqual({
      'org.opencontainers.image.version': '1.0.0',
      'org.opencontainers.image.created': '2023-11-14T22:13:20Z',
    });
  });

  it('takes created, source and revision from the Git checkout, keeping the ones given', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    const moduleDir = await moduleFolder();
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: moduleDir,
        env: {
          ...process.env,
          GIT_AUTHOR_DATE: '2024-02-03T04:05:06Z',
          GIT_COMMITTER_DATE: '2024-02-03T04:05:06Z',
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@example.com',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@example.com',
        },
      })
        .toString()
        .trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'module');
    git('remote', 'add', 'origin', 'https://github.com/example/sample-module.git');
    const head = git('rev-parse', 'HEAD');

    const built = await buildTimoniModule({ moduleDir, version: '1.0.0' });
    expect(built.manifest.annotations).toEqual({
      'org.opencontainers.image.version': '1.0.0',
      'org.opencontainers.image.created': '2024-02-03T04:05:06Z',
      'org.opencontainers.image.source': 'https://github.com/example/sample-module.git',
      'org.opencontainers.image.revision': head,
    });

    const given = await buildTimoniModule({
      moduleDir,
      version: '1.0.0',
      annotations: { 'org.opencontainers.image.source': 'https://example.com/given' },
    });
    expect(given.manifest.annotations?.['org.opencontainers.image.source']).toBe('https://example.com/given');
    const without = await buildTimoniModule({ moduleDir, version: '1.0.0', gitMetadata: false });
    expect(without.manifest.annotations).toEqual({ 'org.opencontainers.image.version': '1.0.0' });
  });

  it('accepts strict semver versions only, as `timoni mod push --version`', () => {
    for (const good of ['0.0.0', '1.2.3', '1.0.0-rc.1', '2.0.0-alpha-1.x'])
      expect(() => validateModuleVersion(good)).not.toThrow();
    for (const bad of ['', '1.0', 'v1.0.0', '01.0.0', '1.0.0+build.5', 'latest', '1.0.0-01'])
      expect(() => validateModuleVersion(bad)).toThrow(/version/);
  });
});

describe('layer tarballs', () => {
  it('hold "." first, pre-order lexical walk, no trailing slash on directories, zero owner and times', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    // `a/` sorts before `a-b` in a walk (siblings "a" < "a-b"), after it in a sort of whole paths.
    const moduleDir = await moduleFolder({
      'a/x.cue': 'package a\n',
      'a-b.cue': 'package main\n',
      'bin/run.sh': '#!/bin/sh\n',
    });
    await chmod(join(moduleDir, 'bin/run.sh'), 0o700);
    await chmod(join(moduleDir, 'README.md'), 0o600);
    const built = await buildTimoniModule({ moduleDir, version: '1.0.0' });
    const module = readTar(built.layers[1]?.tar ?? Buffer.alloc(0));

    expect(module.map((member) => [member.name, member.typeflag, member.mode.toString(8)])).toEqual([
      ['.', '5', '755'],
      ['README.md', '0', '644'],
      ['a', '5', '755'],
      ['a/x.cue', '0', '644'],
      ['a-b.cue', '0', '644'],
      ['bin', '5', '755'],
      ['bin/run.sh', '0', '755'],
      ['templates', '5', '755'],
      ['templates/config.cue', '0', '644'],
      ['timoni.cue', '0', '644'],
      ['timoni.ignore', '0', '644'],
      ['values.cue', '0', '644'],
    ]);
    for (const member of module) {
      expect(member).toMatchObject({ uid: 0, gid: 0, uname: '', gname: '', mtime: 0, format: 'ustar', linkname: '' });
    }
    expect(module.find((member) => member.name === 'a/x.cue')?.content.toString()).toBe('package a\n');
  });

  it('skip symlinks and special files', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    const moduleDir = await moduleFolder();
    await symlink('values.cue', join(moduleDir, 'linked.cue'));
    await symlink('templates', join(moduleDir, 'linked-dir'));
    await symlink('../cue.mod/module.cue', join(moduleDir, 'cue.mod', 'pkg', 'linked.cue'));
    execFileSync('mkfifo', [join(moduleDir, 'pipe')]);
    const built = await buildTimoniModule({ moduleDir, version: '1.0.0' });
    const names = built.layers.flatMap((layer) => readTar(layer.tar).map((member) => member.name));
    expect(names.filter((name) => /linked|pipe/.test(name))).toEqual([]);
    expect(names).toContain('values.cue');
  });

  it('apply timoni.ignore to the module layer only, and never let it bring cue.mod/ back', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    const moduleDir = await moduleFolder({
      'cue.mod/pkg/gen_tool.cue': 'package pkg\n',
      'timoni.ignore': '*_tool.cue\ndocs/\n!cue.mod/\n',
      'docs/guide.md': '# guide\n',
    });
    await mkdir(join(moduleDir, 'empty'));
    const built = await buildTimoniModule({ moduleDir, version: '1.0.0' });
    const [vendor, module] = built.layers.map((layer) => readTar(layer.tar).map((member) => member.name));
    expect(vendor).toContain('cue.mod/pkg/gen_tool.cue');
    expect(module).not.toContain('build_tool.cue');
    expect(module?.some((name) => name.startsWith('docs'))).toBe(false);
    expect(module?.some((name) => name.startsWith('cue.mod'))).toBe(false);
    expect(module).toContain('empty');
  });

  it('are Go gzip streams without a name or time, the same bytes on every build', async () => {
    vi.stubEnv('SOURCE_DATE_EPOCH', '');
    const moduleDir = await moduleFolder();
    const first = await buildTimoniModule({ moduleDir, version: '1.0.0' });
    await writeFile(join(moduleDir, 'values.cue'), 'package main\n\nvalues: {\n\tmessage: "hello"\n}\n');
    const second = await buildTimoniModule({ moduleDir, version: '1.0.0' });
    expect(second.digest).toBe(first.digest);
    for (const layer of first.layers) {
      expect(layer.gzip.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 8]));
      expect(layer.gzip[3]).toBe(0); // FLG: no FNAME, no FEXTRA, no FCOMMENT
      expect(layer.gzip.readUInt32LE(4)).toBe(0); // MTIME
      // Go's compress/gzip, as Timoni: XFL 0 at the default level, OS 255 (unknown).
      expect([layer.gzip[8], layer.gzip[9]]).toEqual([0, 255]);
      expect(gunzipSync(layer.gzip).equals(layer.tar)).toBe(true);
    }
    // Node's zlib on request: the same tarballs, other gzip bytes (OS 3, Unix), another digest.
    const node = await buildTimoniModule({ moduleDir, version: '1.0.0', gzip: 'node' });
    expect(node.layers.map((layer) => layer.tar)).toEqual(first.layers.map((layer) => layer.tar));
    expect(node.layers.map((layer) => layer.gzip[9])).toEqual([3, 3]);
    expect(node.digest).not.toBe(first.digest);
    const changed = await buildTimoniModule({
      moduleDir: await moduleFolder({ 'values.cue': 'package main\n\nvalues: message: "changed"\n' }),
      version: '1.0.0',
    });
    expect(changed.digest).not.toBe(first.digest);
    expect(changed.manifest.layers[0]?.digest).toBe(first.manifest.layers[0]?.digest);
    expect(
      readTarGzip(changed.layers[1]?.gzip ?? Buffer.alloc(0))
        .find((member) => member.name === 'values.cue')
        ?.content.toString(),
    ).toContain('changed');
  });
});
