import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, list, object } from './client.js';
import { fakeSha } from '../events/payload-objects.js';
import { gitBlobSha } from './routes/contents.js';
import { type GitHubStandIn, startGitHubStandIn } from './server.js';

const sha = (c: string): string => c.repeat(40);
const long =
  'clusters: {\n' +
  Array.from({ length: 40 }, (_, i) => `\tc${i}: { group: "g", kubeContext: "ctx-${i}" }\n`).join('') +
  '}\n';

describe('GET /repos/{owner}/{repo}/contents/{path}', () => {
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    gh.state.addRepository({ owner: 'acme', name: 'fleet' });
    gh.state.addRepository({ owner: 'acme', name: 'secret', private: true });
    gh.state.putFiles('acme', 'fleet', sha('a'), { 'deploy/runtime.cue': long, 'bundle.cue': 'bundle: {}\n' });
    gh.state.putFiles('acme', 'fleet', sha('b'), { 'big.cue': Buffer.alloc(1024 * 1024 + 1, 0x61) });
    gh.state.addCommit('acme', 'fleet', sha('c'));
    gh.state.putFiles('acme', 'secret', sha('a'), { 'runtime.cue': 'x: 1\n' });
  });
  afterAll(async () => gh.stop());

  it('answers a file base64-encoded in lines of 60 characters, with its git blob sha', async () => {
    const answer = await call(gh.url, 'GET', `/repos/acme/fleet/contents/deploy/runtime.cue?ref=${sha('a')}`, {
      token: gh.token,
    });
    expect(answer.status).toBe(200);
    const file = object(answer);
    expect(file).toMatchObject({
      type: 'file',
      encoding: 'base64',
      name: 'runtime.cue',
      path: 'deploy/runtime.cue',
      size: Buffer.byteLength(long),
    });
    const content = String(file.content);
    const lines = content.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -2).every((line) => line.length === 60)).toBe(true);
    expect(Buffer.from(content, 'base64').toString('utf8')).toBe(long);
    // The same id git gives the blob.
    const dir = mkdtempSync(join(tmpdir(), 'contents-'));
    try {
      writeFileSync(join(dir, 'f'), long);
      expect(file.sha).toBe(gitBlobSha(Buffer.from(long)));
      expect(file.sha).toBe(execFileSync('git', ['hash-object', join(dir, 'f')], { encoding: 'utf8' }).trim());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 404 Not Found for a missing file, and for an unknown ref says so', async () => {
    const missing = await call(gh.url, 'GET', `/repos/acme/fleet/contents/runtime.cue?ref=${sha('a')}`, {
      token: gh.token,
    });
    expect(missing.status).toBe(404);
    expect(object(missing)).toMatchObject({ message: 'Not Found', status: '404' });
    const empty = await call(gh.url, 'GET', `/repos/acme/fleet/contents/runtime.cue?ref=${sha('c')}`, {
      token: gh.token,
    });
    expect(object(empty).message).toBe('Not Found');
    const unknown = await call(gh.url, 'GET', `/repos/acme/fleet/contents/runtime.cue?ref=${sha('d')}`, {
      token: gh.token,
    });
    expect(unknown.status).toBe(404);
    expect(object(unknown).message).toBe(`No commit found for the ref ${sha('d')}`);
    // The default branch's tip that pullRequestEvent names as base.sha by default is a known commit, without files.
    const tip = fakeSha('acme/fleet@main');
    expect(list(await call(gh.url, 'GET', `/repos/acme/fleet/contents/?ref=${tip}`, { token: gh.token }))).toEqual([]);
    expect(
      object(await call(gh.url, 'GET', `/repos/acme/fleet/contents/runtime.cue?ref=${tip}`, { token: gh.token }))
        .message,
    ).toBe('Not Found');
  });

  it('gives a file over 1 MB without content, and its bytes under the raw media type', async () => {
    const file = object(
      await call(gh.url, 'GET', `/repos/acme/fleet/contents/big.cue?ref=${sha('b')}`, { token: gh.token }),
    );
    expect(file).toMatchObject({ encoding: 'none', content: '', size: 1024 * 1024 + 1 });
    const raw = await fetch(`${gh.url}/repos/acme/fleet/contents/big.cue?ref=${sha('b')}`, {
      headers: { authorization: `Bearer ${gh.token}`, accept: 'application/vnd.github.raw+json' },
    });
    expect(raw.status).toBe(200);
    expect((await raw.arrayBuffer()).byteLength).toBe(1024 * 1024 + 1);
  });

  it('lists a folder, and hides a private repository from anonymous callers', async () => {
    expect(
      list(await call(gh.url, 'GET', `/repos/acme/fleet/contents/deploy?ref=${sha('a')}`, { token: gh.token })),
    ).toEqual([{ name: 'runtime.cue', path: 'deploy/runtime.cue', type: 'file' }]);
    expect((await call(gh.url, 'GET', `/repos/acme/secret/contents/runtime.cue?ref=${sha('a')}`)).status).toBe(404);
    expect(
      (await call(gh.url, 'GET', `/repos/acme/secret/contents/runtime.cue?ref=${sha('a')}`, { token: gh.token }))
        .status,
    ).toBe(200);
  });
});
