import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCueModuleFiles, readSourceFiles } from '../src/bundle/sources.js';
import { FileBoundary, FileBoundaryError } from '../src/file-boundary.js';
import { readModuleFiles } from '../src/module/source.js';

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'boundary-'));
  mkdirSync(join(root, 'repo', 'shared'), { recursive: true });
  writeFileSync(join(root, 'outside.txt'), 'host secret 7f3a');
  writeFileSync(join(root, 'repo', 'shared', 'lib.cue'), 'package lib\n');
  return root;
}

describe('the file boundary', () => {
  it('allows symlinks that stay inside and refuses those that leave, naming the file and its target', () => {
    const root = workspace();
    const repo = join(root, 'repo');
    symlinkSync(join(repo, 'shared'), join(repo, 'linked'));
    symlinkSync(join(root, 'outside.txt'), join(repo, 'runtime.cue'));
    const boundary = new FileBoundary([repo]);
    expect(boundary.check(join(repo, 'linked', 'lib.cue'))).toBe(join(boundary.roots[0] ?? '', 'shared', 'lib.cue'));
    expect(() => boundary.check(join(repo, 'runtime.cue'), 'runtime.cue')).toThrow(FileBoundaryError);
    expect(() => readSourceFiles(['runtime.cue'], repo, boundary)).toThrow(
      /runtime\.cue: points to .*outside\.txt, which is outside the allowed folder/,
    );
    expect(() => readSourceFiles(['../outside.txt'], repo, boundary)).toThrow(/unsupported file extension/);
  });

  it('walks cue.mod and module folders through inside links once, and refuses links out of them', () => {
    const root = workspace();
    const repo = join(root, 'repo');
    mkdirSync(join(repo, 'cue.mod'));
    writeFileSync(join(repo, 'cue.mod', 'module.cue'), 'module: "example.com/x"\n');
    symlinkSync(join(repo, 'shared'), join(repo, 'cue.mod', 'pkg'));
    symlinkSync(repo, join(repo, 'cue.mod', 'loop'));
    const boundary = new FileBoundary([repo]);
    const files = readCueModuleFiles(repo, boundary);
    expect(files['cue.mod/pkg/lib.cue']).toBe('package lib\n');
    symlinkSync('/etc', join(repo, 'cue.mod', 'etc'));
    expect(() => readCueModuleFiles(repo, boundary)).toThrow(/cue\.mod\/etc points to \/etc, which is outside/);
    mkdirSync(join(repo, 'mod'));
    symlinkSync('/proc/self/environ', join(repo, 'mod', 'environ'));
    expect(() => readModuleFiles(join(repo, 'mod'), boundary)).toThrow(
      /environ points to \/proc\/\d+\/environ, which is outside/,
    );
  });
});
