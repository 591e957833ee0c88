// `--base-ref REF`: the -r runtime file(s) as they were at REF, read with git from the work
// tree, become the run's base runtime; a REF without the file gives none; a REF git does
// not know, an option-like REF, a runtime outside the repository and --base-runtime beside
// it are refused.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/cli/arguments.js';
import { fleetFlagsFor, readBundleInputs } from '../../src/cli/options.js';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';

const runtimeOf = (...clusters: string[]) =>
  `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "fleet"\n\tclusters: {\n${clusters.map((c) => `\t\t"${c}": { group: "staging", kubeContext: "ctx-${c}" }\n`).join('')}\t}\n}\n`;
const bundle = 'bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "apps"\n\tinstances: {}\n}\n';

let engine: CueEngine;
let repo: string;
let first: string;

beforeAll(async () => {
  engine = await loadCueEngine();
  repo = mkdtempSync(join(tmpdir(), 'base-ref-'));
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
  git('init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'deploy'));
  writeFileSync(join(repo, 'deploy', 'bundle.cue'), bundle);
  git('add', '.');
  git('commit', '-q', '-m', 'no runtime yet');
  first = git('rev-parse', 'HEAD');
  writeFileSync(join(repo, 'deploy', 'runtime.cue'), runtimeOf('a', 'b', 'c'));
  git('add', '.');
  git('commit', '-q', '-m', 'three clusters');
  writeFileSync(join(repo, 'deploy', 'runtime.cue'), runtimeOf('a', 'b'));
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const inputs = (cwd: string, ...argv: string[]) =>
  readBundleInputs(
    engine,
    parseArguments(['-f', 'bundle.cue', '-r', 'runtime.cue', ...argv], [...fleetFlagsFor('diff')], { command: 'diff' }),
    cwd,
    {},
  );

describe('--base-ref', () => {
  it('reads the runtime file at REF with git, from a folder below the repository root', () => {
    const read = inputs(join(repo, 'deploy'), '--base-ref', 'HEAD');
    expect(read.runtime.clusters.map((c) => c.name)).toEqual(['a', 'b']);
    expect(read.baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['a', 'b', 'c']);
    expect(read.baseRuntime?.from).toMatch(/^runtime\.cue at HEAD \([0-9a-f]{7}, --base-ref\)$/);
  });

  it('gives no base runtime for a REF that did not have the runtime file', () => {
    expect(inputs(join(repo, 'deploy'), '--base-ref', first).baseRuntime).toBeUndefined();
  });

  it('refuses what it cannot read', () => {
    const deploy = join(repo, 'deploy');
    expect(() => inputs(deploy, '--base-ref', 'no-such-branch')).toThrow(
      '--base-ref: git does not know "no-such-branch"',
    );
    expect(() => inputs(deploy, '--base-ref=--output=/tmp/x')).toThrow(/not a ref/);
    expect(() => inputs(deploy, '--base-ref', 'HEAD', '--base-runtime', 'runtime.cue')).toThrow(
      '--base-ref and --base-runtime both give the base runtime',
    );
    const outside = mkdtempSync(join(tmpdir(), 'base-ref-outside-'));
    try {
      writeFileSync(join(outside, 'bundle.cue'), bundle);
      writeFileSync(join(outside, 'runtime.cue'), runtimeOf('a'));
      expect(() => inputs(outside, '--base-ref', 'HEAD')).toThrow('is not inside a git work tree');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
