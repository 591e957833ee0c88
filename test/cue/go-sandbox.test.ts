import { describe, expect, it } from 'vitest';
import { createGoFileSystem, lookupOperations, refusedOperations } from '../../src/cue/go-sandbox.js';
import { engine } from './engines.js';
import { readFixture } from './fixture-files.js';

type Callback = (error: (Error & { code?: string }) | null, result?: unknown) => void;
type GoFs = Record<string, (...args: unknown[]) => unknown>;

function callbackResult(
  fs: GoFs,
  operation: string,
  args: unknown[],
): Promise<{ error: (Error & { code?: string }) | null; result?: unknown }> {
  return new Promise((resolve) => {
    const callback: Callback = (error, result) => resolve({ error, result });
    fs[operation]?.(...args, callback);
  });
}

// The WebAssembly engine's sandbox; the native engine's confinement is tested in
// native-runtime.test.ts and shim/load.test.ts (the same load asks its host only under the
// virtual root too).
describe('the file system given to Go (wasm engine)', () => {
  it('fails every look-up with ENOENT and every other operation with ENOSYS', async () => {
    const fs = createGoFileSystem() as GoFs;
    for (const operation of lookupOperations) {
      const { error } = await callbackResult(fs, operation, ['/etc/passwd', 0, 0]);
      expect(error?.code, operation).toBe('ENOENT');
    }
    for (const operation of refusedOperations) {
      const { error } = await callbackResult(fs, operation, ['/tmp/x', 0, 0]);
      expect(error?.code, operation).toBe('ENOSYS');
    }
    expect(() => (fs.writeSync as (fd: number, b: Uint8Array) => number)(5, new Uint8Array(1))).toThrow(
      /file descriptor 5/,
    );
  });

  it('is what Go uses: a module load asks the host only for paths under the virtual root, and gets nothing', async () => {
    const cue = await engine('wasm');
    const goFs = (globalThis as unknown as { fs: GoFs }).fs;
    const asked: string[] = [];
    const originals = new Map<string, GoFs[string]>();
    for (const operation of lookupOperations) {
      const original = goFs[operation];
      if (!original) throw new Error(`the sandbox has no ${operation}`);
      originals.set(operation, original);
      goFs[operation] = (...args: unknown[]) => {
        asked.push(`${operation} ${String(args[0])}`);
        return original(...args);
      };
    }
    try {
      const root = cue.load({
        files: readFixture('k8s-app'),
        package: 'main',
        tags: ['name=a', 'namespace=b'],
        tagVars: { moduleVersion: '1', kubeVersion: '1' },
      });
      expect(root.lookup('timoni.instance.config.metadata.name').toJSON()).toBe('a');
      root.free();
    } finally {
      for (const [operation, original] of originals) goFs[operation] = original;
    }
    expect(asked.length).toBeGreaterThan(0);
    for (const call of asked) expect(call).toMatch(/^\w+ \/timoni-fleet-virtual\/load-\d+(\/|$)/);
  });
});
