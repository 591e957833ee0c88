import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBinaries } from './binaries.js';
import { engine, engineKinds } from './engine.js';
import { fixturesDir, readFixture } from './fixture-files.js';

// The native cue CLI of the same CUE version (bench/cue-cli) as an oracle: the engine
// must export exactly what `cue export` prints, values and key order alike.
const run = promisify(execFile);
let cue = '';
const scratch = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-oracle-'));

beforeAll(async () => {
  ({ cue } = await ensureBinaries((line) => process.stderr.write(`${line}\n`)));
}, 900_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function nativeExport(dir: string, args: string[]): Promise<string> {
  const { stdout } = await run(cue, ['export', ...args, '--out', 'json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  return JSON.stringify(JSON.parse(stdout));
}

describe.each(engineKinds)('the %s engine against the native cue CLI v0.17.1', (kind) => {
  it('exports the Kubernetes module identically', async () => {
    const cue = await engine(kind);
    const root = cue.load({
      files: readFixture('k8s-app'),
      package: 'main',
      tags: ['name=podinfo', 'namespace=apps'],
      tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
    });
    const ours = JSON.stringify(root.lookup('timoni').toJSON());
    root.free();
    const theirs = await nativeExport(join(fixturesDir, 'k8s-app'), ['.', '-t', 'name=podinfo', '-t', 'namespace=apps', '-t', 'mv=1.0.0', '-t', 'kv=1.36.3', '-e', 'timoni']);
    expect(ours).toBe(theirs);
  });

  it('orders the fields of a multi-file package identically', async () => {
    const files = {
      'b.cue': 'package app\nzeta: 1\nalpha: {second: 2, first: 1}\nlist: [{y: 1, x: 2}]\n',
      'a.cue': 'package app\nalpha: third: 3\nmiddle: "m"\nlist: [{z: 0}]\n#S: {k: *"d" | string, j?: int}\nwith: #S & {j: 1}\n',
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(join(scratch, name), content);
    const cue = await engine(kind);
    const value = cue.load({ files, package: 'app' });
    const ours = JSON.stringify(value.toJSON());
    value.free();
    expect(ours).toBe(await nativeExport(scratch, ['.']));
  });
});
