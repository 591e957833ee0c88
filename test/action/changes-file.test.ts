import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChangesFiles, readChangesFile, writeChangesFile } from '../../src/action/changes-file.js';
import { GitCheckout } from '../../src/action/git-index.js';
import { CHANGESET_FORMAT, type ChangeSet } from '../../src/changeset.js';
import { FileBoundary } from '../../src/file-boundary.js';

const changeSet: ChangeSet = {
  format: CHANGESET_FORMAT,
  bundle: 'apps',
  mode: 'diff',
  commit: 'abc',
  clusters: [
    { name: 'staging-1', group: 'staging', kubeContext: 'fleet-1', status: 'unchanged', error: null, instances: [] },
  ],
};

function workspace(): { root: string; boundary: FileBoundary } {
  const root = mkdtempSync(join(tmpdir(), 'changes-file-'));
  return { root, boundary: new FileBoundary([root]) };
}

describe('writeChangesFile', () => {
  it('writes the ChangeSet at the changes-file path in the workspace, folders created, private to the job', () => {
    const { root, boundary } = workspace();
    const path = writeChangesFile({}, changeSet, { path: 'out/shard/changes.json', workspace: root, boundary });
    expect(path).toBe(join(root, 'out', 'shard', 'changes.json'));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(changeSet);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes under RUNNER_TEMP without the input, and nowhere without either', () => {
    const { root, boundary } = workspace();
    const path = writeChangesFile({ RUNNER_TEMP: root, GITHUB_RUN_ID: '7' }, changeSet, {
      path: '',
      workspace: root,
      boundary,
    });
    expect(path).toMatch(new RegExp(`^${root}/timoni-fleet-changes-apps-7-\\d+\\.json$`));
    expect(writeChangesFile({}, changeSet)).toBe('');
  });

  it('refuses a path that leaves the workspace, by a folder symlink or by itself being a symlink', () => {
    const { root, boundary } = workspace();
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    symlinkSync(outside, join(root, 'linked'));
    expect(() => writeChangesFile({}, changeSet, { path: 'linked/changes.json', workspace: root, boundary })).toThrow(
      /changes-file linked\/changes.json points to .*outside/,
    );
    expect(() =>
      writeChangesFile({}, changeSet, { path: '../elsewhere/changes.json', workspace: root, boundary }),
    ).toThrow('outside the allowed folder');
    writeFileSync(join(outside, 'target.json'), 'keep');
    symlinkSync(join(outside, 'target.json'), join(root, 'changes.json'));
    expect(() => writeChangesFile({}, changeSet, { path: 'changes.json', workspace: root, boundary })).toThrow(
      'changes-file changes.json is a symbolic link',
    );
    expect(readFileSync(join(outside, 'target.json'), 'utf8')).toBe('keep');
  });
});

describe('findChangesFiles', () => {
  it('finds files by *, ? and ** relative to the workspace, sorted, folders left out', () => {
    const { root } = workspace();
    for (const dir of ['changesets/changes-staging', 'changesets/changes-production', 'changesets/deep/er', 'other'])
      mkdirSync(join(root, dir), { recursive: true });
    for (const path of [
      'changesets/changes-staging/changes.json',
      'changesets/changes-production/changes.json',
      'changesets/deep/er/changes.json',
      'changesets/changes-production/notes.txt',
      'other/changes.json',
    ]) {
      writeFileSync(join(root, path), '{}');
    }
    expect(findChangesFiles(['changesets/*/changes.json'], root).map((p) => p.slice(root.length + 1))).toEqual([
      'changesets/changes-production/changes.json',
      'changesets/changes-staging/changes.json',
    ]);
    expect(findChangesFiles(['changesets/**/*.json'], root)).toHaveLength(3);
    expect(
      findChangesFiles(['changesets/changes-???????/*.json', 'other/changes.json'], root).map((p) =>
        p.slice(root.length + 1),
      ),
    ).toEqual(['changesets/changes-staging/changes.json', 'other/changes.json']);
    expect(findChangesFiles(['changesets/*'], root)).toEqual([]);
    expect(findChangesFiles(['missing/*.json'], root)).toEqual([]);
  });

  it('refuses a pattern that leaves the workspace', () => {
    const { root } = workspace();
    expect(() => findChangesFiles(['../*/changes.json'], root)).toThrow(
      'changes pattern "../*/changes.json" leaves the workspace',
    );
  });
});

describe('readChangesFile', () => {
  it('reads a ChangeSet, named relative to the workspace', () => {
    const { root, boundary } = workspace();
    writeFileSync(join(root, 'a.json'), JSON.stringify(changeSet));
    expect(readChangesFile(join(root, 'a.json'), root, boundary, new GitCheckout(root))).toEqual({
      file: 'a.json',
      changeSet,
    });
  });

  it('refuses what is not a ChangeSet, and a symlink out of the workspace, naming the file', () => {
    const { root, boundary } = workspace();
    writeFileSync(join(root, 'broken.json'), '{"bundle":');
    expect(() => readChangesFile(join(root, 'broken.json'), root, boundary, new GitCheckout(root))).toThrow(
      /^broken\.json: not a ChangeSet file: /,
    );
    writeFileSync(join(root, 'other.json'), '{"clusters":[]}');
    expect(() => readChangesFile(join(root, 'other.json'), root, boundary, new GitCheckout(root))).toThrow(
      'other.json: not a ChangeSet file (it needs',
    );
    symlinkSync('/etc/hostname', join(root, 'leak.json'));
    expect(() => readChangesFile(join(root, 'leak.json'), root, boundary, new GitCheckout(root))).toThrow(
      'leak.json points to /etc/hostname, which is outside',
    );
  });

  it('refuses a file that git tracks in the checkout, by its path or where a symlink leads, and reads the untracked ones beside it', () => {
    const { root, boundary } = workspace();
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: root,
        stdio: 'pipe',
        env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      });
    git('init', '--quiet');
    mkdirSync(join(root, 'changesets', 'production'), { recursive: true });
    mkdirSync(join(root, 'changesets', 'staging'), { recursive: true });
    writeFileSync(join(root, 'changesets', 'production', 'changes.json'), JSON.stringify(changeSet));
    writeFileSync(join(root, 'forged.json'), JSON.stringify(changeSet));
    git('add', 'changesets/production/changes.json', 'forged.json');
    writeFileSync(join(root, 'changesets', 'staging', 'changes.json'), JSON.stringify(changeSet));
    symlinkSync('../../forged.json', join(root, 'changesets', 'staging', 'linked.json'));
    const checkout = new GitCheckout(root);
    expect(() => readChangesFile(join(root, 'changesets/production/changes.json'), root, boundary, checkout)).toThrow(
      "changesets/production/changes.json: tracked by git in the checkout; a ChangeSet must come from a matrix job's artifact, not from the repository",
    );
    expect(() => readChangesFile(join(root, 'changesets/staging/linked.json'), root, boundary, checkout)).toThrow(
      'changesets/staging/linked.json: leads to forged.json, which git tracks in the checkout',
    );
    expect(readChangesFile(join(root, 'changesets/staging/changes.json'), root, boundary, checkout)).toEqual({
      file: 'changesets/staging/changes.json',
      changeSet,
    });
  });

  it('refuses a file when the index cannot be read: whether git tracks it cannot be told', () => {
    const { root, boundary } = workspace();
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'index'), 'DIRC not an index at all, but long enough');
    writeFileSync(join(root, 'a.json'), JSON.stringify(changeSet));
    expect(() => readChangesFile(join(root, 'a.json'), root, boundary, new GitCheckout(root))).toThrow(
      /^a\.json: cannot tell whether git tracks it in the checkout \(.*index: .*\); a ChangeSet is read only from a file that git does not track/,
    );
  });
});
