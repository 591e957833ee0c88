// Acceptance of the test registry: push and pull a Timoni module under each auth set-up,
// stable digests, the vendor layer's content, refused credentials.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSigningCertificate } from './auth-files.js';
import { repositoryRoot } from '../support/go-binary.js';
import { ensureBinaries } from './binaries.js';
import { RegistryHttpError } from './distribution-client.js';
import { TokenSigner } from './jwt.js';
import { pullArtifact, pullManifest } from './pull.js';
import { startRegistry, type RegistryAuthMode, type RegistryHandle } from './registry.js';
import { writeSampleModule } from './sample-module.js';
import { readTarGzip } from './tar-reader.js';
import { pushTimoniModule } from './timoni-module.js';

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe.each<RegistryAuthMode>(['anonymous', 'basic', 'token'])('a registry with %s access', (auth) => {
  let registry: RegistryHandle;
  let moduleDir: string;

  beforeAll(async () => {
    registry = await startRegistry({ auth });
    moduleDir = await writeSampleModule();
  });
  afterAll(async () => {
    await registry?.stop();
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  it('serves on 127.0.0.1 with credentials only when it checks them', () => {
    expect(registry.url).toBe(`http://${registry.host}`);
    expect(registry.host).toMatch(/^127\.0\.0\.1:\d+$/);
    if (auth === 'anonymous') expect(registry.credentials).toBeUndefined();
    else expect(registry.credentials?.password).toMatch(/^[0-9a-f]{24}$/);
  });

  it('pushes a module and pulls back the manifest whose sha256 is the returned digest', async () => {
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/sample',
      tag: '1.0.0',
      moduleDir,
      credentials: registry.credentials,
    });
    expect(pushed.reference).toBe(`${registry.host}/modules/sample:1.0.0`);
    expect(pushed.url).toBe(`oci://${registry.host}/modules/sample`);

    const pulled = await pullArtifact({
      registry: registry.url,
      repository: 'modules/sample',
      reference: '1.0.0',
      credentials: registry.credentials,
    });
    expect(sha256(pulled.manifestBytes)).toBe(pushed.digest);
    expect(pulled.digest).toBe(pushed.digest);
    expect(pulled.registryDigest).toBe(pushed.digest);
    expect(pulled.manifestBytes.equals(pushed.manifestBytes)).toBe(true);
    expect(pulled.layers.map((layer) => layer.bytes)).toEqual(pushed.layers.map((layer) => layer.gzip));

    // `timoni mod push` also tags the version as latest.
    const latest = await pullManifest({
      registry: registry.url,
      repository: 'modules/sample',
      reference: 'latest',
      credentials: registry.credentials,
    });
    expect(latest.digest).toBe(pushed.digest);
    const byDigest = await pullManifest({
      registry: registry.url,
      repository: 'modules/sample',
      reference: pushed.digest,
      credentials: registry.credentials,
    });
    expect(byDigest.manifestBytes.equals(pushed.manifestBytes)).toBe(true);
  });

  it('gives the same digest when the same folder is pushed twice, uploading nothing the second time', async () => {
    const first = await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/twice',
      tag: '2.0.0',
      moduleDir,
      credentials: registry.credentials,
    });
    const second = await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/twice',
      tag: '2.0.0',
      moduleDir,
      credentials: registry.credentials,
    });
    expect(second.digest).toBe(first.digest);
    expect(first.blobsUploaded).toBe(3);
    expect(second).toMatchObject({ blobsUploaded: 0, blobsSkipped: 3 });
  });

  it('keeps only cue.mod/ in the vendor layer and everything else in the module layer', async () => {
    await pushTimoniModule({
      registry: registry.url,
      repository: 'modules/layers',
      tag: '0.1.0',
      moduleDir,
      credentials: registry.credentials,
    });
    const pulled = await pullArtifact({
      registry: registry.url,
      repository: 'modules/layers',
      reference: '0.1.0',
      credentials: registry.credentials,
    });
    const [vendor, module] = pulled.layers.map((layer) => readTarGzip(layer.bytes).map((member) => member.name));
    expect(vendor).toEqual([
      '.',
      'cue.mod',
      'cue.mod/gen',
      'cue.mod/gen/k8s.io',
      'cue.mod/gen/k8s.io/api',
      'cue.mod/gen/k8s.io/api/core',
      'cue.mod/gen/k8s.io/api/core/v1',
      'cue.mod/gen/k8s.io/api/core/v1/types_go_gen.cue',
      'cue.mod/module.cue',
      'cue.mod/pkg',
      'cue.mod/pkg/timoni.sh',
      'cue.mod/pkg/timoni.sh/core',
      'cue.mod/pkg/timoni.sh/core/v1alpha1',
      'cue.mod/pkg/timoni.sh/core/v1alpha1/instance.cue',
    ]);
    // timoni.ignore drops build_tool.cue and debug_values.cue; cue.mod/ is in the vendor layer.
    expect(module).toEqual([
      '.',
      'README.md',
      'templates',
      'templates/config.cue',
      'timoni.cue',
      'timoni.ignore',
      'values.cue',
    ]);
  });
});

describe('refused credentials', () => {
  let basic: RegistryHandle;
  let token: RegistryHandle;
  let moduleDir: string;

  beforeAll(async () => {
    [basic, token] = await Promise.all([
      startRegistry({
        auth: 'basic',
        users: [
          { name: 'alice', password: 'correct horse' },
          { name: 'bob', password: 'battery staple' },
        ],
      }),
      startRegistry({ auth: 'token', users: [{ name: 'alice', password: 'correct horse' }] }),
    ]);
    moduleDir = await writeSampleModule();
  });
  afterAll(async () => {
    await Promise.all([basic?.stop(), token?.stop()]);
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  const push = (registry: RegistryHandle, credentials?: { username: string; password: string }) =>
    pushTimoniModule({ registry: registry.url, repository: 'modules/guarded', tag: '1.0.0', moduleDir, credentials });

  async function expectStatus(promise: Promise<unknown>, status: number): Promise<RegistryHttpError> {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    if (!(error instanceof RegistryHttpError)) throw new Error(`expected a RegistryHttpError, got ${String(error)}`);
    expect((error as RegistryHttpError).status).toBe(status);
    return error as RegistryHttpError;
  }

  it('basic: a wrong password, an unknown user and no credentials get 401; a second user is accepted', async () => {
    const wrong = await expectStatus(push(basic, { username: 'alice', password: 'wrong' }), 401);
    expect(wrong.message).toContain('credentials refused');
    expect(wrong.message).not.toContain('wrong');
    await expectStatus(push(basic, { username: 'mallory', password: 'correct horse' }), 401);
    await expectStatus(push(basic), 401);
    await expect(push(basic, { username: 'bob', password: 'battery staple' })).resolves.toMatchObject({
      blobsUploaded: 3,
    });
    expect(basic.requests.filter((request) => request.status === 401).length).toBeGreaterThanOrEqual(3);
  });

  it('token: the token service answers 401 to a wrong password and the registry 401 to a token without access', async () => {
    const wrong = await expectStatus(push(token, { username: 'alice', password: 'wrong' }), 401);
    expect(wrong.url).toMatch(new RegExp(`^${token.url}/token\\?`));
    expect(wrong.message).toContain('credentials refused by the token service');

    // Without credentials the service issues a token with no access; the registry refuses it.
    const anonymous = await expectStatus(push(token), 401);
    expect(anonymous.url).toContain('/v2/modules/guarded/blobs/');
    const refused = token.requests.filter(
      (request) =>
        request.path.startsWith('/v2/modules/guarded/') && request.authorization === 'bearer' && request.status === 401,
    );
    expect(refused.length).toBeGreaterThanOrEqual(1);

    await expect(push(token, { username: 'alice', password: 'correct horse' })).resolves.toMatchObject({
      blobsUploaded: 3,
    });
  });

  it('keeps passwords and tokens out of the registry logs and the request log', async () => {
    await push(basic, { username: 'alice', password: 'correct horse' });
    await push(token, { username: 'alice', password: 'correct horse' });
    for (const registry of [basic, token]) {
      const log = readFileSync(`${registry.dir}/registry.log`, 'utf8');
      expect(log).toContain('auth.user.name=alice');
      for (const text of [log, JSON.stringify(registry.requests)]) {
        expect(text).not.toContain('correct horse');
        expect(text).not.toContain(Buffer.from('alice:correct horse').toString('base64'));
        expect(text).not.toMatch(/eyJ[\w-]{20,}/); // a JWT
      }
    }
  });

  it('token: the registry accepts only tokens signed by the issuer key, for its service, unexpired, with the access asked', async () => {
    await push(token, { username: 'alice', password: 'correct horse' });
    const issuer = new TokenSigner(
      readFileSync(`${token.dir}/token-signing-key.pem`, 'utf8'),
      readFileSync(`${token.dir}/token-signing-cert.pem`, 'utf8'),
    );
    const otherDir = await mkdtemp(join(tmpdir(), 'timoni-fleet-foreign-key-'));
    try {
      const { helper } = await ensureBinaries(() => undefined);
      const foreignCertificate = await writeSigningCertificate(helper, otherDir);
      const foreign = new TokenSigner(foreignCertificate.keyPem, foreignCertificate.certificatePem);
      const claims = {
        issuer: 'timoni-fleet-test-token-issuer',
        subject: 'alice',
        audience: 'timoni-fleet-test-registry',
        access: [{ type: 'repository', name: 'modules/guarded', actions: ['pull'] }],
        expiresIn: 300,
      };
      const tags = async (jwt: string) =>
        (await fetch(`${token.url}/v2/modules/guarded/tags/list`, { headers: { authorization: `Bearer ${jwt}` } }))
          .status;
      expect(await tags(issuer.sign(claims))).toBe(200);
      expect(await tags(foreign.sign(claims))).toBe(401);
      expect(await tags(issuer.sign({ ...claims, audience: 'another-registry' }))).toBe(401);
      expect(await tags(issuer.sign({ ...claims, issuer: 'another-issuer' }))).toBe(401);
      expect(await tags(issuer.sign(claims, Math.floor(Date.now() / 1000) - 3600))).toBe(401);
      expect(
        await tags(
          issuer.sign({ ...claims, access: [{ type: 'repository', name: 'modules/other', actions: ['pull'] }] }),
        ),
      ).toBe(401);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('token: the registry challenges with a Bearer realm on its own port and the requested scope', async () => {
    const response = await fetch(`${token.url}/v2/modules/guarded/manifests/1.0.0`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="${token.url}/token",service="timoni-fleet-test-registry",scope="repository:modules/guarded:pull"`,
    );
  });
});

describe('a token registry with anonymous pull', () => {
  let registry: RegistryHandle;
  let moduleDir: string;

  beforeAll(async () => {
    registry = await startRegistry({ auth: 'token', anonymousPull: true });
    moduleDir = await writeSampleModule();
  });
  afterAll(async () => {
    await registry?.stop();
    if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
  });

  it('lets anyone pull but only users push', async () => {
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: 'public/sample',
      tag: '1.2.3',
      moduleDir,
      credentials: registry.credentials,
    });
    const pulled = await pullArtifact({ registry: registry.url, repository: 'public/sample', reference: '1.2.3' });
    expect(pulled.digest).toBe(pushed.digest);
    const anonymousPush = pushTimoniModule({
      registry: registry.url,
      repository: 'public/sample',
      tag: '1.2.4',
      moduleDir,
    });
    await expect(anonymousPush).rejects.toMatchObject({ status: 401 });
    const tokenRequests = registry.requests.filter((request) => request.outcome === 'token');
    expect(tokenRequests.some((request) => request.authorization === 'none' && request.status === 200)).toBe(true);
  });
});

describe('registry lifecycle', () => {
  it('reports start-up time and memory, and stop() ends the process and removes its folder', async () => {
    const registry = await startRegistry({ auth: 'basic' });
    expect(existsSync(`${registry.dir}/config.yml`)).toBe(true);
    expect(registry.startupMs).toBeGreaterThan(0);
    expect(registry.startupMs).toBeLessThan(20_000);
    const rss = registry.memoryRssBytes();
    expect(rss).toBeGreaterThan(5 * 1024 * 1024);
    expect(rss).toBeLessThan(512 * 1024 * 1024);
    process.stdout.write(
      `registry (basic): up in ${registry.startupMs} ms, RSS ${(rss / 1024 / 1024).toFixed(1)} MiB\n`,
    );

    await registry.stop();
    await registry.stop(); // idempotent
    expect(() => process.kill(registry.pid, 0)).toThrow();
    expect(existsSync(registry.dir)).toBe(false);
    await expect(fetch(`${registry.url}/v2/`)).rejects.toThrow();
  });

  it('does not outlive a test process killed with SIGKILL', async () => {
    const tsx = join(repositoryRoot, 'node_modules', '.bin', 'tsx');
    const parent = spawn(tsx, [join(repositoryRoot, 'test', 'harness', 'registry', 'orphan-check.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    try {
      const line = await new Promise<string>((resolveLine, reject) => {
        let buffered = '';
        parent.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          if (buffered.includes('\n')) resolveLine(buffered.split('\n')[0] ?? '');
        });
        parent.once('exit', (code) => reject(new Error(`orphan-check exited with ${code} before starting a registry`)));
      });
      const { pid, url } = JSON.parse(line) as { pid: number; url: string };
      expect((await fetch(`${url}/v2/`)).status).toBe(200);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('registry');
      // Kill only the node process that started the registry (tsx runs the script in a
      // child of its launcher); a group kill would hit the registry directly.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const owner = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      expect(readFileSync(`/proc/${owner}/cmdline`, 'utf8')).toContain('orphan-check.ts');
      process.kill(owner, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (
        existsSync(`/proc/${pid}`) &&
        !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z') &&
        Date.now() < deadline
      ) {
        await new Promise((resolveWait) => setTimeout(resolveWait, 50));
      }
      expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')).toBe(false);
    } finally {
      try {
        process.kill(-(parent.pid ?? 0), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });

  it('runs several registries side by side, each with its own storage', async () => {
    const [a, b] = await Promise.all([startRegistry({ auth: 'anonymous' }), startRegistry({ auth: 'anonymous' })]);
    const moduleDir = await writeSampleModule();
    try {
      expect(a.host).not.toBe(b.host);
      await pushTimoniModule({ registry: a.url, repository: 'only/in-a', tag: '1.0.0', moduleDir });
      await expect(
        pullManifest({ registry: b.url, repository: 'only/in-a', reference: '1.0.0' }),
      ).rejects.toMatchObject({ status: 404 });
      await expect(
        pullManifest({ registry: a.url, repository: 'only/in-a', reference: '1.0.0' }),
      ).resolves.toMatchObject({ contentType: 'application/vnd.oci.image.manifest.v1+json' });
    } finally {
      await Promise.all([a.stop(), b.stop(), rm(moduleDir, { recursive: true, force: true })]);
    }
  });
});
