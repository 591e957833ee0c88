// Loads answered through the event loop (`loadAsync`): the native engine evaluates while
// this thread goes on, and the calls it blocks on meanwhile read the sent calls' answers
// first (native-pipes.ts); the WebAssembly engine answers at once. Both give what `load`
// gives.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CueError } from '../../src/cue/index.js';
import { startNative } from '../../src/cue/native-runtime.js';
import { engine, engineKinds } from './engines.js';
import { fixturesDir, readFixture } from './fixture-files.js';

const run = promisify(execFile);

const moduleFiles = readFixture('k8s-app');
const loadOf = (name: string) => ({
  files: moduleFiles,
  package: 'main',
  tags: [`name=${name}`, 'namespace=apps'],
  tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
});

describe.each(engineKinds)('a load sent (%s engine)', (kind) => {
  it('gives what the blocking load gives, and its errors as CueError', async () => {
    const cue = await engine(kind);
    const blocking = cue.load(loadOf('api'));
    const sent = await cue.loadAsync(loadOf('api'));
    try {
      expect(sent.lookup('timoni.apply').toJSON()).toEqual(blocking.lookup('timoni.apply').toJSON());
    } finally {
      blocking.free();
      sent.free();
    }
    const failed = await cue
      .loadAsync({ files: { 'a.cue': 'package a\nx: 1\nx: 2\n' }, package: 'a' })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(CueError);
    expect((failed as CueError).message).toMatch(/conflicting values 2 and 1/);
  });
});

describe('loads sent to the native engine', () => {
  it('answer in order when blocking calls come between them, and later ones still do', async () => {
    const cue = await engine('native');
    const names = ['one', 'two', 'three'];
    const sent = names.map((name) => cue.loadAsync(loadOf(name)));
    // Made before any answer came: it reads the three answers first, then its own.
    const compiled = cue.compile('a: 40 + 2');
    expect(compiled.toJSON()).toEqual({ a: 42 });
    compiled.free();
    const values = await Promise.all(sent);
    expect(values.map((value) => value.lookup('timoni.instance.config.metadata.name').toJSON())).toEqual(names);
    for (const value of values) value.free();
    // The notices of the answers read early are skipped: the next sent load gets its own answer.
    const next = await cue.loadAsync(loadOf('four'));
    expect(next.lookup('timoni.instance.config.metadata.name').toJSON()).toBe('four');
    next.free();
  });

  it('fail with the reason when the engine stops while they wait', async () => {
    // A load that evaluates for seconds (a comprehension over 60,000 numbers), so that the
    // engine is still at it when it stops.
    const slow = 'package a\nimport "list"\nx: [for i in list.Range(0, 60000, 1) {i * 2}]\n';
    const request = JSON.stringify({
      files: { 'a.cue': slow },
      binaryFiles: {},
      fileSet: 0,
      dir: '.',
      moduleRoot: '',
      args: [],
      package: 'a',
      tags: [],
      tagVars: {},
      dataFiles: false,
      acceptLegacyModules: true,
      displayNames: {},
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

    const killed = await startNative();
    const waiting = killed.later('load', request);
    await settle();
    process.kill(killed.pid, 'SIGKILL');
    await expect(waiting).rejects.toThrow(/^the CUE engine stopped while running load \(signal SIGKILL\)/);
    killed.stop();

    const stopped = await startNative();
    const pending = stopped.later('load', request);
    await settle();
    stopped.stop();
    await expect(pending).rejects.toThrow(/^the native CUE engine could not run load: the engine was stopped/);
  });

  it('keep a process alive that has nothing else to wait for', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', join(fixturesDir, 'child', 'sent-load.ts')],
      { timeout: 60_000 },
    );
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n').pop()).toBe('native {"x":[2,4,6]}');
  });
});
