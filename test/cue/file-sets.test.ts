// A module's cue.mod files are sent once per engine (src/cue/file-sets.ts) and its built
// imports reused by later loads (src/cue/shim/modulecontext.go): what a load gives must
// not depend on what the engine loaded before.
import { afterAll, describe, expect, it } from 'vitest';
import { BridgeCueEngine } from '../../src/cue/engine.js';
import { FileSets, filesDigest, splitFiles } from '../../src/cue/file-sets.js';
import { startNative, type NativeEngine } from '../../src/cue/native-runtime.js';
import type { CueEngine } from '../../src/cue/index.js';
import { engine, engineKinds } from './engine.js';
import { readFixture } from './fixture-files.js';

const module = readFixture('k8s-app');
const natives: NativeEngine[] = [];
afterAll(() => {
  for (const native of natives) native.stop();
});

/** An engine that has loaded nothing yet. */
async function freshNative(): Promise<CueEngine> {
  const native = await startNative();
  natives.push(native);
  return new BridgeCueEngine(native.bridge, 'native');
}

function build(cue: CueEngine, name: string, files: Record<string, string> = module): string {
  const root = cue.load({ files, package: 'main', tags: [`name=${name}`, 'namespace=apps'], tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' } });
  try {
    return root.lookup('timoni').toYAML();
  } finally {
    root.free();
  }
}

describe('file sets', () => {
  it('split the cue.mod files from the load\'s own, and tell contents apart', () => {
    const { shared, own } = splitFiles({ 'cue.mod/module.cue': 'a', 'sub/cue.mod/gen/x.cue': 'b', 'main.cue': 'c', 'cue.modx/y.cue': 'd' });
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
    expect(sets.digest({ a: 'x', b: new TextEncoder().encode('c') })).toBe(filesDigest({ a: 'x', b: new TextEncoder().encode('c') }));
    expect(sets.digest({ a: 'x' })).toBe(filesDigest({ a: 'x' }));
  });
});

describe.each(engineKinds)('loads of one module (%s engine)', (kind) => {
  it('give what an engine that loaded nothing before gives', async () => {
    const cue = await engine(kind);
    const first = build(await freshNative(), 'first');
    const renamed = build(await freshNative(), 'other');
    expect(renamed).not.toBe(first);
    for (let i = 0; i < 20; i += 1) expect(build(cue, i % 2 === 0 ? 'first' : 'other')).toBe(i % 2 === 0 ? first : renamed);
  });

  it('survive the engine dropping a module\'s files for newer ones', async () => {
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
