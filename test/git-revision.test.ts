// Reading files at another commit with the git binary, on a real temporary repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GitReadError,
  gitWorkTreeOf,
  hasCommit,
  readFileAtCommit,
  readFolderAtCommit,
  repositoryPathOf,
  resolveCommit,
} from '../src/git-revision.js';

let dir: string;
let first: string;
let second: string;
const run = (...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  }).trim();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'git-revision-'));
  run('init', '-q', '-b', 'main');
  mkdirSync(join(dir, 'deploy'));
  writeFileSync(join(dir, 'deploy', 'runtime.cue'), 'runtime: name: "first"\n');
  symlinkSync('runtime.cue', join(dir, 'deploy', 'link.cue'));
  run('add', '.');
  run('commit', '-q', '-m', 'first');
  first = run('rev-parse', 'HEAD');
  writeFileSync(join(dir, 'deploy', 'runtime.cue'), 'runtime: name: "second"\n');
  writeFileSync(join(dir, 'new.cue'), 'x: 1\n');
  run('add', '.');
  run('commit', '-q', '-m', 'second');
  second = run('rev-parse', 'HEAD');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('git-revision', () => {
  it('reads a file as it was at a commit, and undefined for a file the commit did not have', () => {
    expect(readFileAtCommit(dir, first, 'deploy/runtime.cue')).toBe('runtime: name: "first"\n');
    expect(readFileAtCommit(dir, second, 'deploy/runtime.cue')).toBe('runtime: name: "second"\n');
    expect(readFileAtCommit(dir, first, 'new.cue')).toBeUndefined();
  });

  it('refuses a symbolic link, a folder, a path that leaves the repository, and a value that is not a commit id', () => {
    expect(() => readFileAtCommit(dir, first, 'deploy/link.cue')).toThrow('is a symbolic link, not a file');
    expect(() => readFileAtCommit(dir, first, 'deploy')).toThrow('is a folder, not a file');
    expect(() => readFileAtCommit(dir, first, '../etc/passwd')).toThrow('is not a path inside the repository');
    expect(() => readFileAtCommit(dir, '--output=/tmp/x', 'new.cue')).toThrow(GitReadError);
  });

  it('reads a folder as it was at a commit, recursively, undefined where the commit had none, refusing links and what exceeds the limits', () => {
    const limits = { entries: 100, bytes: 1024 };
    expect(readFolderAtCommit(dir, second, 'deploy/sub', limits)).toBeUndefined();
    // deploy/ holds a symbolic link at both commits: not a file of the commit.
    expect(() => readFolderAtCommit(dir, first, 'deploy', limits)).toThrow(
      `deploy/link.cue at ${first} is a symbolic link, not a file`,
    );
    expect(() => readFolderAtCommit(dir, second, 'new.cue', limits)).toThrow('is a file, not a folder');
    expect(() => readFolderAtCommit(dir, second, '../x', limits)).toThrow('is not a path inside the repository');
  });

  it('reads every file of a folder with its content, in path order, within the limits', () => {
    const repo = mkdtempSync(join(tmpdir(), 'git-folder-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, ...args], {
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@e',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@e',
        },
      }).trim();
    try {
      git('init', '-q', '-b', 'main');
      mkdirSync(join(repo, 'cue.mod', 'pkg', 'example.com', 'kit'), { recursive: true });
      writeFileSync(join(repo, 'cue.mod', 'module.cue'), 'module: "a.b/c"\n');
      writeFileSync(join(repo, 'cue.mod', 'pkg', 'example.com', 'kit', 'kit.cue'), 'package kit\n\n// é ✓\nx: 1\n');
      writeFileSync(join(repo, 'cue.mod.cue'), 'not: "in the folder"\n');
      git('add', '.');
      git('commit', '-q', '-m', 'one');
      const commit = git('rev-parse', 'HEAD');
      expect(readFolderAtCommit(repo, commit, 'cue.mod', { entries: 100, bytes: 1024 })).toEqual([
        { repositoryPath: 'cue.mod/module.cue', text: 'module: "a.b/c"\n' },
        { repositoryPath: 'cue.mod/pkg/example.com/kit/kit.cue', text: 'package kit\n\n// é ✓\nx: 1\n' },
      ]);
      expect(() => readFolderAtCommit(repo, commit, 'cue.mod', { entries: 3, bytes: 1024 })).toThrow(
        'more than 3 files and folders',
      );
      expect(() => readFolderAtCommit(repo, commit, 'cue.mod', { entries: 100, bytes: 20 })).toThrow(
        'its files hold more than 20 bytes',
      );
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('resolves refs to commits, undefined for a ref the clone does not have, and refuses option-like refs', () => {
    expect(resolveCommit(dir, 'HEAD~1')).toBe(first);
    expect(resolveCommit(dir, 'main')).toBe(second);
    expect(resolveCommit(dir, 'no-such-branch')).toBeUndefined();
    expect(() => resolveCommit(dir, '--all')).toThrow(GitReadError);
    expect(hasCommit(dir, first)).toBe(true);
    expect(hasCommit(dir, 'e'.repeat(40))).toBe(false);
  });

  it('finds the work tree inside the workspace only, and turns paths into repository paths', () => {
    expect(gitWorkTreeOf(join(dir, 'deploy', 'runtime.cue'), dir)).toBe(dir);
    expect(gitWorkTreeOf(join(dir, 'deploy', 'runtime.cue'), join(dir, 'deploy'))).toBeUndefined();
    expect(repositoryPathOf(join(dir, 'deploy', 'runtime.cue'), dir)).toBe('deploy/runtime.cue');
    expect(() => repositoryPathOf(join(dir, '..', 'elsewhere.cue'), dir)).toThrow('is not inside the repository');
  });
});
