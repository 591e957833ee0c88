// Identity tokens (docker config `identitytoken`, or a helper's `<token>` user) are OAuth2
// refresh tokens: the client POSTs them to the token endpoint (grant_type=refresh_token)
// instead of sending Basic credentials. The test registry's token service speaks only the
// password grant, so a front server before the real token registry points the challenge
// at itself and trades a known refresh token for a real token from that service.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OciError, pullModule } from '../../../src/module/oci/index.js';
import { pushTimoniModule, startRegistry, type PushedTimoniModule, type RegistryHandle } from '../../registry/index.js';
import { writeSampleModule } from '../../registry/sample-module.js';
import { fastRetry } from './registry-fixtures.js';

const REFRESH_TOKEN = 'refresh-0f8e7d6c5b4a39281706';
let registry: RegistryHandle;
let pushed: PushedTimoniModule;
let moduleDir: string;
let work: string;
let front: Server;
let frontHost: string;
const forms: URLSearchParams[] = [];

function collect(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'oci-identity-'));
  registry = await startRegistry({ auth: 'token' });
  moduleDir = await writeSampleModule();
  pushed = await pushTimoniModule({ registry: registry.url, repository: 'modules/sample', tag: '1.0.0', moduleDir, credentials: registry.credentials });
  const upstream = new URL(registry.url);
  const basic = Buffer.from(`${registry.credentials?.username}:${registry.credentials?.password}`).toString('base64');

  front = createServer((req, res) => {
    if (req.url?.startsWith('/token')) {
      void collect(req).then((body) => {
        const form = new URLSearchParams(body);
        forms.push(form);
        if (req.method !== 'POST' || form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== REFRESH_TOKEN) {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
          return;
        }
        const query = new URLSearchParams({ service: form.get('service') ?? '', scope: form.get('scope') ?? '' });
        httpRequest({ host: upstream.hostname, port: upstream.port, path: `/token?${query}`, headers: { authorization: `Basic ${basic}` } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
          answer.pipe(res);
        }).end();
      });
      return;
    }
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      const headers = { ...answer.headers };
      if (typeof headers['www-authenticate'] === 'string') headers['www-authenticate'] = headers['www-authenticate'].replace(`${registry.url}/token`, `http://${frontHost}/token`);
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontHost = `127.0.0.1:${(front.address() as AddressInfo).port}`;
});

afterAll(async () => {
  front?.closeAllConnections();
  await new Promise((resolve) => front?.close(resolve));
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
  if (moduleDir) await rm(moduleDir, { recursive: true, force: true });
});

async function configWith(name: string, refreshToken: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), JSON.stringify({ auths: { [frontHost]: { auth: Buffer.from('<token>:').toString('base64'), identitytoken: refreshToken } } }));
  return dir;
}

describe('identity tokens', () => {
  it('trades the identity token at the token endpoint with a refresh_token grant', async () => {
    const masked: string[] = [];
    const dockerConfigDir = await configWith('good', REFRESH_TOKEN);
    const module = await pullModule(`oci://${frontHost}/modules/sample`, '1.0.0', undefined, {
      env: { PATH: process.env.PATH },
      dockerConfigDir,
      cacheDir: join(work, 'cache-good'),
      secrets: (v) => masked.push(v),
    });
    expect(module.digest).toBe(pushed.digest);
    const form = forms.at(-1);
    expect(form?.get('grant_type')).toBe('refresh_token');
    expect(form?.get('service')).toBe('timoni-fleet-test-registry');
    expect(form?.get('scope')).toBe('repository:modules/sample:pull');
    expect(form?.get('client_id')).toBe('timoni-fleet');
    expect(masked).toContain(REFRESH_TOKEN);
  });

  it('names the identity token and its source when the endpoint refuses it, without printing it', async () => {
    const wrong = 'refresh-wrong-99887766554433';
    const dockerConfigDir = await configWith('bad', wrong);
    const error = await pullModule(`oci://${frontHost}/modules/sample`, '1.0.0', undefined, {
      env: { PATH: process.env.PATH },
      dockerConfigDir,
      cacheDir: join(work, 'cache-bad'),
      retry: fastRetry,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OciError);
    expect((error as OciError).code).toBe('unauthorized');
    expect((error as OciError).message).toContain(
      `unauthorised (401) by ${frontHost} (token endpoint http://${frontHost}/token): it rejected an identity token from docker config ${join(dockerConfigDir, 'config.json')} (auths["${frontHost}"])`,
    );
    expect((error as OciError).message).not.toContain(wrong);
  });
});
