// The contents client against the GitHub stand-in: a file at a commit decoded from GitHub's
// line-wrapped base64, a missing file told apart from an unknown commit and from a token
// that may not read contents, and what the client refuses (folders, files over 1 MB,
// paths that leave the repository).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApi } from '../../src/github/api.js';
import { checkRepositoryPath, readRepositoryFile, readRepositoryFolder } from '../../src/github/contents.js';
import { startGitHubStandIn, type GitHubStandIn } from '../harness/github/standin/server.js';

const sha = (c: string): string => c.repeat(40);
const runtime = `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "fleet"\n\tclusters: {\n${Array.from({ length: 12 }, (_, i) => `\t\t"c${i}": { group: "g", kubeContext: "ctx-${i}" }\n`).join('')}\t}\n}\n// é, ✓\n`;
const target = { owner: 'acme', repo: 'fleet' };
let github: GitHubStandIn;
let client: GitHubApi;

beforeAll(async () => {
  github = await startGitHubStandIn({ tokenRepositories: ['acme/fleet'] });
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  github.state.addRepository({ owner: 'acme', name: 'private', private: true });
  github.state.putFiles('acme', 'fleet', sha('a'), {
    'deploy/runtime.cue': runtime,
    'deploy/latin1.cue': Buffer.from([0x61, 0xe9, 0x0a]),
    'big.cue': 'x'.repeat(1024 * 1024 + 10),
  });
  github.state.putFiles('acme', 'fleet', sha('b'), { 'bundle.cue': 'bundle: {}\n' });
  github.state.putFiles('acme', 'private', sha('a'), { 'runtime.cue': runtime });
  client = new GitHubApi({ apiUrl: github.url, token: github.token, retries: 0 });
});
afterAll(async () => {
  await github.stop();
});

describe('readRepositoryFile', () => {
  it('reads a file at a commit, decoded from base64 in lines of 60 characters', async () => {
    const file = await readRepositoryFile(client, target, 'deploy/runtime.cue', sha('a'));
    expect(file).toMatchObject({ path: 'deploy/runtime.cue', ref: sha('a'), text: runtime });
    expect(file?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(github.state.requestsTo('GET', /\/contents\/deploy\/runtime\.cue$/).at(-1)?.path).toBe(
      `/repos/acme/fleet/contents/deploy/runtime.cue?ref=${sha('a')}`,
    );
  });

  it('answers undefined for a file that did not exist at that commit', async () => {
    await expect(readRepositoryFile(client, target, 'deploy/runtime.cue', sha('b'))).resolves.toBeUndefined();
  });

  it('throws, naming the file and commit, for a commit GitHub does not know', async () => {
    await expect(readRepositoryFile(client, target, 'deploy/runtime.cue', sha('9'))).rejects.toThrow(
      `deploy/runtime.cue at ${sha('9')}: GitHub does not know this commit (No commit found for the ref ${sha('9')})`,
    );
  });

  it('throws when the contents cannot be read at all, instead of taking the file as missing', async () => {
    // The token is granted acme/fleet only: the private repository answers 404 everywhere.
    await expect(
      readRepositoryFile(client, { owner: 'acme', repo: 'private' }, 'runtime.cue', sha('a')),
    ).rejects.toThrow(/contents: read/);
  });

  it('refuses a folder, a file over 1 MB and a file that is not UTF-8', async () => {
    await expect(readRepositoryFile(client, target, 'deploy', sha('a'))).rejects.toThrow(
      `deploy at ${sha('a')} is a folder, not a file`,
    );
    await expect(readRepositoryFile(client, target, 'big.cue', sha('a'))).rejects.toThrow(
      /big\.cue at a{40} has 1048586 bytes; GitHub's contents API gives files over 1 MB without their content/,
    );
    await expect(readRepositoryFile(client, target, 'deploy/latin1.cue', sha('a'))).rejects.toThrow(
      'is not UTF-8 text',
    );
  });

  it('refuses paths that are not inside the repository, before any request', async () => {
    const before = github.state.requests.length;
    for (const path of ['../other/runtime.cue', '/etc/passwd', 'a/./b.cue', 'a//b.cue', '', 'a\\b.cue']) {
      await expect(readRepositoryFile(client, target, path, sha('a'))).rejects.toThrow(
        'is not a path inside the repository',
      );
    }
    expect(github.state.requests.length).toBe(before);
    expect(checkRepositoryPath('deploy/runtime.cue')).toBe('deploy/runtime.cue');
  });
});

describe('readRepositoryFolder', () => {
  it('reads every file under a folder at a commit, undefined where the commit had none, within the limits', async () => {
    github.state.putFiles('acme', 'fleet', sha('c'), {
      'deploy/cue.mod/module.cue': 'module: "a.b/c"\n',
      'deploy/cue.mod/pkg/example.com/kit/kit.cue': 'package kit\n',
      'deploy/runtime.cue': runtime,
    });
    const limits = { entries: 100, bytes: 1024 };
    const files = await readRepositoryFolder(client, target, 'deploy/cue.mod', sha('c'), limits);
    expect(files?.map((file) => [file.path, file.text])).toEqual([
      ['deploy/cue.mod/module.cue', 'module: "a.b/c"\n'],
      ['deploy/cue.mod/pkg/example.com/kit/kit.cue', 'package kit\n'],
    ]);
    await expect(readRepositoryFolder(client, target, 'deploy/cue.mod', sha('b'), limits)).resolves.toBeUndefined();
    await expect(readRepositoryFolder(client, target, 'deploy/runtime.cue', sha('c'), limits)).rejects.toThrow(
      'is a file, not a folder',
    );
    await expect(
      readRepositoryFolder(client, target, 'deploy/cue.mod', sha('c'), { entries: 2, bytes: 1024 }),
    ).rejects.toThrow('more than 2 files and folders');
    await expect(
      readRepositoryFolder(client, target, 'deploy/cue.mod', sha('c'), { entries: 100, bytes: 10 }),
    ).rejects.toThrow('its files hold more than 10 bytes');
  });
});
