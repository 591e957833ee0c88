// A module's cue.mod files are sent once per engine (src/cue/file-sets.ts): what a load
// gives must not depend on which sets the engine still keeps. The reuse of its built
// imports (src/cue/shim/modulecontext.go) is tested in shim/modulecontext.test.ts.
import { describe, expect, it } from 'vitest';
import { FileSets, filesDigest, splitFiles } from '../../src/cue/file-sets.js';
import type { CueEngine } from '../../src/cue/index.js';
import { engine, engineKinds } from './engines.js';
import { readFixture } from './fixture-files.js';

const module = readFixture('k8s-app');

function build(cue: CueEngine, name: string, files: Record<string, string> = module): string {
  const root = cue.load({
    files,
    package: 'main',
    tags: [`name=${name}`, 'namespace=apps'],
    tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
  });
  try {
    return root.lookup('timoni').toYAML();
  } finally {
    root.free();
  }
}

describe('file sets', () => {
  it("split the cue.mod files from the load's own, and tell contents apart", () => {
    const { shared, own } = splitFiles({
      'cue.mod/module.cue': 'a',
      'sub/cue.mod/gen/x.cue': 'b',
      'main.cue': 'c',
      'cue.modx/y.cue': 'd',
    });
    expect(Object.keys(shared).sort()).toEqual(['cue.mod/module.cue', 'sub/cue.mod/gen/x.cue']);
    expect(Object.keys(own).sort()).toEqual(['cue.modx/y.cue', 'main.cue']);
    expect(filesDigest({ a: 'x', b: 'y' })).toBe(filesDigest({ b: 'y', a: 'x' }));
    expect(filesDigest({ a: 'x' })).not.toBe(filesDigest({ a: 'y' }));
    expect(filesDigest({ a: 'xy' })).not.toBe(filesDigest({ ax: 'y' }));
    expect(filesDigest({ a: 'x' })).not.toBe(filesDigest({ a: new TextEncoder().encode('x') }));
  });

  it('remembers the digest of the files it saw, and computes it again for other contents', () => {
    const sets = new FileSets();
    const bytes = new TextEncoder().encode('b');
    expect(sets.digest({ a: 'x', b: bytes })).toBe(filesDigest({ a: 'x', b: bytes }));
    expect(sets.digest({ b: new TextEncoder().encode('b'), a: 'x' })).toBe(filesDigest({ a: 'x', b: bytes }));
    expect(sets.digest({ a: 'y', b: bytes })).toBe(filesDigest({ a: 'y', b: bytes }));
    expect(sets.digest({ a: 'x', b: new TextEncoder().encode('c') })).toBe(
      filesDigest({ a: 'x', b: new TextEncoder().encode('c') }),
    );
    expect(sets.digest({ a: 'x' })).toBe(filesDigest({ a: 'x' }));
  });
});

describe.each(engineKinds)('loads of one module (%s engine)', (kind) => {
  it("survive the engine dropping a module's files for newer ones", async () => {
    const cue = await engine(kind);
    const want = build(cue, 'app');
    // Ten other sets of cue.mod files (a comment apart): more than the engine keeps.
    for (let i = 0; i < 10; i += 1) {
      const variant = { ...module, 'cue.mod/module.cue': `${module['cue.mod/module.cue']}// variant ${i}\n` };
      expect(build(cue, 'app', variant)).toBe(want);
    }
    expect(build(cue, 'app')).toBe(want);
  });
});
