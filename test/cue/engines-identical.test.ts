// The native engine and the WebAssembly one are the same Go shim: every export of a
// module with the Kubernetes schemas must be byte for byte the same.
import { describe, expect, it } from 'vitest';
import type { CueEngine } from '../../src/cue/index.js';
import { engine } from './engine.js';
import { readFixture } from './fixture-files.js';

interface Exports {
  json: string;
  yaml: string;
  cue: string;
  fields: string;
  diagnostics: string;
}

function exports(cue: CueEngine, name: string): Exports {
  const root = cue.load({ files: readFixture('k8s-app'), package: 'main', tags: [`name=${name}`, 'namespace=apps'], tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' } });
  try {
    const timoni = root.lookup('timoni');
    const out: Exports = {
      json: JSON.stringify(timoni.toJSON()),
      yaml: timoni.toYAML(),
      cue: timoni.toCUE(),
      fields: JSON.stringify(root.fields({ hidden: true, definitions: true, optional: true })),
      diagnostics: JSON.stringify(root.fill('values.replicas', 'many').validate({ concrete: true })),
    };
    timoni.free();
    return out;
  } finally {
    root.free();
  }
}

describe('native and WebAssembly engines', () => {
  it('export a module with the Kubernetes schemas byte for byte the same', async () => {
    const [native, wasm] = [await engine('native'), await engine('wasm')];
    expect(native.kind).toBe('native');
    expect(wasm.kind).toBe('wasm');
    const ours = exports(native, 'podinfo');
    expect(ours.json.length).toBeGreaterThan(1000);
    expect(JSON.parse(ours.diagnostics)).not.toEqual([]);
    expect(ours).toEqual(exports(wasm, 'podinfo'));
    // Twice in a row (a warm engine) gives the same bytes again.
    expect(exports(native, 'podinfo')).toEqual(ours);
  });
});
