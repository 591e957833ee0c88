// Interoperability with go-containerregistry v0.21.9, the library `timoni` (v0.32) builds,
// pushes and pulls module artifacts with, driven through go/helper:
// - from the same layer files, gcr's mutate package assembles the very manifest bytes
//   (hence digest) and config that buildTimoniModule produces;
// - gcr's remote client pulls what pushTimoniModule pushed, under every auth set-up
//   (its bearer-token flow against our token service included), and we pull what it pushes.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBinaries } from './binaries.js';
import { writeDockerConfig } from './docker-config.js';
import { pullArtifact } from './pull.js';
import { startRegistry, type RegistryAuthMode, type RegistryCredentials, type RegistryHandle } from './registry.js';
import { writeSampleModule } from './sample-module.js';
import {
  buildTimoniModule,
  pushTimoniModule,
  timoniConfigMediaType,
  timoniContentMediaType,
  type BuiltTimoniModule,
} from './timoni-module.js';

interface GcrResult {
  digest: string;
  manifest: string; // base64
  config: string; // base64
  layers: Array<{ digest: string; size: number }>;
}

let helper: string;
let workDir: string;
let moduleDir: string;

beforeAll(async () => {
  helper = (await ensureBinaries((line) => process.stderr.write(`registry: ${line}\n`))).helper;
  workDir = await mkdtemp(join(tmpdir(), 'timoni-fleet-gcr-'));
  moduleDir = await writeSampleModule({
    'templates/deployment.cue': 'package templates\n\n#Deployment: {\n\tapiVersion: "apps/v1"\n}\n',
  });
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
  await rm(moduleDir, { recursive: true, force: true });
});

/** Runs a gcr command with explicit credentials, or with the docker config in `dockerConfig` (default an empty one). */
function runHelper(
  args: string[],
  stdin: string,
  credentials?: RegistryCredentials,
  dockerConfig = join(workDir, 'no-docker-config'),
): Promise<GcrResult> {
  const env = {
    ...process.env,
    REGISTRY_USERNAME: credentials?.username ?? '',
    REGISTRY_PASSWORD: credentials?.password ?? '',
    DOCKER_CONFIG: dockerConfig,
  };
  return new Promise((resolveRun, reject) => {
    const child = execFile(helper, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`registry-helper ${args.join(' ')} failed: ${stderr.trim()}`));
      else resolveRun(JSON.parse(stdout) as GcrResult);
    });
    child.stdin?.end(stdin);
  });
}

/** The image spec of a built module: its layer files, media types and annotations. */
async function imageSpec(built: BuiltTimoniModule, name: string): Promise<string> {
  const layers = [];
  for (const [index, layer] of built.layers.entries()) {
    const path = join(workDir, `${name}-${index}.tgz`);
    await writeFile(path, layer.gzip);
    layers.push({
      path,
      mediaType: timoniContentMediaType,
      annotations: { 'sh.timoni.content.type': layer.contentType },
    });
  }
  return JSON.stringify({ configMediaType: timoniConfigMediaType, annotations: built.manifest.annotations, layers });
}

describe('go-containerregistry assembles the same artifact', () => {
  it.each([
    ['the version only', {}],
    [
      'user annotations with characters Go escapes',
      { 'org.opencontainers.image.description': 'ünïcode <b>&amp;</b> \u2028', 'a.first': 'x', 'z.last': '' },
    ],
    [
      'Git-like annotations',
      {
        'org.opencontainers.image.created': '2024-02-03T04:05:06Z',
        'org.opencontainers.image.source': 'https://github.com/example/m.git',
        'org.opencontainers.image.revision': 'f'.repeat(40),
      },
    ],
  ])('with %s: byte for byte the same manifest and config', async (name, annotations) => {
    const built = await buildTimoniModule({ moduleDir, version: '1.2.3', annotations, gitMetadata: false });
    const gcr = await runHelper(['gcr-image'], await imageSpec(built, name.replace(/\W+/g, '-')));
    expect(Buffer.from(gcr.manifest, 'base64').toString('utf8')).toBe(built.manifestBytes.toString('utf8'));
    expect(Buffer.from(gcr.config, 'base64').equals(built.config)).toBe(true);
    expect(gcr.digest).toBe(built.digest);
    expect(gcr.layers.map((layer) => layer.digest)).toEqual(built.manifest.layers.map((layer) => layer.digest));
  });
});

describe.each<RegistryAuthMode>(['anonymous', 'basic', 'token'])(
  'go-containerregistry against a %s registry',
  (auth) => {
    let registry: RegistryHandle;
    beforeAll(async () => {
      registry = await startRegistry({ auth });
    });
    afterAll(async () => {
      await registry?.stop();
    });

    it('pulls what pushTimoniModule pushed, with the same digest and layers', async () => {
      const pushed = await pushTimoniModule({
        registry: registry.url,
        repository: 'gcr/pushed-by-us',
        tag: '1.0.0',
        moduleDir,
        credentials: registry.credentials,
      });
      const gcr = await runHelper(['gcr-pull', `${registry.host}/gcr/pushed-by-us:1.0.0`], '', registry.credentials);
      expect(gcr.digest).toBe(pushed.digest);
      expect(Buffer.from(gcr.manifest, 'base64').equals(pushed.manifestBytes)).toBe(true);
      expect(gcr.layers).toEqual(pushed.manifest.layers.map((layer) => ({ digest: layer.digest, size: layer.size })));
      if (auth === 'token') {
        const tokenRequests = registry.requests.filter(
          (request) => request.outcome === 'token' && request.authorization === 'basic' && request.status === 200,
        );
        expect(tokenRequests.length).toBeGreaterThanOrEqual(2);
      }
    });

    it('pushes an artifact we pull back unchanged, and pushTimoniModule then finds every blob there', async () => {
      const built = await buildTimoniModule({ moduleDir, version: '2.0.0', gitMetadata: false });
      const gcr = await runHelper(
        ['gcr-push', `${registry.host}/gcr/pushed-by-gcr:2.0.0`],
        await imageSpec(built, `push-${auth}`),
        registry.credentials,
      );
      expect(gcr.digest).toBe(built.digest);
      const pulled = await pullArtifact({
        registry: registry.url,
        repository: 'gcr/pushed-by-gcr',
        reference: '2.0.0',
        credentials: registry.credentials,
      });
      expect(pulled.digest).toBe(built.digest);
      const again = await pushTimoniModule({
        registry: registry.url,
        repository: 'gcr/pushed-by-gcr',
        tag: '2.0.0',
        moduleDir,
        credentials: registry.credentials,
        gitMetadata: false,
      });
      expect(again).toMatchObject({ digest: built.digest, blobsUploaded: 0, blobsSkipped: 3 });
    });

    if (auth !== 'anonymous') {
      it('is refused with a wrong password', async () => {
        const wrong = { username: registry.credentials?.username ?? 'fleet', password: 'not-the-password' };
        await expect(runHelper(['gcr-pull', `${registry.host}/gcr/pushed-by-us:1.0.0`], '', wrong)).rejects.toThrow(
          /401|UNAUTHORIZED|unauthorized/i,
        );
      });

      it('reads the credentials of writeDockerConfig as docker login stores them', async () => {
        const username = registry.credentials?.username ?? 'fleet';
        const good = await writeDockerConfig(join(workDir, `docker-${auth}-good`), [
          { host: registry.host, username, password: registry.credentials?.password ?? '' },
        ]);
        const bad = await writeDockerConfig(join(workDir, `docker-${auth}-bad`), [
          { host: registry.host, username, password: 'not-the-password' },
        ]);
        const reference = `${registry.host}/gcr/pushed-by-us:1.0.0`;
        await expect(runHelper(['gcr-pull', reference], '', undefined, good)).resolves.toMatchObject({
          digest: expect.stringMatching(/^sha256:/),
        });
        await expect(runHelper(['gcr-pull', reference], '', undefined, bad)).rejects.toThrow(
          /401|UNAUTHORIZED|unauthorized/i,
        );
        await expect(runHelper(['gcr-pull', reference], '')).rejects.toThrow(/401|UNAUTHORIZED|unauthorized/i);
      });
    }
  },
);
