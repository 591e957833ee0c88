// The git index reader against indexes that git itself writes: versions 2, 3 and 4, long
// paths, split and sparse indexes, SHA-256 repositories, worktrees and `.git` files; and
// what it cannot read is refused rather than guessed (GitIndexError).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitCheckout, GitIndexError } from '../../src/action/git-index.js';

const scratch = mkdtempSync(join(tmpdir(), 'git-index-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// git as a test's tool only (the product reads the index itself); no user or system config.
const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let counter = 0;
function folder(name: string): string {
  const path = join(scratch, `${counter++}-${name}`);
  mkdirSync(path, { recursive: true });
  return path;
}

function write(root: string, files: readonly string[]): void {
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), `${file}\n`);
  }
}

/** A repository with `files` added to its index (committed when `commit`). */
function repository(
  name: string,
  files: readonly string[],
  options: { commit?: boolean; init?: string[] } = {},
): string {
  const root = folder(name);
  git(root, 'init', '--quiet', '--initial-branch=main', ...(options.init ?? []));
  write(root, files);
  if (files.length > 0) git(root, 'add', '--', ...files);
  if (options.commit) git(root, 'commit', '--quiet', '-m', 'files');
  return root;
}

const indexVersion = (gitDir: string): number => readFileSync(join(gitDir, 'index')).readUInt32BE(4);

/** Every path `git ls-files` lists is tracked, in its repository, and each of `untracked` is not. */
function expectAgreesWithGit(root: string, untracked: readonly string[], checkout = new GitCheckout(root)): void {
  const listed = git(root, 'ls-files', '-z').split('\0').filter(Boolean);
  expect(listed.length).toBeGreaterThan(0);
  for (const path of listed) expect(checkout.tracked(join(root, path)), path).toEqual({ workTree: root, path });
  for (const path of untracked) expect(checkout.tracked(join(root, path)), path).toBeNull();
}

/** Many paths sharing prefixes, as v4's compression sees them, and their near misses. */
const MANY = [
  'a.json',
  'changesets/changes-production/changes.json',
  'changesets/changes-staging/changes.json',
  'changesets/changes-staging-2/changes.json',
  'dir/b.json',
  'dir/sub/c.json',
  'dir/sub/deeper/d.json',
  'zz/é-ünïcode.json',
];
const NEAR_MISSES = [
  'a.jso',
  'a.json.x',
  'changesets/changes-production/changes.jsonx',
  'changesets/changes-stag/changes.json',
  'dir/untracked.json',
  'dir/sub/c.jso',
  'zz/e-unicode.json',
];

/** Rewrites an index with an extension appended and its checksum recomputed. */
function appendExtension(indexPath: string, signature: string, body: Buffer): void {
  const data = readFileSync(indexPath);
  const withoutChecksum = data.subarray(0, data.length - 20);
  const header = Buffer.alloc(8);
  header.write(signature, 0, 'latin1');
  header.writeUInt32BE(body.length, 4);
  const content = Buffer.concat([withoutChecksum, header, body]);
  writeFileSync(indexPath, Buffer.concat([content, createHash('sha1').update(content).digest()]));
}

describe('GitCheckout.tracked', () => {
  it('tracks nothing where there is no repository', () => {
    const root = folder('plain');
    write(root, ['changesets/x/changes.json']);
    expect(new GitCheckout(root).tracked(join(root, 'changesets/x/changes.json'))).toBeNull();
  });

  it('tracks nothing in a repository without an index yet', () => {
    const root = repository('empty', []);
    write(root, ['changes.json']);
    expect(new GitCheckout(root).tracked(join(root, 'changes.json'))).toBeNull();
  });

  it('reads a version 2 index: the paths git lists, and none of their near misses', () => {
    const root = repository('v2', MANY, { commit: true });
    write(root, NEAR_MISSES);
    expect(indexVersion(join(root, '.git'))).toBe(2);
    expectAgreesWithGit(root, NEAR_MISSES);
  });

  it('reads a version 3 index (extended flags: intent-to-add, skip-worktree)', () => {
    const root = repository('v3', MANY, { commit: true });
    write(root, ['new/intent.json', ...NEAR_MISSES]);
    git(root, 'add', '--intent-to-add', 'new/intent.json');
    git(root, 'update-index', '--skip-worktree', 'dir/b.json');
    expect(indexVersion(join(root, '.git'))).toBe(3);
    expectAgreesWithGit(root, NEAR_MISSES);
    expect(new GitCheckout(root).tracked(join(root, 'new/intent.json'))).toEqual({
      workTree: root,
      path: 'new/intent.json',
    });
  });

  it('reads a version 4 index, whose paths are prefix-compressed', () => {
    const root = repository('v4', MANY, { commit: true });
    write(root, ['new/intent.json', ...NEAR_MISSES]);
    git(root, 'add', '--intent-to-add', 'new/intent.json');
    git(root, 'update-index', '--index-version', '4');
    expect(indexVersion(join(root, '.git'))).toBe(4);
    expectAgreesWithGit(root, NEAR_MISSES);
  });

  it('reads a path of 0xFFF bytes or more (its length flag saturated), in versions 2 and 4', () => {
    const root = repository('long', MANY, { commit: true });
    const blob = git(root, 'hash-object', '-w', 'a.json').trim();
    const long = `${'l'.repeat(5000)}.json`;
    git(root, 'update-index', '--add', '--cacheinfo', `100644,${blob},${long}`);
    git(root, 'update-index', '--add', '--cacheinfo', `100644,${blob},${long}x`);
    for (const version of ['2', '4']) {
      git(root, 'update-index', '--index-version', version);
      const checkout = new GitCheckout(root);
      expect(checkout.tracked(join(root, long))).toEqual({ workTree: root, path: long });
      expect(checkout.tracked(join(root, `${long}x`))?.path).toBe(`${long}x`);
      expect(checkout.tracked(join(root, `${long}y`))).toBeNull();
      expect(checkout.tracked(join(root, 'dir/sub/c.json'))?.path).toBe('dir/sub/c.json');
    }
  });

  it('reads a split index with its shared index (entries added, replaced and removed after the split), in versions 2 and 4', () => {
    for (const version of ['2', '4']) {
      // Enough entries that the changes below stay under splitIndex.maxPercentChange (20%), so
      // that git keeps them in the split index rather than writing a new shared index.
      const many = Array.from({ length: 60 }, (_, index) => `many/f${index}.json`);
      const root = repository(`split-${version}`, [...MANY, ...many], { commit: true });
      git(root, 'update-index', '--index-version', version);
      git(root, 'update-index', '--split-index');
      // Replaced entries are written without their path in the split index: the ones after
      // them (dir/sub/new.json, zz/after.json) test that v4's prefix still reads right.
      write(root, ['after/split.json', 'dir/sub/new.json', 'zz/after.json']);
      writeFileSync(join(root, 'dir/b.json'), 'changed\n');
      writeFileSync(join(root, 'dir/sub/c.json'), 'changed\n');
      git(root, 'add', 'after/split.json', 'dir/b.json', 'dir/sub/c.json', 'dir/sub/new.json', 'zz/after.json');
      git(root, 'rm', '--quiet', '--cached', 'a.json');
      expect(readdirSync(join(root, '.git')).some((name) => name.startsWith('sharedindex.'))).toBe(true);
      // The split index holds entries of its own (new ones, and replaced ones without their path).
      expect(readFileSync(join(root, '.git', 'index')).readUInt32BE(8)).toBeGreaterThan(3);
      expect(indexVersion(join(root, '.git'))).toBe(Number(version));
      // a.json is gone from the final index but still in the shared one: counted as tracked
      // (a superset, never less).
      expectAgreesWithGit(
        root,
        NEAR_MISSES.filter((path) => path !== 'a.json'),
      );
      for (const path of ['after/split.json', 'dir/sub/new.json', 'zz/after.json', 'dir/b.json'])
        expect(new GitCheckout(root).tracked(join(root, path))?.path).toBe(path);
      expect(new GitCheckout(root).tracked(join(root, 'dir/sub/new.jso'))).toBeNull();
    }
  });

  it("cannot tell when a split index's shared index is missing", () => {
    const root = repository('split-missing', MANY, { commit: true });
    git(root, 'update-index', '--split-index');
    for (const name of readdirSync(join(root, '.git')).filter((entry) => entry.startsWith('sharedindex.')))
      unlinkSync(join(root, '.git', name));
    expect(() => new GitCheckout(root).tracked(join(root, 'a.json'))).toThrow(
      /is a split index whose shared index .*sharedindex\.[0-9a-f]{40} does not exist/,
    );
  });

  it('reads a sparse index: every path below a sparse directory entry counts as tracked', () => {
    const root = repository('sparse', ['kept/a.json', 'changesets/x/changes.json', 'changesets/y/changes.json'], {
      commit: true,
    });
    git(root, 'sparse-checkout', 'set', '--cone', '--sparse-index', 'kept');
    expect(git(root, 'ls-files', '--sparse')).toContain('changesets/\n');
    const checkout = new GitCheckout(root);
    expect(checkout.tracked(join(root, 'kept/a.json'))?.path).toBe('kept/a.json');
    expect(checkout.tracked(join(root, 'changesets/x/changes.json'))?.path).toBe('changesets/x/changes.json');
    // Not in git's index, but below a directory the sparse index no longer lists: cannot be told apart.
    expect(checkout.tracked(join(root, 'changesets/z/changes.json'))?.path).toBe('changesets/z/changes.json');
    expect(checkout.tracked(join(root, 'kept/b.json'))).toBeNull();
    expect(checkout.tracked(join(root, 'changesets.json'))).toBeNull();
  });

  it("reads a SHA-256 repository's index", () => {
    const root = repository('sha256', MANY, { commit: true, init: ['--object-format=sha256'] });
    write(root, NEAR_MISSES);
    expectAgreesWithGit(root, NEAR_MISSES);
  });

  it('compares paths ignoring case where the repository says core.ignoreCase (a case-insensitive file system)', () => {
    const root = repository('ignorecase', MANY, { commit: true });
    expect(new GitCheckout(root).tracked(join(root, 'Changesets/Changes-Production/changes.JSON'))).toBeNull();
    git(root, 'config', 'core.ignorecase', 'true');
    expect(new GitCheckout(root).tracked(join(root, 'Changesets/Changes-Production/changes.JSON'))?.path).toBe(
      'Changesets/Changes-Production/changes.JSON',
    );
    expect(new GitCheckout(root).tracked(join(root, 'Changesets/Other/changes.json'))).toBeNull();
  });

  it("follows a worktree's .git file to its own index", () => {
    const main = repository('worktree-main', MANY, { commit: true });
    const worktree = join(folder('worktree'), 'wt');
    git(main, 'worktree', 'add', '--quiet', '-b', 'other', worktree);
    expect(readFileSync(join(worktree, '.git'), 'utf8')).toMatch(/^gitdir: \//);
    write(worktree, ['only-here/changes.json', 'untracked.json']);
    git(worktree, 'add', 'only-here/changes.json');
    expectAgreesWithGit(worktree, ['untracked.json']);
    expect(new GitCheckout(main).tracked(join(main, 'only-here/changes.json'))).toBeNull();
  });

  it("follows a relative gitdir (a submodule's .git file), the nearest repository first, and each one up to the top folder", () => {
    const outer = repository('outer', ['outer.json'], { commit: true });
    const sub = join(outer, 'sub');
    mkdirSync(join(outer, '.git', 'modules'));
    git(outer, 'init', '--quiet', `--separate-git-dir=${join(outer, '.git', 'modules', 'sub')}`, sub);
    writeFileSync(join(sub, '.git'), 'gitdir: ../.git/modules/sub\n');
    write(sub, ['changesets/x/changes.json', 'untracked.json']);
    git(sub, 'add', 'changesets/x/changes.json');
    const checkout = new GitCheckout(outer);
    expect(checkout.tracked(join(sub, 'changesets/x/changes.json'))).toEqual({
      workTree: sub,
      path: 'changesets/x/changes.json',
    });
    expect(checkout.tracked(join(sub, 'untracked.json'))).toBeNull();
    expect(checkout.tracked(join(outer, 'outer.json'))).toEqual({ workTree: outer, path: 'outer.json' });
    // A repository above the top folder (the workspace) is not asked.
    expect(
      new GitCheckout(join(outer, 'sub', 'changesets')).tracked(join(sub, 'changesets/x/changes.json')),
    ).toBeNull();
    expect(() => checkout.tracked(join(scratch, 'elsewhere.json'))).toThrow(GitIndexError);
  });

  it('skips optional extensions it does not know, and cannot tell with an unknown required one', () => {
    const root = repository('extensions', MANY, { commit: true });
    appendExtension(join(root, '.git', 'index'), 'ZZZZ', Buffer.from('ignored'));
    expectAgreesWithGit(root, NEAR_MISSES);
    appendExtension(join(root, '.git', 'index'), 'zzzz', Buffer.from('required'));
    expect(() => new GitCheckout(root).tracked(join(root, 'a.json'))).toThrow(
      /index: it has the extension "zzzz", which git requires to be understood and this reader does not know/,
    );
  });

  it('cannot tell from a corrupt index, an unknown version or a .git file without gitdir', () => {
    const corrupt = repository('corrupt', MANY, { commit: true });
    const indexPath = join(corrupt, '.git', 'index');
    const data = readFileSync(indexPath);
    data[20] = (data[20] ?? 0) ^ 0xff;
    writeFileSync(indexPath, data);
    expect(() => new GitCheckout(corrupt).tracked(join(corrupt, 'a.json'))).toThrow('its sha1 checksum does not match');
    writeFileSync(indexPath, data.subarray(0, 30));
    expect(() => new GitCheckout(corrupt).tracked(join(corrupt, 'a.json'))).toThrow(GitIndexError);

    const future = repository('future', MANY, { commit: true });
    const futureIndex = readFileSync(join(future, '.git', 'index'));
    futureIndex.writeUInt32BE(5, 4);
    const content = futureIndex.subarray(0, futureIndex.length - 20);
    writeFileSync(join(future, '.git', 'index'), Buffer.concat([content, createHash('sha1').update(content).digest()]));
    expect(() => new GitCheckout(future).tracked(join(future, 'a.json'))).toThrow(
      'index version 5, this reader knows versions 2, 3 and 4',
    );

    const odd = folder('odd');
    writeFileSync(join(odd, '.git'), 'not a gitdir line\n');
    expect(() => new GitCheckout(odd).tracked(join(odd, 'a.json'))).toThrow('is a file without a "gitdir:" line');
    writeFileSync(join(odd, '.git'), 'gitdir: ../nowhere/.git/worktrees/x\n');
    expect(() => new GitCheckout(odd).tracked(join(odd, 'a.json'))).toThrow(
      /names the git directory .*nowhere.*, which does not exist/,
    );
  });
});
